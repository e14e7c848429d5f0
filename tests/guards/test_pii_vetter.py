"""The name vetter: a second look that drops names the rules took from systems, and keeps people's.

Its sentences were written for these tests, apart from the sets it was fitted on (bench/pii_vetter.py): the
services and personas in them are words those sets do not use as systems. The vetter is a statistical second
look, not a rule: on text no one has seen it drops some such names and keeps others (bench/pii_vetter.py
measures how many, set by set); these tests pin what it does on a few sentences, and that it can be moved or
turned off. Read with the step's
own name reader (the shipped lexicons and weights) and through the real proxy under the example config's
guards.pii params, in front of a real upstream that records what it was sent.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from taskgate.guards.lexicons import lexicons
from taskgate.guards.names import Names, names_for
from taskgate.guards.pii_params import PiiParams
from taskgate.guards.vetting import FEATURES_VERSION, WEIGHTS, Vetter, VetterError

from .conftest import Scripted, pii_config
from .test_pii_names import example_params, user

BENCH = Path(__file__).resolve().parents[2] / "bench" / "pii_vetter.py"


def read(text: str, vetter: Vetter | None) -> list[tuple[str, str]]:
    return [(e, text[a:b]) for e, a, b in Names(lexicons(), vetter).find(text)]


SYSTEMS = [
    ("Juno is the job queue, Selene is search, and Nyx moves events between them.", ("PERSON", "Selene")),
    ("Orion schedules the batch jobs and Vega stores the metrics.", ("PERSON", "Orion")),
    ("We named the GPU nodes Ada, Grace and Hedy after famous engineers.", ("PERSON", "Hedy")),
]  # fmt: skip


@pytest.mark.parametrize(("text", "taken"), SYSTEMS)
def test_a_system_the_rules_take_for_a_person_is_dropped_by_the_vetter(text: str, taken: tuple[str, str]) -> None:
    assert taken in read(text, None)  # the rules alone take it
    assert read(text, Vetter.load()) == []


PEOPLE = [
    ("Tatiana Petrova asked whether the Selene dashboards can show per-tenant latency.",
     [("PERSON", "Tatiana Petrova")]),
    ("Kwame Mensah moved to Accra last spring and now leads the payments team.",
     [("PERSON", "Kwame Mensah"), ("LOCATION", "Accra")]),
    ("Hi Selene, your payslip for June is attached; reply if anything is off.", [("PERSON", "Selene")]),
    ("Thanks Priya, the Cassius rollout looks fine now.", [("PERSON", "Priya")]),
    ("ping Daniel about the Hermes flag before the freeze", [("PERSON", "Daniel")]),
    # what is said to or of a person, and full names, are not second-guessed
    ('{"name": "Ruby Chen", "plan": "pro", "region": "us-east-1"}', [("PERSON", "Ruby Chen")]),
    ("INSERT INTO users (id, name, email) VALUES (42, 'Grace Kim', 'gk@corp.io');", [("PERSON", "Grace Kim")]),
    ("Call John tomorrow about the lease.", [("PERSON", "John")]),
    ("Thanks Austin for the fix!", [("PERSON", "Austin")]),
    ("The Kafka consumer lag alert fired; Mason is on call this week.", [("PERSON", "Mason")]),
]  # fmt: skip


@pytest.mark.parametrize(("text", "names"), PEOPLE)
def test_people_and_places_beside_systems_are_kept(text: str, names: list[tuple[str, str]]) -> None:
    assert read(text, Vetter.load()) == names


def test_the_threshold_is_the_operators_to_move() -> None:
    text = SYSTEMS[0][0]
    assert ("PERSON", "Selene") in read(text, Vetter.load(threshold=0.0))  # nothing scores under 0
    kept = names_for(PiiParams.model_validate({"vetter_threshold": 0.0}))
    assert kept is not None
    assert ("PERSON", "Selene") in [(e, text[a:b]) for e, a, b in kept.find(text)]
    off = names_for(PiiParams.model_validate({"vetter": False}))
    assert off is not None
    assert off.vetter is None
    with pytest.raises(ValidationError, match="vetter_threshold"):
        PiiParams.model_validate({"vetter_threshold": 1.5})


async def test_the_step_keeps_a_system_named_like_a_person_and_redacts_it_with_the_vetter_off(
    proxy: Any, scripted: tuple[Scripted, str]
) -> None:
    upstream, url = scripted
    text = SYSTEMS[0][0]
    for params, forwarded in (
        (example_params(), text),
        ({**example_params(), "vetter": False}, text.replace("Selene", "<PERSON>")),
    ):
        client = await proxy(pii_config(url, params))
        resp = await client.post("/v1/chat/completions", json=user(text))
        assert resp.status == 200, await resp.text()
        assert upstream.bodies[-1]["messages"][0]["content"] == forwarded


def test_the_shipped_weights_are_fitted_to_these_features_and_this_data(monkeypatch: pytest.MonkeyPatch) -> None:
    """Refit with `python bench/pii_vetter.py` when the features, the sets or the blind runs' names change."""
    spec = importlib.util.spec_from_file_location("pii_vetter", BENCH)
    assert spec is not None
    assert spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "pii_vetter", bench)
    spec.loader.exec_module(bench)
    shipped = json.loads(WEIGHTS.read_text(encoding="utf-8"))
    assert shipped["features_version"] == FEATURES_VERSION
    assert shipped["fitted_on"]["data_sha256"] == bench.data_digest()


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ('{"features_version": 0, "threshold": 0.8, "bias": 0, "weights": {}}', "features version 0"),
        ("{not json", "cannot read"),
        (f'{{"features_version": {FEATURES_VERSION}, "bias": 0, "weights": {{}}}}', "threshold"),
        (
            f'{{"features_version": {FEATURES_VERSION}, "threshold": {{"PERSON": 0.8}}, "bias": 0, "weights": {{}}}}',
            "a threshold for each",
        ),
    ],
)
def test_weights_that_do_not_fit_are_refused_with_the_file_and_the_reason(
    tmp_path: Path, content: str, reason: str
) -> None:
    path = tmp_path / "vetter.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(VetterError, match=reason) as caught:
        Vetter.load(path)
    assert str(path) in str(caught.value)
