"""Values shaped like personal data that are not: ids written like phone numbers, SSNs no one was issued, service
mailboxes, systems named after people; and the real ones beside them, still found. Read with the step's own
scanner and name reader (real presidio, the shipped lexicons)."""

from __future__ import annotations

import pytest

from taskgate.guards.lexicons import fold, lexicons
from taskgate.guards.mailboxes import is_role
from taskgate.guards.names import Names
from taskgate.guards.presidio import entities_of
from taskgate.guards.scan import Scanner

from .test_pii_names import scanned
from .test_pii_systems import found


@pytest.mark.parametrize(
    "text",
    [
        "TIL: the ticket id 0161-555-0192 in the CRM is not a phone number",
        'const BUILD_ID = "415-555-0139";',
        "Order IDs like 0800-4471-9932 get rendered with a phone formatter",
        "const NO_TIMEOUT = 2147483647; // about 24.8 days in ms",
        "github-actions[bot] pushed 3 commits to release/2024.12 (run 12088341772)",
        "Dec 04 07:31:55 ip-172-31-18-204 kernel: NVRM: Xid 79",
        '{"message":"card declined","order.id":"ORD-2024-881734"}',
        "Changelog\n## [1.12.0] - 2024-12-02\n### Added",
    ],
)
def test_ids_in_a_phone_numbers_shape_are_not_phone_numbers(text: str) -> None:
    assert [f for f in scanned(text) if f[0] == "PHONE_NUMBER"] == [], text


@pytest.mark.parametrize(
    ("text", "phone"),
    [
        ("call me at 4155550123 tonight", "4155550123"),  # bare digits after a phone's word
        ("Text me at 0161 496 0032 when you land", "0161 496 0032"),
        ("contact id=8841 name=x phone=+27 82 553 0917", "+27 82 553 0917"),
        ("callback for ticket SUP-9912: +91 81234 33269", "+91 81234 33269"),
        ("his number is 617.555.0159", "617.555.0159"),
    ],
)
def test_phone_numbers_beside_ids_are_still_found(text: str, phone: str) -> None:
    assert ("PHONE_NUMBER", phone) in scanned(text), text


def test_ssns_with_an_area_never_issued_are_not_ssns() -> None:
    assert scanned("ssn-check: value 987-65-4321 rejected (area 9xx not issued)") == []
    assert scanned('INVALID_SSNS = ["000-12-3456", "900-45-6789", "123-00-4567", "666-12-3456"]') == []
    assert scanned("my ssn is 900454399") == []
    assert scanned("ssn 536-90-4399, the old one 899-01-2345") == [("US_SSN", "536-90-4399"), ("US_SSN", "899-01-2345")]


def test_an_iban_with_digits_where_its_country_writes_letters_is_found_by_its_checksum() -> None:
    text = '{"beneficiary":"x","iban":"RO26 3167 2317 6560 8350 4329","reason":"account_closed"}'
    assert scanned(text) == [("IBAN_CODE", "RO26 3167 2317 6560 8350 4329")]
    assert scanned("iban RO27 3167 2317 6560 8350 4329") == []  # the checksum wrong
    assert scanned("iban RO26 3167 2317 6560 8350 432") == []  # a digit short of Romania's length


@pytest.mark.parametrize(
    ("address", "role"),
    [
        ("svc-importer@example.com", True),
        ("etl-loader@acme.io", True),
        ("latam-oncall@example.com", True),
        ("anz-support@acme.io", True),
        ("dependabot@acme.io", True),
        ("12345+octocat@users.noreply.github.com", True),
        ("talbot@acme.io", False),
        ("jane.doe@acme.io", False),
        ("latam.maria@acme.io", False),
    ],
)
def test_service_accounts_rotas_bots_and_no_reply_hosts_are_role_mailboxes(address: str, role: bool) -> None:
    assert is_role(address) is role


