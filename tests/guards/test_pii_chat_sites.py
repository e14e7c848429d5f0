"""People as chat writes them, the places people work at, and a US town's state.

Read with the step's own name reader (the shipped lexicons, rules, vetter and language identifier's model).
"""

from __future__ import annotations

import pytest

from taskgate.guards.names import names_for
from taskgate.guards.pii_params import PiiParams


def read(text: str) -> list[tuple[str, str]]:
    names = names_for(PiiParams())
    assert names is not None
    return [(e, text[a:b]) for e, a, b in names.find(text)]


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
