"""Values a table's header or a code comment bounds, and names a text says are no one's: a phone under a phone's
column, an SSN before a comment, a Teams copy about a product named like a person, a typeface named like one, a
test string a fault garbles, names the text says are not places, a business's name joined by a hyphen.

Read with the step's own name reader (the shipped lexicons, rules, vetter and language identifier's model).
"""

from __future__ import annotations

import pytest

from .test_pii_fields_streets_and_prose import scan


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # under a header's phone column, a number in any of its country's groupings
        ("name,town,mobile\nAgnieszka Wójcik,Kraków,512 904 377", ("PHONE_NUMBER", "512 904 377")),
        ("jméno;město;telefon\nTereza Nováková;Brno;603 212 456", ("PHONE_NUMBER", "603 212 456")),
        # a holder's name before their card's word: a card's number near, or a payer's word before it
        ("Refund failed for Eleni Papadaki card 4556-7375-8689-9855", ("PERSON", "Eleni Papadaki")),
        ('  smoke_card: "6011-4426-0384-4414"   # Owen Price corporate card', ("PERSON", "Owen Price")),
        ("bhaiya Rohan ka card 6074 0646 6405 9007 decline ho gaya", ("PERSON", "Rohan")),
        # a row of code that a comment ends: the last value is the cell's whole
        (
            'staff = [("Lucía Ferrer", "412-55-1834"), ("Tomás Vidal", "412551835")]  # payroll seed',
            ("US_SSN", "412551835"),
        ),
    ],
)
def test_a_value_a_header_or_a_comment_bounds_is_read(text: str, value: tuple[str, str]) -> None:
    assert value in scan(text)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        # a GPU's card, named like a person, with no card's number near
        ("We moved the fine-tune to the Hopper cards last week", "PERSON"),
        # a product's one name before a card and a number: no holder
        ("Hana Kim\nYour Titan card 4567 8901 2345 order shipped", "PERSON:Titan"),
        # the same grouping under a column that is no phone's: an amount, a member's number
        ("name,town,amount\nAgnieszka Wójcik,Kraków,512 904 377", "PHONE_NUMBER"),
        ("name,town,member_no\nAgnieszka Wójcik,Kraków,512 904 377", "PHONE_NUMBER"),
        # nine digits before a comment in a text that says nothing of SSNs or taxes
        ('staff = [("Lucía Ferrer", "A-1834"), ("Tomás Vidal", "412551835")]  # seed', "US_SSN"),
    ],
)
def test_what_no_phone_column_or_tax_word_bounds_is_not_read(text: str, kind: str) -> None:
    kind, _, surface = kind.partition(":")
    assert [f for f in scan(text) if f[0] == kind and surface in f[1]] == []


@pytest.mark.parametrize(
    ("text", "surface"),
    [
        # a Teams copy whose messages name products that are people's names too, before a system's noun
        (
            "Sanne Visser\nkan iemand de Prometheus alert dempen? loopt al sinds de Thanos upgrade\n"
            "Bram Jansen\ngedaan, stil tot 17:00",
            "Sanne Visser",
        ),
        # a typeface named like a person, beside other typefaces
        ("<lee> Lato is fine, Futura is not licensed, swap for Jost", "Jost"),
        ("headings in Oswald, body in Georgia", "Oswald"),
        # a test string a fault garbles
        ('the Latin-1 export breaks "Kraków" and "Gdańsk" in the PDF', "Kraków"),
        ('Label truncates long names ("Maximilian Fernández" test string from the design review)', "Maximilian"),
        # names the text says are not places
        ('Search suggests "Carcassonne" for "Catan"; board game names, not places', "Carcassonne"),
        # a business's name joined to a surname by a hyphen
        ("From: Berger-Service <noreply@heizung-berger.at>\nSubject: Ihre Wartung", "Berger-Service"),
    ],
)
def test_what_the_text_says_is_no_one_is_not_read(text: str, surface: str) -> None:
    assert [f for f in scan(text) if surface in f[1] and f[0] in ("PERSON", "LOCATION")] == []


