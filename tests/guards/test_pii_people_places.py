"""Places people are in against places systems run in; products described as such; numbers of log lines.

The first tests go through the real proxy under the example config's guards.pii params (examples/taskgate.yaml),
in front of a real upstream that records what it was sent; the rest read text with the step's own scanner and name
reader (real presidio, the real NER model, the shipped lexicons).
"""

from __future__ import annotations

from typing import Any

import pytest

from taskgate.guards.lexicons import lexicons
from taskgate.guards.names import Names
from taskgate.guards.scan import Scanner

from .conftest import Scripted
from .test_pii_names import forwarded_under_example, scanned

CLEAN = [
    "Watson (the legacy IBM chatbot integration) was switched off in the help widget today.",
    'the "Marvin" Slack bot posts every deploy summary twice since the webhook came back',
    "Jasper Reports 6.20 renders the template, but the export throws a font error.",
    "Ollie the Slackbot reminds everyone about the retro; Hector, the old billing service, still runs on Java 8.",
    "the Darwin kernel caps open files at 256, and the Ruby and Julia bindings need the limit raised",
    "Atlas search indexes rebuild after every Mongo upgrade; the Tesla T4 and Grace Hopper GH200 nodes idle.",
    '{"level":"warn","ts":1719000123.52,"msg":"lease renewal slow"}',
    "[GC (Allocation Failure) 812344K->90211K(1048576K), 0.3141590 secs]",
    "audit(1719001234.456:77): apparmor=DENIED operation=open",
    "escalate_to: platform-leads@kestrel.example.io  # the on-call group, not a person",
    "Quinn is the QA bot that comments on every PR; Marcus, the reconciliation cron, runs at 02:00 UTC.",
]


@pytest.mark.parametrize("text", CLEAN)
async def test_technical_sentences_with_products_described_and_log_numbers_pass_unredacted(
    proxy: Any, scripted: tuple[Scripted, str], text: str
) -> None:
    assert await forwarded_under_example(proxy, scripted, text) == text


NAMED = [
    (
        "Watson (the legacy IBM chatbot integration) was switched off by Priya Raman today.",
        "Watson (the legacy IBM chatbot integration) was switched off by <PERSON> today.",
    ),
    (
        "Hector, the old billing service, pages Olumide Adeyemi at 3am; call him on +44 7911 123456.",
        "Hector, the old billing service, pages <PERSON> at 3am; call him on " + "*" * 15 + ".",
    ),
    (
        'emp = Employee(first="Rosalía", last="Quintanilla", ts=1719000123)',
        'emp = Employee(first="<PERSON>", last="<PERSON>", ts=1719000123)',
    ),
    (
        "reviewers:\n  storage: [Adaeze Okonkwo, Tomasz Wróbel]\n  escalation: infra-leads@oxbow.example.dev",
        "reviewers:\n  storage: [<PERSON>, <PERSON>]\n  escalation: infra-leads@oxbow.example.dev",
    ),
]


@pytest.mark.parametrize(("sent", "forwarded"), NAMED)
async def test_people_beside_products_described_and_role_mailboxes_are_still_redacted(
    proxy: Any, scripted: tuple[Scripted, str], sent: str, forwarded: str
) -> None:
    assert await forwarded_under_example(proxy, scripted, sent) == forwarded


def named(text: str) -> list[tuple[str, str]]:
    scanner = Scanner("ner", ["PERSON", "LOCATION"], 0.4, 0, names=Names(lexicons()))
    return [(f.entity, text[f.start : f.end]) for f in scanner.analyze(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Signe kayaked from Finnsnes to Husøy in a gale.",
            [("PERSON", "Signe"), ("LOCATION", "Finnsnes"), ("LOCATION", "Husøy")],
        ),
        (
            "Tavita sailed from Apia to Savai'i with her cousins.",
            [("PERSON", "Tavita"), ("LOCATION", "Apia"), ("LOCATION", "Savai'i")],
        ),
        ("Sarah swam across Lake Taupō for the hospice.", [("PERSON", "Sarah"), ("LOCATION", "Lake Taupō")]),
        ("We stayed on Magnetic Island for a week.", [("LOCATION", "Magnetic Island")]),
        ("Hamid walked the length of the Wakhan corridor along the Panj river.", [("PERSON", "Hamid")]),
        ("The whole village of Kinsale came to the launch.", [("LOCATION", "Kinsale")]),
    ],
)
def test_places_people_travel_to_or_name_by_a_geographic_word_are_locations(
    text: str, expected: list[tuple[str, str]]
) -> None:
    got = named(text)
    assert [f for f in got if f in expected] == expected, got


