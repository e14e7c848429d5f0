"""Values a record's shape gives away and names that name no one: a long card under a card record's plain key or
after Chinese's paying by card, an IBAN that letters run on from, the next of SSNs tagged with whose they are, a
town before a US state's cell, a `state` that names a state, a Cyrillic street, town or region by its kind's word;
and a card's network, a project's codename, a mail header's key, Crystal's accessors, a sample person and the
speakers of a Teams copy written in Japanese, which are no one's names.

Read with the step's own name reader (the shipped lexicons, rules, vetter and language identifier's model).
"""

from __future__ import annotations

import pytest

from .test_pii_fields_streets_and_prose import scan


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # a 19-digit card under a card record's plain `number` key: a holder's, a brand's or an expiry's key near
        (
            'cards:\n  - holder: "Liu Yang"\n    number: "6283551570320086177"\n    brand: unionpay\n',
            ("CREDIT_CARD", "6283551570320086177"),
        ),
        ('{"number": "6283551570320086177", "expiry": "09/29"}', ("CREDIT_CARD", "6283551570320086177")),
        # after Chinese's and Cantonese's `pay by card`
        ("請盡快用卡 6253555255432830592 付款。", ("CREDIT_CARD", "6253555255432830592")),
        ("刷卡 6253555255432830592 失败", ("CREDIT_CARD", "6253555255432830592")),
        # an IBAN that a database's error runs letters on to: the IBAN, its country's length
        (
            "Detail: Failing row contains (1882, Seán Ó Briain, IE41BOFI00126285603583XX, 2026-03-08).",
            ("IBAN_CODE", "IE41BOFI00126285603583"),
        ),
        # the next of SSNs each tagged with whose it is, nine digits some country's phone number also is
        ("Records: 156-29-2288 (Chavis), 062920717 (Beaumont) — Asheville, NC", ("US_SSN", "062920717")),
        # a town's cell before a US state's cell, in a person's row under a city's column
        (
            " id | full_name        | ssn         | city   | state\n"
            "----+------------------+-------------+--------+------\n"
            " 17 | Harlan Pettigrew | 706-36-5256 | Bisbee | AZ\n"
            " 18 | Consuelo Ybarra  | 833-45-6803 | Yuma   | AZ\n",
            ("LOCATION", "Bisbee"),
        ),
        # a person's record's `state` that names a state or a region
        ('{"name": "Anil Sharma", "card": "6521 3582 1464 6670", "state": "Rajasthan"}', ("LOCATION", "Rajasthan")),
        # a column of regions, a data frame's list of towns, an SQL `IN` list of towns
        (
            "INSERT INTO finds (site, finder, region) VALUES\n  ('Ichthyosaur bay', 'Mary Anning', 'Dorset');",
            ("LOCATION", "Dorset"),
        ),
        ('df = pd.DataFrame({\n    "river_town": ["Çamlıhemşin", "Dalaman"],\n})', ("LOCATION", "Çamlıhemşin")),
        ("SELECT name, phone FROM guides WHERE base_town IN ('Bovec', 'Kobarid') AND active;", ("LOCATION", "Kobarid")),
        # a camp's and a Slovene form's place; a Slovene form's surname
        ('ICE-2207 name="Ingrid Solbakken" phone=+47 40 45 73 02 camp=Alta', ("LOCATION", "Alta")),
        ("Ime: Žiga, Priimek: Kravanja, Kraj: Trenta.", ("LOCATION", "Trenta")),
        ("Ime: Žiga, Priimek: Kravanja, Kraj: Trenta.", ("PERSON", "Kravanja")),
        # a Cyrillic street with its number, a town or a village by its kind's word, a region by its adjective
        ("Оплата картой, доставка на ул. Баумана, 44.", ("LOCATION", "Баумана, 44")),
        ("Адрес: г. Казань, ул. Пушкина 12", ("LOCATION", "Казань")),
        ("Об'єкт у селі Яблунів, Івано-Франківська область: глибина 42 м", ("LOCATION", "Яблунів")),
        ("Об'єкт у селі Яблунів, Івано-Франківська область: глибина 42 м", ("LOCATION", "Івано-Франківська область")),
        ("Народився у селі Яблунів Івано-Франківська область", ("LOCATION", "Яблунів")),
        ("Народився у селі Яблунів Івано-Франківська область", ("LOCATION", "Івано-Франківська область")),
        ("Адрес: ул. Малая Бронная, 15", ("LOCATION", "Малая Бронная, 15")),
    ],
)
def test_a_value_its_records_shape_gives_away_is_read(text: str, value: tuple[str, str]) -> None:
    assert value in scan(text)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        # a long number under a plain key of a record that is no card's
        ('items:\n  - id: 4471\n    number: "6283551570320086177"\n    status: shipped\n', "CREDIT_CARD"),
        # letters run on from a run whose part is no valid IBAN
        ("trace GB82WESTXX12345698765432ABC here", "IBAN_CODE"),
        # nine digits after an SSN and a tagged aside, with no tag of their own: a row's next cell
        ("Records: 156-29-2288 (Chavis), 062920717 — Asheville", "US_SSN:062920717"),
        # a pipe's next cell that is a status, in no person's row
        ("| Jordan | OK |", "LOCATION:OK"),
        # a surname and a given name in one cell before a state's cell
        (
            " employee       | state | ssn\n----------------+-------+----------\n"
            " Cortez, Ramona | AZ    | 650378480\n Pham, Quang    | WA    | 844-59-0786\n",
            "LOCATION:Ramona",
        ),
        # a process's state, a town's name too; a deployment's region column
        ('{"name": "Ana Ruiz", "health_state": "Normal", "tel": "+1 309 555 0142"}', "LOCATION"),
        ("| Region | Cloud | Latency |\n|---|---|---|\n| Frankfurt | eu-central-1 | 12 ms |\n", "LOCATION"),
        ("INSERT INTO nodes (host, region) VALUES ('db-1', 'eu-west-1'), ('db-2', 'Europe');", "LOCATION"),
        # a length in metres before a capitalised word, a page's number, a page's or a translator's abbreviation, a
        # `Mr` that writes as a town's, an adjective's word that only begins as a district's
        ("с. 45 Глава 3; длина 5 м. Дальше", "LOCATION"),
        ("См. документацию, с. Введение, раздел 3.", "LOCATION"),
        ("Модуль пер. Конфигурация применён к кластеру", "LOCATION"),
        ("Ответственный: г. Петров (см. приказ)", "LOCATION"),
        ("Загрузка Сибирской районной сети", "LOCATION"),
        # a word no place is under a camp's or a yard's key
        ("camp: base\nyard: Main", "LOCATION"),
    ],
)
def test_what_no_record_says_is_not_read(text: str, kind: str) -> None:
    kind, _, surface = kind.partition(":")
    assert [f for f in scan(text) if f[0] == kind and surface in f[1]] == []