@pytest.mark.parametrize(
    ("text", "found"),
    [
        # the same names where no typeface, fault, aside or business word is near
        ("Jost Weber moved the kiln schedule to Friday.", ("PERSON", "Jost Weber")),
        ("Our courier crashed the van in Kraków last week.", ("LOCATION", "Kraków")),
        ("Carcassonne is where the summer workshop takes place.", ("LOCATION", "Carcassonne")),
        ("Please call Anna Berger-Sommer about the boiler.", ("PERSON", "Anna Berger-Sommer")),
        # a name a fault garbles that is a customer's, a place a headline breaks: no encoding is spoken of
        ('My script garbled "Renée Dubois", she is our client in Lyon', ("PERSON", "Renée Dubois")),
        ('The storm breaks "Valencia" records again', ("LOCATION", "Valencia")),
        # a quoted name before a test's input, not a test's string; names and places asked for, not an aside
        ('"Pedro Alves" test input fails validation; he is a real user in Porto', ("PERSON", "Pedro Alves")),
        ("Ask Jana Novak; we need real names, not places.", ("PERSON", "Jana Novak")),
        # a typeface's name that is someone's: greeted, titled, in apposition
        ("Hi Jost, the Garamond files you asked for are ready", ("PERSON", "Jost")),
        ("Dear Ms. Barlow, the font you requested (Avenir) is attached", ("PERSON", "Barlow")),
        ("Our new hire, Jost, prefers Calibri for all decks.", ("PERSON", "Jost")),
        # a record of people under names, with no product or system named: still read
        ("Sanne Visser\nwoont in Utrecht sinds 2019?\nBram Jansen\nwoont in Delft", ("PERSON", "Sanne Visser")),
    ],
)
def test_the_same_names_elsewhere_are_still_read(text: str, found: tuple[str, str]) -> None:
    assert found in scan(text)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        # a province after a person's name and a comma, as a town is (`Eluned Pryce, Llandeilo`)
        ("Cliente: Marco Esposito, Padova\nTelefono: 347 210 8836", ("LOCATION", "Padova")),
        # a town after a person's name, a comma and a sentence's end
        ("Cliente: Lucía Romero, Sevilla. Teléfono +34 612 77 45 16.", ("LOCATION", "Sevilla")),
        # a bare SSN as the next quoted item of a list an SSN is in
        ('SSN_SAMPLES = ["376-96-1061", "547660295"]  # payroll export', ("US_SSN", "547660295")),
    ],
)
def test_a_place_beside_a_name_and_a_listed_ssn_are_read(text: str, found: tuple[str, str]) -> None:
    assert found in scan(text)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        # a Teams copy answered with an emoji alone: its speakers are handles
        ("Wiktoria Lis\ndzięki za fakturę, wszystko się zgadza\nOskar Mazur\n👍", "PERSON"),
        # nine digits after an SSN as a row's next cell, not a list's quoted item
        ("Mendez, Carla,218-13-0571,593261147", "US_SSN:593261147"),
        ('row = "218-13-0571", "593261147"', "US_SSN:593261147"),
    ],
)
def test_emoji_replies_and_a_rows_next_cell(text: str, kind: str) -> None:
    kind, _, surface = kind.partition(":")
    assert [f for f in scan(text) if f[0] == kind and surface in f[1]] == []


@pytest.mark.parametrize(
    ("text", "found"),
    [
        # a record's status or rating mark under a name is no chat's reply
        ("Anna Nowak\nprzeszła szkolenie BHP w marcu 2024 roku\nPiotr Wiśniewski\n✔", ("PERSON", "Anna Nowak")),
        (
            "Maria Rossi\nOttimo servizio, personale gentile e veloce\nLuca Bianchi\n⭐⭐⭐⭐⭐",
            ("PERSON", "Maria Rossi"),
        ),
    ],
)
def test_a_records_marks_and_a_sentence_after_a_name_keep_people(text: str, found: tuple[str, str]) -> None:
    assert found in scan(text)


@pytest.mark.parametrize(
    "text",
    [
        # a given name after `Name, ` then a sentence, not a contact's field
        "To: Tom Hardy, Austin. Austin, please confirm the dates.",
        "Hosts: Emma Watson, Florence. Florence brought the cake.",
    ],
)
def test_a_name_after_a_name_and_a_sentence_is_no_place(text: str) -> None:
    assert [f for f in scan(text) if f[0] == "LOCATION"] == []


@pytest.mark.parametrize(
    "text",
    [
        # a row written as a list, with an SSN and the row's other numbers
        'row = ["Mendez", "218-13-0571", "593261147"]  # name, ssn, account',
        'fields = ["218-13-0571", "412345678"]  # ssn, bank account number',
        "customer = ['Carla Mendez', '218-13-0571', '415550142']",
    ],
)
def test_a_rows_list_holds_one_ssn(text: str) -> None:
    assert len([f for f in scan(text) if f[0] == "US_SSN"]) == 1