def test_a_place_people_work_in_stays_a_location_in_text_about_systems() -> None:
    text = "the VPN in the Galway office drops every hour; traceroute shows 90 ms inside eu-west-1"
    assert named(text) == [("LOCATION", "Galway")]
    # where a system runs is still no one's place
    assert named("the Galway replica lags 90 ms behind eu-west-1") == []


def test_a_surname_that_is_a_geographic_word_stays_a_persons() -> None:
    assert named("Ji-hoon Park can't log in to Grafana since the realm rename") == [("PERSON", "Ji-hoon Park")]
    assert named("the 1099 for contractor Lucinda Marsh was generated twice") == [("PERSON", "Lucinda Marsh")]


def test_titles_fields_and_social_words_make_people_of_places_and_words() -> None:
    assert named("Dear Dr. Pereira, your refund went out.") == [("PERSON", "Pereira")]
    assert named("Dear Auntie Comfort, thank you for the cloth.") == [("PERSON", "Comfort")]
    assert named("Camille is in Bordeaux; her brother Julien builds violins.") == [
        ("PERSON", "Camille"), ("LOCATION", "Bordeaux"), ("PERSON", "Julien"),
    ]  # fmt: skip
    assert named("a tiny place run by a man called Milan") == [("PERSON", "Milan")]


def test_a_month_after_a_journey_and_a_pronoun_are_never_names() -> None:
    text = "She is relocating to Accra in July, so Kwame needs a second key holder."
    assert named(text) == [("LOCATION", "Accra"), ("PERSON", "Kwame")]


@pytest.mark.parametrize(
    "text",
    [
        '{"ts":1719000123.52,"msg":"slow"}',
        "pause 0.3141590 secs",
        "audit(1719001234.456:77)",
        "created_at: 1719000123",
        "exp=1719000123",
    ],
)
def test_numbers_of_log_lines_are_not_phone_numbers(text: str) -> None:
    assert [f for f in scanned(text) if f[0] == "PHONE_NUMBER"] == [], text


def test_numbers_written_as_phone_numbers_are_still_phone_numbers() -> None:
    text = "call 617.555.0159, +1 (312) 847-2290, 0161 496 0032 or 4155550123; reach me at: 4155550124"
    assert [v for e, v in scanned(text) if e == "PHONE_NUMBER"] == [
        "617.555.0159", "+1 (312) 847-2290", "0161 496 0032", "4155550123", "4155550124",
    ]  # fmt: skip


def test_an_iban_in_capitals_before_a_word_is_found_and_one_in_lower_case_still_is() -> None:
    assert scanned("refund to SA4420000001234567891234 only in staging") == [("IBAN_CODE", "SA4420000001234567891234")]
    assert scanned("IBAN RO49 AAAA 1B31 0075 9384 0000 flagged as foreign") == [
        ("IBAN_CODE", "RO49 AAAA 1B31 0075 9384 0000")
    ]
    assert scanned("iban gb82west12345698765432 please") == [("IBAN_CODE", "gb82west12345698765432")]


@pytest.mark.parametrize("tool", ["ask_alexa", "watson_client", "Jasper.render", "render_jasper", "callMarvin"])
def test_a_function_named_after_a_product_or_a_person_is_never_a_person(tool: str) -> None:
    for text in (f"call {tool}(doc) first", f"{tool}() returned nothing; ask {tool} again", f"`{tool}` is slow"):
        assert named(text) == [], text