@pytest.mark.parametrize(
    "text",
    [
        "# Ampere vs Ada: bf16 is fine on both, fp8 only on Ada Lovelace and later",
        '{"device":"cuda:0","arch":"Ada Lovelace","vram_gb":24}',
        "Known issue: Grace Hopper (GH200) nodes report 480 GB of LPDDR5X as system memory",
        "16x L40S for the batch: Ada Lovelace is enough, no need for Hopper.",
        "Ollama on the Jetson Orin runs phi3 mini on the GPU at 18 tok/s",
        "I'm renaming the `jackson` Helm release, new folks keep asking who Jackson is",
        "// Marlowe is the internal name of the routing service, not a person",
        "the Helm upgrade for Loki is stuck on a PVC resize",
        "The Helm chart for Athena was forked last spring.",
        'Our GPU cluster is called "Curie" and it is always full.',
        "Rust's mascot Ferris was drawn on the whiteboard.",
    ],
)
def test_systems_named_after_people_are_not_people(text: str) -> None:
    assert [f for f in found(text) if f[0] == "PERSON"] == [], text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Ada Lovelace wrote the first program.", [("PERSON", "Ada Lovelace")]),  # no GPU's word: the person
        ("I made a dashboard for Priya yesterday", [("PERSON", "Priya")]),
        ('posted "Jamal Robinson 579-32-9042" in #hr-ops', [("PERSON", "Jamal Robinson")]),  # an SSN is no version
        ("Example: Michael Okafor 773-65-1463 got the wrong form", [("PERSON", "Michael Okafor")]),
        ("Refund for Luca Frei (Basel): approved", [("PERSON", "Luca Frei"), ("LOCATION", "Basel")]),
        (
            'row: "Robert Alvarez, Austin TX"',
            [("PERSON", "Robert Alvarez"), ("LOCATION", "Austin"), ("LOCATION", "TX")],
        ),
        ("# TODO(Fatima): drop this shim", [("PERSON", "Fatima")]),  # no name before the bracket
        ("The bakery on Rue Saint-Denis closed.", [("LOCATION", "Rue Saint-Denis")]),
        ("Frank explained why he left Cleveland.", [("PERSON", "Frank"), ("LOCATION", "Cleveland")]),
        ("She complains about Madrid's heat.", [("LOCATION", "Madrid")]),
        ("Our GPU cluster in the Paris lab is full.", [("LOCATION", "Paris")]),
    ],
)
def test_people_and_places_beside_ids_and_systems_are_found(text: str, expected: list[tuple[str, str]]) -> None:
    assert found(text) == expected, text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Pilar spends her winters in Tenerife and her summers at home.",
            [("PERSON", "Pilar"), ("LOCATION", "Tenerife")],
        ),
        (
            "Chargeback: Ahmad Karimi disputes a charge made while he was travelling in Dubai",
            [("PERSON", "Ahmad Karimi"), ("LOCATION", "Dubai")],
        ),
    ],
)
def test_what_the_ner_model_reads_is_decided_by_the_place_and_label_cues(
    text: str, expected: list[tuple[str, str]]
) -> None:
    scanner = Scanner("ner", entities_of("ner"), 0.4, 0, names=Names(lexicons()))
    assert [(f.entity, text[f.start : f.end]) for f in scanner.analyze(text)] == expected, text


def test_names_in_cyrillic_are_read_in_latin_letters() -> None:
    text = "Incident INC-0777: Анна Кузнецова was on call; she escalated to Олександр Бондаренко at 03:10."
    assert found(text) == [("PERSON", "Анна Кузнецова"), ("PERSON", "Олександр Бондаренко")]
    assert fold("Олександр") == "oleksandr"
    assert fold("Kraków") == "krakow"


def test_a_phone_number_grouped_by_unicode_dashes_or_spaces_is_still_one() -> None:
    assert scanned("call 212\u2013555\u20130147 now") == [("PHONE_NUMBER", "212\u2013555\u20130147")]
    assert scanned("call 212\u00a0555\u00a00147 now") == [("PHONE_NUMBER", "212\u00a0555\u00a00147")]


def test_an_imei_is_no_card_though_it_passes_luhn_and_cards_of_every_network_are_still_found() -> None:
    # an IMEI is 15 digits and Luhn-valid by design; no Visa or JCB card is 15 digits long
    imeis = "IMEI 356938035643809, unit 490154203237518, lost device 35-209900-176148-1"
    assert [e for e, _ in scanned(imeis) if e == "CREDIT_CARD"] == []
    cards = "visa 4539 0690 0679 2185, mastercard 5412 8273 6401 7399, jcb 3541 8723 0961 4529, amex 3782 551903 46175"
    assert [v for e, v in scanned(cards) if e == "CREDIT_CARD"] == [
        "4539 0690 0679 2185", "5412 8273 6401 7399", "3541 8723 0961 4529", "3782 551903 46175",
    ]  # fmt: skip