@pytest.mark.parametrize(
    ("text", "surface"),
    [
        # a card's network after a person's possessive, and one a payment goes via
        ("[10:03] ravi.k: that's Meredith's Amex, she's testing from Scottsdale", "Amex"),
        ("[17:55] kai: the nursery wants us to pay via Dankort, 5019 7207 6160 2755", "Dankort"),
        # a project's codename, said so
        ("<vrana> next sprint codename is Betelgeuse, the one after is Rigel", "Betelgeuse"),
        # a mail header's key in Russian
        ("От: Ольга Смирнова <o.smirnova@mednye-mastera.ru>\nКому: info@mednye-mastera.ru\nТема: Заказ", "Кому"),
        # Crystal's accessors
        ('struct Guide\n  getter name : String\n  getter town : String\nend\ng = Guide.new("Ioana")', "getter"),
        # Slovak's sample person
        ("* Ján Vzorový (placeholder from template, ignore)", "Ján Vzorový"),
        # a Teams copy's speakers, their messages in Japanese: about a product, and a question asked
        (
            "Haruto Sato\nテストの結果、Kafka のコンシューマーが遅延しています\n"
            "Yuki Tanaka\n了解です。札幌の養殖場のデータだけですか？",
            "Haruto Sato",
        ),
    ],
)
def test_what_names_no_one_is_not_read(text: str, surface: str) -> None:
    assert [f for f in scan(text) if f[0] in ("PERSON", "LOCATION") and surface in f[1]] == []


