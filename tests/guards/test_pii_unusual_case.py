"""Names the capitalised-word rules do not see: in lower case in chat, in scripts without capitals, in records'
fields; and the values published for testing, which are no one's unless the operator says otherwise.

Read with the step's own name reader (the shipped lexicons, rules and vetter) and, for the test values, through
the real proxy in front of a real upstream that records what it was sent.
"""

from __future__ import annotations

from typing import Any

import pytest

from taskgate.guards.findings import Finding
from taskgate.guards.names import names_for
from taskgate.guards.pii_params import PiiParams, Precision
from taskgate.guards.testvalues import EXAMPLE_IBANS, TEST_CARDS, published

from .conftest import Scripted, pii_config
from .test_pii_names import user


def read(text: str) -> list[tuple[str, str]]:
    names = names_for(PiiParams())
    assert names is not None
    return [(e, text[a:b]) for e, a, b in names.find(text)]


FOUND = [
    # lower case, as chat writes it
    ("priya is ooo today, ping marco for the payout", [("PERSON", "priya"), ("PERSON", "marco")]),
    ("kenji & mei are pairing on the shader thing", [("PERSON", "kenji"), ("PERSON", "mei")]),
    ("standup: hamid on ledger bug, sana on ios crash, pedro out sick",
     [("PERSON", "hamid"), ("PERSON", "sana"), ("PERSON", "pedro")]),
    ("i'm in lisbon till friday so replies will be slow", [("LOCATION", "lisbon")]),
    # scripts without capitals, and case endings
    ("田中美咲さんは京都で生まれ、今はロンドンに住んでいます。",
     [("PERSON", "田中美咲"), ("LOCATION", "京都"), ("LOCATION", "ロンドン")]),
    ("박지민 씨는 부산에서 카페를 운영한다.", [("PERSON", "박지민"), ("LOCATION", "부산")]),
    ("שרה לוי נולדה בירושלים", [("PERSON", "שרה לוי"), ("LOCATION", "ירושלים")]),
    ("Δημήτρης είναι στην Αθήνα αυτή την εβδομάδα", [("PERSON", "Δημήτρης"), ("LOCATION", "Αθήνα")]),
    ("佐藤さん、明日の件よろしくお願いします", [("PERSON", "佐藤")]),
    # lower case: what people do, said after the name
    ("joão has the pager till 3, aditi fixed jarvis", [("PERSON", "joão"), ("PERSON", "aditi")]),
    ("rohan is WFH from pune this week", [("PERSON", "rohan"), ("LOCATION", "pune")]),
    # a record's location field
    ("- name: Thandeka Mokoena\n  role: People Partner\n  location: Durban",
     [("PERSON", "Thandeka Mokoena"), ("LOCATION", "Durban")]),
    # payment files
    ('SEPA row 17: creditor="MAARTEN DE VRIES" amount=231.00', [("PERSON", "MAARTEN DE VRIES")]),
    ("Дмитрий вырос в Новосибирске, а сейчас живёт в Алматы.",
     [("PERSON", "Дмитрий"), ("LOCATION", "Новосибирске"), ("LOCATION", "Алматы")]),
    ("राहुल आज जयपुर से काम कर रहे हैं", [("LOCATION", "जयपुर")]),
    # records' fields, whatever their case or script
    ('charge failed card=**** holder="EMMA LAURENT" code=do_not_honor', [("PERSON", "EMMA LAURENT")]),
    ("hr-sync: updated record employee=NAKAMURA YUKI dept=ENG-PLATFORM", [("PERSON", "NAKAMURA YUKI")]),
    ("Reviewed-by: 김민준 <minjun.kim@naver.com>", [("PERSON", "김민준")]),
    ("Reviewed-by: Hunter Mills <hunter.mills@gmail.com>", [("PERSON", "Hunter Mills")]),
    ("location: Durban  # timezone SAST", [("LOCATION", "Durban")]),
    ("<Cdtr><Nm>Eero Mäkinen</Nm></Cdtr>", [("PERSON", "Eero Mäkinen")]),
    ("PID|1||MRN448211^^^MERCY||OKONKWO^ADAEZE||19840612|F", [("PERSON", "OKONKWO"), ("PERSON", "ADAEZE")]),
    # lower-case names with weaker cues: the name that opens a message, two names side by side, what is done for
    # a person, a name read once as a person's read wherever else the text writes it
    ("thandiwe could you rerun the export? cheers yusuf", [("PERSON", "thandiwe"), ("PERSON", "yusuf")]),
    ("hiroshi anneliese — design review moved to 3", [("PERSON", "hiroshi"), ("PERSON", "anneliese")]),
    ("pls add oluwaseun to the on-call rota", [("PERSON", "oluwaseun")]),
    ("the pager says kavya but kavya swapped with tomasz", [("PERSON", "kavya"), ("PERSON", "kavya"),
                                                           ("PERSON", "tomasz")]),
    ("dmitri – flaky e2e; svetlana – release notes", [("PERSON", "dmitri"), ("PERSON", "svetlana")]),
    # a name in capitals beside a payment's values, and people where they are in text about systems
    ("2024-03-01 INFO payout 410.00 EUR to DUBOIS CAMILLE FR7630006000011234567890189",
     [("PERSON", "DUBOIS CAMILLE")]),
    ("export the bookings of customers from Valparaíso into the CSV", [("LOCATION", "Valparaíso")]),
    ("auth: user 4411 signed in from Kraków after a 2FA reset", [("LOCATION", "Kraków")]),
    # places after another language's preposition, where the sentence is in that language; seas and ranges
    ("Giulia Conti vive a Torino ma lavora a Milano.",
     [("PERSON", "Giulia Conti"), ("LOCATION", "Torino"), ("LOCATION", "Milano")]),
    ("Rafael mora em Lisboa com a irmã e trabalha no porto.", [("PERSON", "Rafael"), ("LOCATION", "Lisboa")]),
    ("Sven och Maja bor i Göteborg sedan 2019.", [("PERSON", "Sven"), ("PERSON", "Maja"), ("LOCATION", "Göteborg")]),
    ("Tomás crossed the Andes on horseback", [("PERSON", "Tomás"), ("LOCATION", "Andes")]),
    # a persona's name split over a fixture's fields is no one's; a name given in an introduction is kept
    ('const user = { firstName: "Jane", lastName: "Doe", plan: "pro" };', []),
    ("I'm Wojciech, new on the payments team", [("PERSON", "Wojciech")]),
    # a persona's parts in prose are people (`John`, `Smith`); in a fixture's fields they are not (below)
    ("John from sales and Mrs Smith from HR both need access", [("PERSON", "John"), ("PERSON", "Smith")]),
    ("Dear MS Katharina Huber, your booking is confirmed", [("PERSON", "Katharina Huber")]),
    # a table's person's and place's columns, `Surname, Given`, a load file, HL7's next of kin and address
    ("ID|NAME|SSN|HIRED\nE1|NAKASHIMA, REIKO|xxx|2019\nE2|TEST, EMPLOYEE|xxx|1900",
     [("PERSON", "NAKASHIMA, REIKO")]),
    ("id,opened,reporter,neighbourhood\nSR-1,2024-06-14,Tobias Lindgren,Uppsala",
     [("PERSON", "Tobias Lindgren"), ("LOCATION", "Uppsala")]),
    ("þBEGDOCþþCUSTODIANþþTOþ\nþLA01þþBrandt, Sieglindeþþx@y.deþ", [("PERSON", "Brandt, Sieglinde")]),
    ("PID|1||MRN-1||Okafor^Ngozi||19800101|F|||^^Bristol^^BS1||\nNK1|1|Okafor^Emeka|SPO",
     [("PERSON", "Okafor"), ("PERSON", "Ngozi"), ("LOCATION", "Bristol"), ("PERSON", "Okafor"), ("PERSON", "Emeka")]),
    ('review doc=DOC-7 custodian="Whitmore, Charles"', [("PERSON", "Whitmore, Charles")]),
    # places with case endings and suffixes, a subdivision, a surname after a lower-case title
    ("Ola mówi, że klientka z Gdańska znowu czeka", [("PERSON", "Ola"), ("LOCATION", "Gdańska")]),
    ("Burak Şahin İzmir'de doğdu", [("PERSON", "Burak Şahin"), ("LOCATION", "İzmir")]),
    ("My cousin Aroha lives in Nova Scotia now", [("PERSON", "Aroha"), ("LOCATION", "Nova Scotia")]),
    ("roster change: capt. moreau swaps with f/o lindqvist", [("PERSON", "moreau"), ("PERSON", "lindqvist")]),
    # reservations' and imaging's names, an INSERT's columns, XML's given name and surname, a country's column
    ("101   HUBER/KATHARINA MRS   10/06/24  13/06/24  EB2", [("PERSON", "HUBER/KATHARINA")]),
    ("(0010,0010) PN [GARCIA^LUCIA]   # PatientName", [("PERSON", "GARCIA^LUCIA")]),
    ("INSERT INTO donors (id, first_name, last_name, city) VALUES\n  (90211, 'Chiamaka', 'Eze', 'Ibadan');",
     [("PERSON", "Chiamaka"), ("PERSON", "Eze"), ("LOCATION", "Ibadan")]),
    ("<GivenName>Léonie</GivenName><Surname>Gauthier</Surname>", [("PERSON", "Léonie"), ("PERSON", "Gauthier")]),
    ("ann_id,name,country,hours\nann-0431,Nguyễn Hoàng Anh,Việt Nam,38.5",
     [("PERSON", "Nguyễn Hoàng Anh"), ("LOCATION", "Việt Nam")]),
    ("Il dottor Bianchi ha aperto il suo studio a Bergamo dopo dieci anni passati a Torino.",
     [("PERSON", "Bianchi"), ("LOCATION", "Bergamo"), ("LOCATION", "Torino")]),
    # a surname's column holds a name no lexicon knows; a row's first and last; particles after a title
    ("acct,first_name,last_name,tier\nA-19,Wanjiru,Githongo,gold", [("PERSON", "Wanjiru"), ("PERSON", "Githongo")]),
    ('{"pax": [{"last": "TANAKA", "first": "SOTA"}]}', [("PERSON", "TANAKA"), ("PERSON", "SOTA")]),
    ('{"recipient": "Fam. van der Linden", "city": "Zwolle"}',
     [("PERSON", "van der Linden"), ("LOCATION", "Zwolle")]),
    # people arriving and on site, in text about systems; Finnish and Hungarian case endings; Hebrew's prefixes
    ("landed in Accra at 7, will pick up the gateway rollout after lunch", [("LOCATION", "Accra")]),
    ("Mathilde is on site in Rennes today for the meter swap", [("PERSON", "Mathilde"), ("LOCATION", "Rennes")]),
    ("Veera asuu Turussa, mutta hänen siskonsa asuu Oulussa.",
     [("PERSON", "Veera"), ("LOCATION", "Oulussa")]),
    ("Zsófia Szegeden él, és minden nyáron Debrecenbe utazik.",
     [("PERSON", "Zsófia"), ("LOCATION", "Szegeden"), ("LOCATION", "Debrecenbe")]),
    ("דניאל גר בחיפה", [("PERSON", "דניאל"), ("LOCATION", "חיפה")]),
    ("Моя сестра Ирина живёт в Казани", [("PERSON", "Ирина"), ("LOCATION", "Казани")]),
    # a person's column with a prefix, introductions and kin in other languages, a rota's days, another `and`
    ("UPDATE filings SET status = 'ok' WHERE filer_last_name = 'Kealoha'", [("PERSON", "Kealoha")]),
    ("[user] hola, soy Ximena y no me llegó el pedido", [("PERSON", "Ximena")]),
    ("mi abuela Remedios cumple noventa años", [("PERSON", "Remedios")]),
    ("rota: mon: Farhan / tue: Ingeborg", [("PERSON", "Farhan"), ("PERSON", "Ingeborg")]),
    ("Sindre og Ragnhild bor sammen", [("PERSON", "Sindre"), ("PERSON", "Ragnhild")]),
    # a fenced block of data (no language's tag, no line of code) is read as text; a row of cells between `|`;
    # another language's header; greetings and shout-outs in chat
    ("```\nE2201,Rashida Bello,571-33-0482,Denver\n```", [("PERSON", "Rashida Bello")]),
    ("```\n2024-06-16 AMS R1 Joost Verhoeven\n```", [("PERSON", "Joost Verhoeven")]),
    ("E-0712|Tamika Jefferson|471-22-0958|ops", [("PERSON", "Tamika Jefferson")]),
    ("Nazwisko;Imię;Miasto\nKaczmarek;Bożena;Gdynia",
     [("PERSON", "Kaczmarek"), ("PERSON", "Bożena"), ("LOCATION", "Gdynia")]),
    ("oye rodrigo, el pedido sigue pendiente", [("PERSON", "rodrigo")]),
    ("shoutout to siobhan for the hotfix", [("PERSON", "siobhan")]),
    # inside code: an inline code that is a name and nothing else, a full name in a fenced block's comment
    ("the splitter drops the particle for `Anouk van den Berg`", [("PERSON", "Anouk van den Berg")]),
    ("```python\nprint(row)  # expected: Rashida Bello\n```", [("PERSON", "Rashida Bello")]),
    # Thai without spaces, two-word places in Hebrew, Greek's article before a place, Polish stems of other
    # names, islands and lakes, a route's ends, a river by its word, a place field's town before its state
    ("ครอบครัวย้ายจากเชียงใหม่ไปกรุงเทพฯ", [("LOCATION", "เชียงใหม่"), ("LOCATION", "กรุงเทพฯ")]),
    ("דנה עברה ל-באר שבע", [("PERSON", "דנה"), ("LOCATION", "באר שבע")]),
    ("Η Σοφία ζει στην Κρήτη", [("PERSON", "Σοφία"), ("LOCATION", "Κρήτη")]),
    ("Marek jest teraz w Gdańsku, jutro jedzie do Warszawy.",
     [("PERSON", "Marek"), ("LOCATION", "Gdańsku"), ("LOCATION", "Warszawy")]),
    ("Teresa vive nos Açores desde 2010.", [("PERSON", "Teresa"), ("LOCATION", "Açores")]),
    ("handover: Takumi Mori -> Yuki Hayashi", [("PERSON", "Takumi Mori"), ("PERSON", "Yuki Hayashi")]),
    ("train Lyon → Torino on Friday", [("LOCATION", "Lyon"), ("LOCATION", "Torino")]),
    ("sandbags along the river Severn again", [("LOCATION", "Severn")]),
    ('{"loss_location": "Tulsa, Oklahoma"}', [("LOCATION", "Tulsa"), ("LOCATION", "Oklahoma")]),
    # a street and its number; a payee in a bank line's capitals, with accents, an initial, among other words;
    # more Czech and Polish case endings; a Finnish illative
    ("please ship it to Rua da Prata 58, Lisboa", [("LOCATION", "Rua da Prata 58"), ("LOCATION", "Lisboa")]),
    ("new address: Drottninggatan 71, Uppsala", [("LOCATION", "Drottninggatan 71"), ("LOCATION", "Uppsala")]),
    ("2024-06-28  Lön juni  LINDQVIST, ELSA  SE45 5000 0000 0583 9825 7466", [("PERSON", "LINDQVIST, ELSA")]),
    ("ACH RETURN R02  MARTINEZ LUCIA R  ACCT ****2291", [("PERSON", "MARTINEZ LUCIA R")]),
    ("Eva psala, že se přestěhovala z Brna do Olomouce a teď bydlí tam.",
     [("PERSON", "Eva"), ("LOCATION", "Brna"), ("LOCATION", "Olomouce")]),
    ("Kasia mówi, że faktura jest gotowa", [("PERSON", "Kasia")]),
    # a review's cases: people whose names a famous person, a street's word or a room's word shares; an address
    # whose street is a state's name
    ("Refund issued to Mary Jackson, card ending 4421.", [("PERSON", "Mary Jackson")]),
    ("Ankita Sharma reviewed the PR.", [("PERSON", "Ankita Sharma")]),
    ("Kenji Nagata called about his order.", [("PERSON", "Kenji Nagata")]),
    ("Give Maria Garcia room to breathe.", [("PERSON", "Maria Garcia")]),
    ("I live at 1600 Pennsylvania Avenue.", [("LOCATION", "1600 Pennsylvania Avenue")]),
    ("Elina asuu Turussa, mutta hänen veljensä muutti Jyväskylään.",
     [("PERSON", "Elina"), ("LOCATION", "Jyväskylään")]),
]  # fmt: skip