@pytest.mark.parametrize(
    ("text", "code"),
    [
        # a US record's state field in more shapes: a test's fixture, a numbered owner, a camel-cased owner,
        # Clojure's keyword, COBOL's field
        ('FIXTURE_SSN: "398051877"\nFIXTURE_STATE: "AZ"', "AZ"),
        ("EMPLOYEE_1_SSN=409-77-0236\nEMPLOYEE_1_STATE=LA", "LA"),
        ("payee(ssn='528-19-3262', MailingCity='Tucson', MailingState='AZ')", "AZ"),
        ('[{:name "Jón Ólafsdóttir" :ssn "860214030" :state "MN"}]', "MN"),
        ('       05 EMP-SSN      PIC 9(9)  VALUE 516384328.\n       05 EMP-STATE    PIC XX    VALUE "LA".', "LA"),
    ],
)
def test_a_us_records_state_field_is_read(text: str, code: str) -> None:
    assert ("LOCATION", code) in scan(text)


@pytest.mark.parametrize(
    "text",
    [
        # a process's state, and a fixture's with no US person's value near
        "health_state: OK",
        '{"job": "backup", "state": "OK", "ssn_check": "skipped"}',
        'FIXTURE_STATE: "AZ"\nFIXTURE_TIMEOUT: 30',
        '       05 JOB-STATE    PIC XX    VALUE "OK".',
        # a status's code in the new shapes beside an SSN: a job's, a region's, a queue's, a test's state
        '(def job {:id 42 :ssn "512334871" :state "OK" :retries 0})',
        '       05 EMP-SSN      PIC 9(9)  VALUE 516384328.\n       05 JOB-STATE    PIC XX    VALUE "OK".',
        '       05 EMP-SSN      PIC 9(9)  VALUE 516384328.\n       05 REAL-ESTATE  PIC XX    VALUE "DE".',
        "US_EAST_1_STATE=OK\nOPS_SSN=409-77-0236",
        "SITE_2_STATE=NV\nSITE_2_SSN=409-77-0236",
        "CUSTOMER_3_STATE=OK  # passes validation\nCUSTOMER_3_SSN=409-77-0236",
        "queue(MailingState='OK', retries=3, ssn='528-19-3262')",
        "e2e_state=OK ssn=409770236",
    ],
)
def test_a_state_field_with_no_us_person_is_no_place(text: str) -> None:
    assert [f for f in scan(text) if f[0] == "LOCATION"] == []


@pytest.mark.parametrize(
    ("text", "ends"),
    [
        # a ferry's, a bus's route between towns of any size
        ("ferrybot: Sailing 14:40 Ullapool–Stornoway delayed 25 min (weather)", ("Ullapool", "Stornoway")),
        ("bus 42 Haarlem-Leiden delayed", ("Haarlem", "Leiden")),
    ],
)
def test_a_routes_towns_are_places(text: str, ends: tuple[str, str]) -> None:
    found = scan(text)
    assert ("LOCATION", ends[0]) in found
    assert ("LOCATION", ends[1]) in found


def test_a_link_between_two_towns_is_no_route() -> None:
    assert [f for f in scan("the Ullapool-Stornoway link is down") if f[0] == "LOCATION"] == []


@pytest.mark.parametrize(
    ("text", "place"),
    [
        # a town's column holds towns no lexicon holds too, in a two-column CSV as in a wider one
        ("name,town\nEilidh Rankin,Oban\nTorquil Nicolson,Portree", "Portree"),
        ("name;email;town\nIain Ross;iain@example.org;Kyleakin", "Kyleakin"),
    ],
)
def test_a_towns_column_holds_towns(text: str, place: str) -> None:
    assert ("LOCATION", place) in scan(text)


@pytest.mark.parametrize(
    "text",
    [
        # an ordinary word or a product under a town's column; a two-column CSV of no place
        "name,city\nAnna Berg,Remote",
        "name,city\nAnna Berg,Grafana",
        "host,port\ndb1,5432\ndb2,5433",
        # a placeholder's town, a row with no person
        "name,town\nJane Doe,Anytown\nTest User,Testville",
        "sensor,town\nT-101,Kyleakin",
    ],
)
def test_a_towns_column_of_words_and_products_holds_no_place(text: str) -> None:
    assert [f for f in scan(text) if f[0] == "LOCATION"] == []