@pytest.mark.parametrize(
    ("text", "found"),
    [
        # the people and places beside what names no one stay
        ("[10:03] ravi.k: that's Meredith's Amex, she's testing from Scottsdale", ("PERSON", "Meredith")),
        ("От: Ольга Смирнова <o.smirnova@mednye.ru>\nКому: info@mednye.ru", ("PERSON", "Ольга Смирнова")),
        ("Meno: Ján Novotný, Bratislava", ("PERSON", "Ján Novotný")),
        ("Major John Roe met Mary Major at the airport.", ("PERSON", "Mary Major")),
        ("Переведено: пер. Ольга Миронова", ("PERSON", "Ольга Миронова")),
        # people introduced in Japanese messages are no Teams copy's speakers
        ("Haruto Sato\n東京支社の営業部長です\nYuki Tanaka\n大阪支社の経理担当です", ("PERSON", "Haruto Sato")),
        (
            " employee       | state | ssn\n----------------+-------+----------\n"
            " Cortez, Ramona | AZ    | 650378480\n Pham, Quang    | WA    | 844-59-0786\n",
            ("PERSON", "Cortez, Ramona"),
        ),
    ],
)
def test_what_names_someone_beside_them_is_still_read(text: str, found: tuple[str, str]) -> None:
    assert found in scan(text)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        # a national number after Portuguese's `call` with its pronoun joined, after Chinese's `dial`
        (
            "a fábrica de conservas em Portimão vai ligar-lhe para o 912 525 287 amanhã?",
            ("PHONE_NUMBER", "912 525 287"),
        ),
        ("如有问题请拨打 010 1219 0641。", ("PHONE_NUMBER", "010 1219 0641")),
        # a noun no lexicon knows before a given name and a surname: the name is the two
        ("Die Rechnung von Frieda Kuhlmann ist noch offen", ("PERSON", "Frieda Kuhlmann")),
        ("Der Kunde Matthias Gruber aus Graz bittet um Rückruf", ("PERSON", "Matthias Gruber")),
        # a rider's field
        ('booking id=BK-77120 rider="Kittisak Wongsa" phone=+66812952536', ("PERSON", "Kittisak Wongsa")),
        # a town after a name and a comma, before a ticket title's colon
        ("Zendesk #91200 — Maria Santos, Porto: reembolso pedido", ("LOCATION", "Porto")),
        # a Korean city's name before a particle, and before `city hall`
        ("부산에서 서울까지 기차로 갑니다. 대전시청 앞에서 만나요.", ("LOCATION", "대전")),
        ("주소는 인천입니다.", ("LOCATION", "인천")),
        ("부산으로부터 연락이 왔습니다. 서울역에서 만나요.", ("LOCATION", "부산")),
        ("부산으로부터 연락이 왔습니다. 서울역에서 만나요.", ("LOCATION", "서울")),
    ],
)
def test_a_call_a_noun_before_a_name_and_a_rider_are_read(text: str, found: tuple[str, str]) -> None:
    assert found in scan(text)


@pytest.mark.parametrize(
    ("text", "surface"),
    [
        # a hut named after a king: not a noun before a person's name
        ('new Hut("Rifugio Vittorio Emanuele", "Valsavarenche", 2732),', "Vittorio Emanuele"),
        # a city's name that only begins a Korean word (`홈스`, Homs, of `홈스테이`, homestay)
        ("전주에 사는 김민서 님에게 한옥 홈스테이 예약 확인 메일을 써 주세요.", "홈스"),
        # businesses and prizes named after someone
        ("Bäckerei Anna Schmidt hat heute geschlossen", "Anna Schmidt"),
        ("Preis Hans Fischer für junge Forscher", "Hans Fischer"),
        # an English word before a colon after a name is a field's label
        ("Kim Novak, Reading: chapter 3 notes", "Reading"),
    ],
)
def test_a_namesake_and_a_word_a_city_begins_are_no_one(text: str, surface: str) -> None:
    assert [f for f in scan(text) if f[0] in ("PERSON", "LOCATION") and surface in f[1]] == []


@pytest.mark.parametrize(
    "text",
    [
        # Portuguese's `connect` and `switch on` with a pronoun joined, before numbers that are no phone's
        "Não consigo ligar-me à VPN, a porta 4433 8080 está bloqueada.",
        "Vou ligar-lhe o contador n.º 300 456 789 amanhã.",
    ],
)
def test_a_connection_is_no_call(text: str) -> None:
    assert [f for f in scan(text) if f[0] == "PHONE_NUMBER"] == []


@pytest.mark.parametrize(
    ("text", "found"),
    [
        # a two-cell row under a header whose second column is a phone's
        ("name;tel\nKristjan Tamm;5140 6217", ("PHONE_NUMBER", "5140 6217")),
        # a phone's key, then a list of numbers
        (
            'df = pd.DataFrame(dict(name=["Achieng Otieno"], phone=["0710 279534", missing]))',
            ("PHONE_NUMBER", "0710 279534"),
        ),
    ],
)
def test_a_phone_under_its_column_or_key_is_read(text: str, found: tuple[str, str]) -> None:
    assert found in scan(text)