@pytest.mark.parametrize(("text", "names"), FOUND)
def test_names_in_lower_case_other_scripts_and_records_are_found(text: str, names: list[tuple[str, str]]) -> None:
    assert read(text) == names


NOT_NAMES = [
    "run `git log --author=marco` and grep for priya_test in the fixtures",
    'var ean = "4006381333931"; // marco said so',  # a line of code
    "周末去张量的仓库看看",  # Chinese names are not read: `周末` (weekend) and `张量` (tensor) would be
    '  - id: amr-015\n    name: "Rosie"\n    map: warehouse-venlo-v7',  # a robot's name in a config
    "the maria db replica in lisbon-1 is lagging",
    "deploy to paris and lisbon regions tonight",
    "東京リージョンのサーバーが落ちた",  # a cloud region written as its city
    'name: "ledger-pg"',
    'User(name="Test Holder", email="qa@example.com")',
    "From: Renovate Bot <renovate-bot@fintrail.co>",  # a program's mailbox: its display name is no one's
    "she wrote from the lab and cc'd the research office",
    "elif retries > 3:\n    raise Timeout()",  # a language's keyword people are also called
    "WARN MAX RETRY reached; GRANT ALL ON ledger TO app",  # capitals that are ordinary words
    "кластер moscow-prod снова упал? или это только ru-central1-a",  # another language's lower-case words
    "iban: DE89 3704 0044 0532 0130 00",  # a field's label
    "we booked an offsite en route to the Pacific Time standup",  # English: `en` is no preposition here
    'TZ="Pacific/Auckland" for the Atlantic Records import',  # a time zone, a company
    # storms, fonts, organisations, an X.509 name's organisation, animals
    "Storm Henk playbook: pre-stage crews at every depot",
    """{"editor.fontFamily": "'Fira Code', Georgia, serif"}""",
    "subject: OU=Court Filings, O=Lex Archiva sp. z o.o., C=PL",
    '"author": "Nordwind Engineering"',
    "08:30 | patient: Mochi (feline) | vaccination",
    # time zones, protocols, a business's name in a table of sellers, months in a payment line
    "TZ=Europe/Amsterdam for TCP/IP and CI/CD",
    "INSERT INTO sellers (id, name, city_code) VALUES (88412, 'Atelier Lune', 'PAR');",
    "2024-06-03,DE48 6081 8097 3094 1942 63,25.00,SPENDE JUNI",
    "Lorsque la cheffe est arrivée, elle ne parlait pas un mot de français",
    # rooms, schools and ships named after people, other languages' placeholder people, another language's line
    "FAC-220: HVAC in Dolores Huerta Hall; Rosa Parks Elementary gym also affected",
    "FYI room Grace Hopper has the broken HDMI again",
    "MSC Gülsün moved to berth 7, ETA 14:20",
    'PLACEHOLDER_NAMES = {"pl": "Jan Kowalski", "it": "Mario Rossi", "no": "Ola Nordmann"}',
    "sống cùng gia đình từ năm 2019",
    # a street in one word, a month beside a day, a unit, a room named after a person, greetings and question
    # words, a record's placeholder values
    'depot_name: "Willem Kloosstraat"',
    "the offsite runs 3–7 Nov, flights booked",
    "the meter reads 14 Wh per hour",
    "retro is in the Tutu room this week",
    "Olá, the invoice export is broken again. How do I rerun it?",
    # a fenced block of code is still code; a shell's pipe is no table
    "```python\nfrom atlas import Hunter\nprint(Hunter.Grace)\n```",
    "cat audit.log | Grep Denied | wc -l",
    "run `Make Install` then restart `Grace Hopper()` and `new Maria Service`",
    # a lake that is a product, a German noun after its determiner
    "we moved the catalog to AWS Lake Formation",
    "jeden Sommer dasselbe Problem mit dem Export",
    # a review's cases: versions, drives, replication between regions, a verb, a bank, a chapter, weekdays
    "Spring 6 requires Java 17.",
    "Hard Drive 2 failed the SMART check.",
    "S3 replication Frankfurt -> Dublin is enabled.",
    "Run mount Gluster on each node.",
    "Transfer to ING Bank failed.",
    "Δες την ενότητα στο Κεφάλαιο 3 του εγχειριδίου.",
    "first=Monday last=Friday",
    # a list of storms in capitals, a tea, a building named after a writer, a practice's name, a pet in quotes
    "enum Storm { AGNES, BABET, CIARAN, DEBI }",
    # foods and drinks named after places, suites named after cities
    "add Brussels sprouts and a Moscow Mule to the menu seed",
    "The Lisbon, Oslo and Kyoto suites are booked out",
    "a pot of Earl Grey tea for the offsite",
    "a palestra é no auditório Cecília Meireles",
    "praxis: Tierarztpraxis Sonnenhof",
    'reminder sent: pet "Bodri" is due for its vaccination',
    # rooms and engines named after famous people, fictional people, a question's verb, greetings in UI strings
    '{"rooms": [{"id": "R-12", "name": "Katherine Johnson", "capacity": 6}]}',
    "the escape room is themed around Hercule Poirot",
    "Hi! Can you help me set up a cron job?",
    '{"es": {"welcome": "Bienvenido de nuevo"}, "fr": {"welcome": "Bienvenue"}}',
    '{"holder": "REDACTED", "iban": "REDACTED"}',
    # a row with no `)` and doubled quotes: read at once (the row's pattern gives back nothing it took)
    "INSERT INTO users (name, city) VALUES ('x', '" + "it''s " * 30,
]


