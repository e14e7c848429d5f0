"""Third round of names in technical text: places that are where a system runs, products the wider lexicons know,
and people the wider given-name lexicon, fields, accents and hyphens reveal.

The name reader is the step's own (guards/names.py) over the shipped lexicons; the last test goes through the real
proxy under the example config's params, in front of a real upstream that records what it was sent.
"""

from __future__ import annotations

from typing import Any

import pytest

from taskgate.guards.lexicons import lexicons
from taskgate.guards.names import Names
from taskgate.guards.scan import Scanner

from .conftest import Scripted, pii_config
from .test_pii_names import example_params, user


def found(text: str) -> list[tuple[str, str]]:
    """Names as the step finds them: lexicons and cues, and the NER model for what they leave open."""
    scanner = Scanner("ner", ["PERSON", "LOCATION"], 0.4, 0, names=Names(lexicons()))
    return [(f.entity, text[f.start : f.end]) for f in scanner.analyze(text)]


HOSTED = [
    "Compaction keeps falling behind on the Lisbon ring since Tuesday.",
    "The Denver account still has the old IAM role attached.",
    "Handshakes fail on the Warsaw edge PoP after the cert rotation.",
    "Is the Toronto DR site on the new image yet?",
    "Prometheus in Seoul scrapes every 15 s, the others every 30 s.",
    "Roll the canary namespace in Oregon back to 1.21.",
    "The quarterly patch in Amsterdam (westeurope) starts at 02:00 UTC.",
    "The panel shows no data for Melbourne since the exporter upgrade.",
    "Keep the Milan and Rome EPYC boxes, retire the Naples ones.",
]


@pytest.mark.parametrize("text", HOSTED)
def test_a_place_named_where_a_system_runs_is_not_a_location(text: str) -> None:
    assert [f for f in found(text) if f[0] == "LOCATION"] == []


PLACED = [
    ("Ngozi flew to Accra for the offsite and is back on Tuesday.", "Accra"),
    ("Abebe set it up on his ThinkPad in Gondar last night.", "Gondar"),
    ("Ibrahim says the traffic in Lagos is why he works from home.", "Lagos"),
    ("I'm in Porto this week, so expect slow replies on the Kafka thread.", "Porto"),
]


@pytest.mark.parametrize(("text", "place"), PLACED)
def test_a_place_a_person_is_in_is_still_a_location_beside_systems(text: str, place: str) -> None:
    assert ("LOCATION", place) in found(text)


@pytest.mark.parametrize(
    "text",
    [
        "Patroni says the leader is pg-2, but the proxy still routes writes to pg-1.",
        "Does Zipkin still work with the new collector?",
        "Amazon wants a privacy policy URL before the certification.",
        "Ada's compiler rejects the generated bindings.",
        "The Lisbon PoP has the lowest latency from the probes.",
        "Travis CI is finally gone from every repository.",
    ],
)
def test_products_from_the_wider_lexicons_and_a_systems_possessive_are_not_people(text: str) -> None:
    assert [f for f in found(text) if f[0] == "PERSON"] == []


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("Temitope is out today, so Kwabena will review the Helm chart.", ["Temitope", "Kwabena"]),
        ("Oluwaseyi traced the 502s to an idle timeout on the proxy.", ["Oluwaseyi"]),
        ("Ji-hoon found it: the retry policy retried POSTs.", ["Ji-hoon"]),
        ("Deepa runs the pharmacy in Pune and sings in a choir.", ["Deepa"]),
        ("Send the rollout notes to Lucía before noon.", ["Lucía"]),
        ('git commit --author="Thandeka Mthembu <thandeka@example.org>" -m "fix: retry"', ["Thandeka Mthembu"]),
        ("owner: Rangi Walker", ["Rangi Walker"]),
        ('customer = Customer(first_name="Adaeze", last_name="Okonkwo")', ["Adaeze", "Okonkwo"]),
        ("git blame: 1a2b3c4d (José Álvarez 2024-02-01 10:00:00 +0100 12) retries = 5", ["José Álvarez"]),
        ("The Istio upgrade: Zoë does the control plane, Amara the gateways.", ["Zoë", "Amara"]),
    ],
)
def test_people_the_wider_lexicons_fields_accents_and_hyphens_reveal_are_people(text: str, names: list[str]) -> None:
    assert [v for e, v in found(text) if e == "PERSON"] == names


def test_the_package_lexicon_holds_no_given_name_and_the_given_names_reach_beyond_us_and_europe() -> None:
    lex = lexicons()
    assert {"patroni", "zipkin"} <= lex.packages
    assert not lex.packages & {"luigi", "grace", "maxwell", "ray"}
    for name in ("olumide", "chidinma", "nokuthula", "yaw"):
        assert 0 < lex.given_rank[name] <= 1000, name


async def test_a_log_line_naming_a_region_by_its_city_passes_unredacted_and_a_person_beside_it_does_not(
    proxy: Any, scripted: tuple[Scripted, str]
) -> None:
    upstream, url = scripted
    client = await proxy(pii_config(url, example_params()))
    clean = "2025-03-03 10:00:00 INFO classifier deployed to the Sydney edge with 3 replicas; Patroni says ok"
    assert (await client.post("/v1/chat/completions", json=user(clean))).status == 200
    assert upstream.bodies[-1]["messages"][0]["content"] == clean
    named = "Temitope deployed the classifier to the Sydney edge; Patroni says ok"
    assert (await client.post("/v1/chat/completions", json=user(named))).status == 200
    assert (
        upstream.bodies[-1]["messages"][0]["content"]
        == "<PERSON> deployed the classifier to the Sydney edge; Patroni says ok"
    )