@pytest.mark.parametrize(
    ("text", "surface"),
    [
        # a Windows time zone's name before a preposition
        ("Bugzilla 100231 – Thunderbird calendar shows Lord Howe Standard Time for water polo fixtures", "Howe"),
        # a Teams guest's speaker line with the half of the day, and Teams' call events under `Surname, Given` lines
        ("[2:10 PM] Harper Collins (Guest): the cuckoo clock from Black Forest arrived cracked", "Harper Collins"),
        ("Brown, Olivia 09:12\nJoined the call\nBrown, Olivia 09:40\nLeft the call", "Brown"),
    ],
)
def test_a_zones_name_and_a_calls_speakers_are_no_one(text: str, surface: str) -> None:
    assert [f for f in scan(text) if f[0] == "PERSON" and surface in f[1]] == []


@pytest.mark.parametrize(
    ("text", "found"),
    [
        # two cells under a header that names no phone; a person's name in the message after a speaker's time
        ("name;city\nKristjan Tamm;5140 6217", None),
        ("[2:10 PM] Harper Collins: the clock arrived, ask Harper Collins about it", ("PERSON", "Harper Collins")),
        ("Kevin Standard Time spent on it: 3h", ("PERSON", "Kevin Standard")),
        # an agenda's times with the half of the day, no guest's tag: its names are people's
        ("Agenda\n[9:00 AM] Anna Schmidt: keynote\n[10:00 AM] Paul Meyer: panel", ("PERSON", "Paul Meyer")),
        # a surname before `Summer Time` and a preposition
        ("Please ask Donna Summer Time for the slides.", ("PERSON", "Donna Summer")),
        # one call's event in a schedule of `Surname, Given` lines
        (
            "Interview schedule\nOkafor, David 11:00\nJoined the call\nMensah, Ama 11:30\nBoateng, Kofi 12:00",
            ("PERSON", "Mensah"),
        ),
    ],
)
def test_what_no_phone_column_or_zone_bounds_is_as_before(text: str, found: tuple[str, str] | None) -> None:
    if found is None:
        assert [f for f in scan(text) if f[0] == "PHONE_NUMBER"] == []
    else:
        assert found in scan(text)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        # a person's record's site, home port: a place no lexicon holds
        (
            'site_manager: "Andi Pratama"\nsite_location: "Jeneponto"\nsite_phone: "+62 812-816-710"',
            ("LOCATION", "Jeneponto"),
        ),
        ('roster:\n  skipper: "Magnus Sigurðsson"\n  homePort: "Húsavík"', ("LOCATION", "Húsavík")),
        # a geographic region in prose, though it shares its name with a cloud's
        ("We toured Southeast Asia last year with Anna Berg", ("PERSON", "Anna Berg")),
    ],
)
def test_a_persons_site_and_home_port_are_places(text: str, found: tuple[str, str]) -> None:
    assert found in scan(text)


@pytest.mark.parametrize(
    "text",
    [
        # Azure's regions by their display names, in a text that names Azure
        "can we move the Azure job from West Europe to France Central?",
        "Azure DevOps Task 311: Rotate Keycloak secrets for parasol-shop (West Europe, North Europe)",
        # a server's location and site, no person's record
        "server:\n  location: Frankfurt-2\n  home: /var/lib/app\n  site: Prod",
        '{"name": "db-1", "location": "Rack B7", "pier": "Main"}',
    ],
)
def test_a_clouds_region_and_a_servers_site_are_no_place(text: str) -> None:
    assert [f for f in scan(text) if f[0] in ("PERSON", "LOCATION")] == []


def test_a_persons_name_under_a_sites_key_stays_a_person() -> None:
    text = (
        "[10:12] hr_ops: new tech starts monday at the Sweetwater, TX site: Dakota Reyes\n[10:13] hr_ops: SSN on file"
    )
    assert ("PERSON", "Dakota Reyes") in scan(text)


@pytest.mark.parametrize(
    "text",
    [
        # a person's record's site that is a workplace, a code, a brand or a company, no town
        "maintainer: Kevin O'Brien\nlocation: HQ",
        "contact: Priya Nair\nlocation: Onsite",
        "contact: Priya Nair\nsite: Sharepoint",
        "contact: Priya Nair\nlocation: WeWork",
        "name: Sophie Martin\nsite: Northwind Traders\nphone: 030 1234567",
    ],
)
def test_a_persons_workplace_is_no_place(text: str) -> None:
    assert [f for f in scan(text) if f[0] == "LOCATION"] == []


@pytest.mark.parametrize(
    ("text", "found"),
    [
        # regions people live in, though Azure names its regions after them too
        ("We are travelling to Southeast Asia next month; the Azure bill will drop.", ("LOCATION", "Asia")),
        ("He grew up in Central India and now works on Azure at Microsoft.", ("LOCATION", "India")),
    ],
)
def test_a_region_people_live_in_stays_a_place_beside_azure(text: str, found: tuple[str, str]) -> None:
    assert found in scan(text)