@pytest.mark.parametrize("text", ["Idę do Anny, bo jest chora.", "Mam prezent od Martiny, która jest w domu."])
def test_a_persons_name_with_a_case_ending_is_not_a_place(text: str) -> None:
    """Polish inflects people's names as it does places' (`do Anny`, `od Martiny`): no place is read there."""
    assert [name for entity, name in read(text) if entity == "LOCATION"] == []


@pytest.mark.parametrize("text", NOT_NAMES)
def test_identifiers_regions_and_programs_in_the_same_shapes_are_not_names(text: str) -> None:
    assert read(text) == []


def test_every_listed_test_value_passes_its_checksum() -> None:
    """A card failing Luhn or an IBAN failing mod 97 is never found as one: listing it would be dead weight."""

    def luhn(number: str) -> bool:
        digits = [int(d) for d in reversed(number)]
        return sum(d if i % 2 == 0 else (2 * d - 9 if d > 4 else 2 * d) for i, d in enumerate(digits)) % 10 == 0

    def mod97(iban: str) -> bool:
        return int("".join(str(int(c, 36)) for c in iban[4:] + iban[:4])) % 97 == 1

    assert [c for c in TEST_CARDS if not luhn(c)] == []
    assert [i for i in EXAMPLE_IBANS if not mod97(i)] == []


