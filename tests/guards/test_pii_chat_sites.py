"""People as chat writes them, the places people work at, and a US town's state.

Read with the step's own name reader (the shipped lexicons, rules, vetter and language identifier's model).
"""

from __future__ import annotations

import pytest

from taskgate.guards.findings import Finding
from taskgate.guards.names import names_for
from taskgate.guards.pii_params import PiiParams, Precision

from .test_pii_unusual_case import read


@pytest.mark.parametrize(
    ("text", "found"),
    [
        # a place people work at after a town's name, in capitals or not; another language's name of a city too
        ("Our Manisa cinema POS shows double charges since Friday", ("LOCATION", "Manisa")),
        ('"Hi, Roberto Esposito here from the Napoli warehouse. The chiller alarm keeps going off."',
         ("LOCATION", "Napoli")),
        ("nomvula sipho standup moved to 10, durban office has a power cut", ("LOCATION", "durban")),
        ("mitsuki said the fukuoka cinema feed is back", ("LOCATION", "fukuoka")),
        # chat's people: addressed with `ur`, one or the other, an introduction by name
        ("ngozi ur mic is on mute", ("PERSON", "ngozi")),
        ("can i get a review from mehdi or parisa, its the farsi locale fix", ("PERSON", "parisa")),
        ("bounced, can billing retry? her name's yuna, she's booked for thurs", ("PERSON", "yuna")),
        ('user message: "hi its deepika again, we are 6 people"', ("PERSON", "deepika")),
        # a town's state, a place of its own
        ("She works at the Tulsa, OK warehouse.", ("LOCATION", "OK")),
        ("Shipped from Dublin to Boston, MA", ("LOCATION", "MA")),
    ],
)  # fmt: skip
def test_sites_chats_people_and_a_towns_state_are_read(text: str, found: tuple[str, str]) -> None:
    assert found in read(text)


@pytest.mark.parametrize(
    "text",
    [
        "the staging cluster in the frankfurt plant is down",  # where a system runs
        "the Napoli cluster is down",
        "why does Sakura show up on a line she says she never touched",  # `show up`: no show
        "tea or coffee, either works; use redis or kafka for that",
        "press the OK button in the dialog",
    ],
)
def test_what_only_looks_like_a_site_a_pair_or_a_state_is_no_place_and_no_one(text: str) -> None:
    found = read(text)
    assert [v for e, v in found if e == "LOCATION"] == []
    assert not any(v in ("tea", "coffee", "redis", "kafka") for _, v in found)


# a review of the stop's readers: what they first read wrong
@pytest.mark.parametrize(
    "text",
    [
        "I spoke with the Meta team about the API. Our Athena office is closed on Friday.",
        "we moved auth to ms entra last month; the dr rto is four hours; check the mr desc",
        "Koreans on call, see runbook. See notes on Italians and Russians.",
        "ping triton before you deploy, thanks argus for the alert, kron will run at midnight",
        "I'm in Tokyo, OK? Call me later. Flights from Lisbon IN the morning. Berlin, ME TOO",
    ],
)
def test_the_reviews_false_findings_are_no_one_and_no_place(text: str) -> None:
    found = read(text)
    assert [v for e, v in found if e == "PERSON"] == []
    assert [v for e, v in found if e == "LOCATION" and v not in ("Tokyo", "Lisbon", "Berlin")] == []


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("She volunteers at Leeds Central Library every Saturday.", ("LOCATION", "Leeds")),
        ("agnieszka ooo today, ping me instead", ("PERSON", "agnieszka")),  # Polish to the identifier by the name
    ],
)
def test_the_reviews_lost_people_and_places_are_found_again(text: str, found: tuple[str, str]) -> None:
    assert found in read(text)


def test_a_surname_with_st_is_no_saints_name_to_the_rules() -> None:
    names = names_for(PiiParams(vetter=False))
    assert names is not None
    text = "Our CFO, Marc St. Pierre, approved it."
    assert ("PERSON", "Pierre") in [(e, text[a:b]) for e, a, b in names.find(text)]


def test_a_person_beside_an_example_address_in_prose_is_still_someone() -> None:
    params = PiiParams()
    names = names_for(params)
    assert names is not None
    precision = Precision(params, names.mailbox_part)
    text = "My sister Priya Raman (priya.raman@example.com for now) lives in Tulsa."
    spans = names.find(text)
    kept = precision.kept(text, [Finding(e, a, b, 0.85) for e, a, b in spans])
    assert "Priya Raman" in [text[f.start : f.end] for f in kept]
    record = '[{"name": "Camille Martin", "city": "Nancy", "email": "camille.martin@example.com"}]'
    spans = names.find(record)
    assert precision.kept(record, [Finding(e, a, b, 0.85) for e, a, b in spans]) == ()  # a fixture's row
