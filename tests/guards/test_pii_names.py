"""Names in technical text: products, tools and identifiers pass; people and places in the same text do not.

Through the real proxy, under the example config's guards.pii params (examples/taskgate.yaml), in front of a
real upstream that records what it was sent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from taskgate.guards.lexicons import lexicons
from taskgate.guards.names import Names
from taskgate.guards.presidio import entities_of
from taskgate.guards.scan import Scanner

from .conftest import Scripted, pii_config

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "taskgate.yaml"


def example_params() -> dict[str, Any]:
    steps = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))["steps"]
    params: dict[str, Any] = next(s for s in steps if s["type"] == "guards.pii")["params"]
    return params


def user(text: str) -> dict[str, Any]:
    return {"model": "m", "messages": [{"role": "user", "content": text}]}


async def forwarded_under_example(proxy: Any, scripted: tuple[Scripted, str], text: str) -> str:
    """What the engine receives of a user's `text`, through the proxy under the example config's PII params."""
    upstream, url = scripted
    client = await proxy(pii_config(url, example_params()))
    resp = await client.post("/v1/chat/completions", json=user(text))
    assert resp.status == 200, await resp.text()
    content: str = upstream.bodies[-1]["messages"][0]["content"]
    return content


def scanned(text: str) -> list[tuple[str, str]]:
    """The patterns backend's findings in `text`, as (type, the text found)."""
    scanner = Scanner("patterns", entities_of("patterns"), 0.4, 0)
    return [(f.entity, text[f.start : f.end]) for f in scanner.analyze(text)]


CLEAN = [
    "We run Grafana and Django on the replica cluster; metric memory metric.",
    "Bump Grafana to 11.1 and restart Kafka; the Cassandra compaction window is at 02:00.",
    "Jenkins keeps queueing the arm64 jobs, and Hugo rebuilds the docs site on every push.",
    "Call query_db(tenant) first, then send_email(to=owner) with the report.",
    "The agent used the tools query_db and send_email, then lookup_customer and Search_Index.",
    "Convert the Parquet files to Avro before the Flink job reads them.",
    "Ask Claude to summarise the Prometheus alert, then paste it into the Jira ticket.",
    "Restart Traefik and Keycloak in eu-west-1; the Frankfurt region is unaffected.",
]


@pytest.mark.parametrize("text", CLEAN)
async def test_technical_sentences_pass_unredacted_under_the_example_config(
    proxy: Any, scripted: tuple[Scripted, str], text: str
) -> None:
    assert await forwarded_under_example(proxy, scripted, text) == text


NAMED = [
    (
        "We run Grafana and Django on the replica cluster; Priya Raman owns it, metric memory metric.",
        "We run Grafana and Django on the replica cluster; <PERSON> owns it, metric memory metric.",
    ),
    (
        "Thanks Kavya! Bump Kafka to 3.7 and ask Dmitri whether the Prometheus change went out.",
        "Thanks <PERSON>! Bump Kafka to 3.7 and ask <PERSON> whether the Prometheus change went out.",
    ),
    (
        "Sarah Jenkins approved the Jenkins plugin bump; Oluwaseun said query_db is safe now.",
        "<PERSON> approved the Jenkins plugin bump; <PERSON> said query_db is safe now.",
    ),
    (
        "Jake and Emily moved the Cassandra keyspaces before flying to Lisbon.",
        "<PERSON> and <PERSON> moved the Cassandra keyspaces before flying to Lisbon.",
    ),
]


@pytest.mark.parametrize(("sent", "forwarded"), NAMED)
async def test_names_in_the_same_technical_sentences_are_still_redacted(
    proxy: Any, scripted: tuple[Scripted, str], sent: str, forwarded: str
) -> None:
    assert await forwarded_under_example(proxy, scripted, sent) == forwarded


TOOLS = ["query_db", "send_email", "Query_Db", "sendEmail", "lookup_customer", "Send_Email", "get_user_by_name"]


@pytest.mark.parametrize("tool", TOOLS)
def test_a_tool_or_function_name_is_never_a_person(tool: str) -> None:
    names = Names(lexicons())
    for text in (
        f"{tool}",
        f"Thanks {tool}!",
        f"{tool} said the table is empty.",
        f"call {tool}(user_id) and ask {tool} again",
        f"Ask `{tool}` for the rows; {tool}() returned nothing.",
    ):
        assert names.find(text) == [], text


def test_a_name_that_is_also_a_product_is_a_person_only_next_to_a_cue() -> None:
    names = Names(lexicons())
    assert names.find("the Cassandra cluster is slow since the Cassandra upgrade") == []
    text = "Thanks Cassandra, she fixed the compaction"
    assert [(e, text[a:b]) for e, a, b in names.find(text)] == [("PERSON", "Cassandra")]
    # one sense per text: named as a system in it, the word is not a person elsewhere in the same text
    assert names.find("Rocky 9 or Alma 9? I'd go Alma because of the ARM images") == []


def test_a_place_that_is_part_of_a_region_or_a_product_is_not_a_location() -> None:
    names = Names(lexicons())
    assert names.find("Move the replicas to the Frankfurt region and the EPYC Milan hosts.") == []
    text = "Ravi flew from Hamburg to Milan on Tuesday."
    assert [(e, text[a:b]) for e, a, b in names.find(text)] == [
        ("PERSON", "Ravi"), ("LOCATION", "Hamburg"), ("LOCATION", "Milan"),
    ]  # fmt: skip