@pytest.mark.parametrize(
    ("entity", "value", "test"),
    [
        ("CREDIT_CARD", "4242 4242 4242 4242", True),
        ("CREDIT_CARD", "4539 1488 0343 6467", False),
        ("IBAN_CODE", "DE89 3704 0044 0532 0130 00", True),
        ("IBAN_CODE", "DE44 5001 0517 5407 3249 31", False),
        ("US_SSN", "219-09-9999", True),
        ("US_SSN", "536-90-4399", False),
        ("PHONE_NUMBER", "+1 (212) 555-0147", True),
        ("PHONE_NUMBER", "+1 212 555 1234", False),
        ("PHONE_NUMBER", "020 7946 0018", True),
        ("PHONE_NUMBER", "+44 20 7123 4567", False),
        ("PHONE_NUMBER", "+61 491 570 156", True),
        ("PHONE_NUMBER", "078-05-1120", True),
        ("PHONE_NUMBER", "+15005550006", True),  # Twilio's test number
        ("PHONE_NUMBER", "+44 20 3555 0123", False),  # 555 01 in a London number is no North American fiction
        ("PHONE_NUMBER", "+49 30 1555 0123", False),
        ("PHONE_NUMBER", "(207) 946-0123", False),  # a North American number, not London's drama range
        ("PHONE_NUMBER", "02 5550 1234", True),  # ACMA's, in Australia's national form
        ("EMAIL_ADDRESS", "jane.doe@example.com", True),
        ("EMAIL_ADDRESS", "qa@staging.test", True),
        ("EMAIL_ADDRESS", "jane.doe@acme.io", False),
    ],
)
def test_published_test_values_are_told_from_real_ones(entity: str, value: str, test: bool) -> None:
    assert published(entity, value) is test


@pytest.mark.parametrize(
    ("text", "fixture"),
    [
        ('[{"name": "Margaux Petit", "city": "Nancy", "email": "margaux.petit@example.com"}]', True),
        ('seed(User(full_name="Idris Okafor", email="iokafor@shop.test", city="Lagos"))', True),
        ('{"email": "n.varga@example.org", "name": "Noémi Varga", "city": "Pécs"}', True),
        # a real address beside the name, or an example's address that spells someone else
        ('[{"name": "Margaux Petit", "city": "Nancy", "email": "margaux.petit@gmail.com"}]', False),
        ('{"name": "Margaux Petit", "city": "Nancy", "reply_to": "support@example.com"}', False),
    ],
)
def test_a_fixtures_people_are_no_ones_only_with_test_values_allowed(text: str, fixture: bool) -> None:
    """The people an example's address spells, and their row's places: with `allow_test_values` only (the
    default); with it false, they are people and places like any other."""
    names = names_for(PiiParams())
    assert names is not None
    found = [Finding(e, a, b, 1.0) for e, a, b in names.find(text)]
    assert {f.entity for f in found} >= {"PERSON", "LOCATION"}
    strict = Precision(PiiParams(allow_test_values=False), names.mailbox_part).kept(text, found)
    allowing = Precision(PiiParams(), names.mailbox_part).kept(text, found)
    assert strict == tuple(found)
    people_and_places = [f for f in allowing if f.entity in ("PERSON", "LOCATION")]
    assert (people_and_places == []) is fixture, allowing


async def test_test_values_are_no_ones_unless_the_operator_says_they_are_personal_data(
    proxy: Any, scripted: tuple[Scripted, str]
) -> None:
    upstream, url = scripted
    text = "Fixture: call +1 (212) 555-0147 and charge 4242 4242 4242 4242; the real one is +1 312 847 2290."
    params: dict[str, Any] = {"entities": {"PHONE_NUMBER": {"action": "redact"}, "CREDIT_CARD": {"action": "redact"}}}
    personal = "Fixture: call <PHONE_NUMBER> and charge <CREDIT_CARD>; the real one is <PHONE_NUMBER>."
    allowed = "Fixture: call +1 (212) 555-0147 and charge 4242 4242 4242 4242; the real one is <PHONE_NUMBER>."
    for allow, forwarded in (
        ({"allow_test_values": False}, personal),
        ({"allow_test_values": True}, allowed),
        ({}, allowed),  # the default
    ):
        client = await proxy(pii_config(url, {**params, **allow}))
        resp = await client.post("/v1/chat/completions", json=user(text))
        assert resp.status == 200, await resp.text()
        assert upstream.bodies[-1]["messages"][0]["content"] == forwarded


def test_a_place_people_go_to_is_read_and_a_time_zone_is_not() -> None:
    # `en route` is English, no preposition before `Pacific Time`; Rome is where the offsite is
    assert read("we booked a Rome offsite en route to the Pacific Time standup") == [("LOCATION", "Rome")]
