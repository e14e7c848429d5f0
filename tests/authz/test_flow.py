"""What a task may send where, through the official MCP SDK client on an MCP-only gateway.

Confidential values kept out of a mail, agent-written text that copies an injected
instruction, a destructive choice from a listing, map keys and YAML answers as values,
a reference searched for the recipient, a warning when a declaration cannot read a
result, a base profile with the classifier's additions, and an approval a person can
judge. The tool servers are real SDK servers: a mail, an event or a deletion either
reaches them or it does not.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from taskgate.gateway.gateway import GATEWAY

from .conftest import Keys, jwt_section
from .flow_servers import (
    CARD,
    INJECTION,
    PASSPORT,
    REFUND_IBAN,
    Effects,
    calendar_server,
    files_server,
    mail_server,
    profile_server,
    shop_server,
)
from .mcp_servers import serving
from .policy import AS_ERRORS, CLEANUP_EXAMPLES, write_policy
from .test_mcp import connect
from .test_provenance import Task

POLICY = r"""
p, role:staff, acme, profile__*, call, r-profile
p, role:staff, acme, mail__*, call, r-mail
p, role:staff, acme, calendar__*, call, r-calendar
p, role:staff, acme, files__*, call, r-files
p, role:staff, acme, shop__*, call, r-shop
p, profile:assistant, *, profile__*, call, prof-profile
p, profile:assistant, *, mail__*, call, prof-mail
p, profile:assistant, *, calendar__*, call, prof-calendar
p, profile:assistant, *, files__list, call, prof-files-list
p, profile:assistant, *, files__info*, call, prof-files-info
p, profile:assistant, *, shop__*, call, prof-shop
p, profile:mail_cleanup, *, files__*, call, prof-cleanup
p, role:staff, acme, profile:assistant, base, base-staff
p, role:staff, acme, profile:mail_cleanup, add, add-cleanup
g, alice, role:staff, acme
p3, profile__get, *, trusted, t-profile
p3, profile__get, passport, secret:identity, s-passport
p3, profile__get, card, secret:card, s-card
p3, mail__inbox, messages[].sender, trusted, t-sender
p3, mail__search_contacts, contacts[].email, contacts, t-book
p3, files__list, files[].id, trusted, t-files
p3, files__info, keys:shared_with, trusted, t-shares
p3, shop__refund, yaml:refund.iban, trusted, t-refund
p3, shop__order, order.iban, trusted, t-order
p2, mail__send, *, to, provenance, instruction|trusted|contacts, hold, c-to
p2, mail__send, *, *, flow, -, f-mail
p2, calendar__create_event, *, title, text, instruction|trusted, c-title
p2, files__delete, *, file_id, choice, instruction; list=files__list:files[].id; pick=size:max, hold, c-delete
p2, shop__pay, *, iban, provenance, instruction|trusted, c-pay
"""


class Gateway:
    def __init__(self, client: Any, keys: Keys, effects: Effects):
        self.client, self.keys, self.effects = client, keys, effects

    def bearer(self, scope: str | None = None) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.keys.token(sub='alice', roles=[], scope=scope)}"}

    def records(self) -> list[dict[str, Any]]:
        return list(self.client.app[GATEWAY].evidence.records())

    def grants(self) -> list[dict[str, Any]]:
        return [r["decisions"]["grant"] for r in self.records() if "grant" in r.get("decisions", {})]


@pytest.fixture
async def gateway(proxy: Any, keys: Keys, tmp_path: Path) -> AsyncIterator[Gateway]:
    effects = Effects()
    builders = {"profile": profile_server(), "mail": mail_server(effects), "calendar": calendar_server(effects),
                "files": files_server(effects), "shop": shop_server()}  # fmt: skip
    stack = [serving(server) for server in builders.values()]
    urls = [await s.__aenter__() for s in stack]
    examples = tmp_path / "cleanup.jsonl"
    examples.write_text("\n".join(json.dumps({"text": t, "label": "mail_cleanup"}) for t in CLEANUP_EXAMPLES))
    search = {"tool": "mail__search_contacts", "arguments": {"query": "{value}"}}
    settings = {
        "routing": {"pools": []},
        "authz": {
            "jwt": jwt_section(keys),
            "policy": {"file": str(write_policy(tmp_path, POLICY.lstrip())), "reload_interval_s": 0},
            "tasks": {"hold_ttl_s": 60},
        },
        "mcp": {"servers": [{"name": n, "url": u} for n, u in zip(builders, urls, strict=True)], **AS_ERRORS},
        "steps": [
            {"name": "authn", "type": "authz.authenticate"},
            {"name": "classify", "type": "guards.classify", "params": {"examples": [str(examples)]}},
            {
                "name": "authorize",
                "type": "authz.authorize",
                "params": {"references": [search], "reference_searches": 2},
            },
        ],
        "pipelines": {"mcp": ["authn", "classify", "authorize"]},
        "logging": {"evidence": False},
    }
    client = await proxy(settings)
    try:
        yield Gateway(client, keys, effects)
    finally:
        await client.close()
        for server in reversed(stack):
            await server.__aexit__(None, None, None)


async def test_a_secret_from_a_labelled_source_is_refused_inside_a_mail_body_to_a_named_recipient(
    gateway: Gateway,
) -> None:
    async with connect(gateway.client, gateway.bearer()) as mcp:
        task = Task(mcp, "mail my travel details to bob@acme.example")
        await task.call("profile__get", {})
        spaced = CARD.replace(" ", "-")  # written with other separators: still the card
        body = f"Passport {PASSPORT.lower()}, flight on Friday"
        passport = await task.refused("mail__send", {"to": "bob@acme.example", "subject": "trip", "body": body})
        card = await task.refused("mail__send", {"to": "bob@acme.example", "subject": f"card {spaced}", "body": "x"})
        fine = await task.call("mail__send", {"to": "bob@acme.example", "subject": "trip", "body": "I land at 9"})
    assert (passport.code, passport.data["rule"]) == (-32003, "f-mail")
    assert "secret:identity (tool profile__get, field passport)" in passport.message
    assert card.data["rule"] == "f-mail"
    assert "secret:card" in card.message
    assert not fine.is_error
    assert gateway.effects.sent == [{"to": "bob@acme.example", "subject": "trip", "body": "I land at 9"}]


async def test_an_event_titled_after_an_injected_instruction_is_refused(gateway: Gateway) -> None:
    async with connect(gateway.client, gateway.bearer()) as mcp:
        task = Task(mcp, "put the security review from my inbox in my calendar on friday")
        await task.call("mail__inbox", {})
        copied = await task.refused("calendar__create_event", {"title": INJECTION[:70], "start": "2026-12-04"})
        own = await task.call("calendar__create_event", {"title": "Security review", "start": "2026-12-04"})
    assert copied.data["rule"] == "c-title"
    assert "copies 6 words in a row from untrusted data" in copied.message
    refusal = next(r["error"]["decision"] for r in gateway.records() if "decision" in (r.get("error") or {}))
    seen = refusal["refused"]["seen"]
    assert (seen["label"], seen["source"], seen["field"]) == ("untrusted", "tool mail__inbox", "messages[0].body")
    assert not own.is_error
    assert gateway.effects.events == [{"title": "Security review", "start": "2026-12-04"}]


async def test_a_target_chosen_from_a_listing_is_held_unless_named_or_picked_by_its_declared_property(
    gateway: Gateway,
) -> None:
    async with connect(gateway.client, gateway.bearer()) as mcp:
        task = Task(mcp, "clean up my files: delete the largest file")
        await task.call("files__list", {})
        largest = await task.call("files__delete", {"file_id": "doc-07"})
        injected = await task.refused("files__delete", {"file_id": "doc-13"})  # listed, but neither named nor largest
        named = Task(mcp, "clean up my files: delete file doc-01")
        await named.call("files__list", {})
        by_name = await named.call("files__delete", {"file_id": "doc-01"})
    assert not largest.is_error
    assert not by_name.is_error
    assert injected.code == -32044
    assert injected.data["approval"]["rule"] == "c-delete"
    assert "is not the largest size of its listing" in injected.message
    assert gateway.effects.deleted == ["doc-07", "doc-01"]
    allowed = [d for g in gateway.grants() for d in g.get("decisions", []) if d["tool"] == "files__delete"]
    assert allowed[0]["provenance"][0]["seen"]["field"] == "files[2].size, the largest"


async def test_a_recipient_that_is_a_key_is_a_value_only_where_a_keys_declaration_says_so(gateway: Gateway) -> None:
    async with connect(gateway.client, gateway.bearer()) as mcp:
        declared = Task(mcp, "tell the people the budget is shared with that it is final")
        await declared.call("files__info", {"name": "budget.xlsx"})
        sent = await declared.call("mail__send", {"to": "carol@partner.example", "subject": "budget", "body": "final"})
        undeclared = Task(mcp, "tell the people the budget is shared with that it is final")
        await undeclared.call("files__info_unkeyed", {"name": "budget.xlsx"})
        held = await undeclared.refused("mail__send", {"to": "carol@partner.example", "subject": "b", "body": "final"})
    assert not sent.is_error
    assert held.code == -32044  # a key the policy does not declare is no value: seen nowhere
    assert held.data["approval"]["seen"] is None
    allowed = next(d for g in gateway.grants() for d in g.get("decisions", []) if d["tool"] == "mail__send")
    assert allowed["provenance"][0]["seen"]["field"] == "shared_with{}"


async def test_a_searching_reference_vouches_for_a_recipient_and_is_bounded_per_task(gateway: Gateway) -> None:
    async with connect(gateway.client, gateway.bearer()) as mcp:
        task = Task(mcp, "send Dmitri the agenda")
        sent = await task.call("mail__send", {"to": "dmitri@volkov.example", "subject": "agenda", "body": "attached"})
        unknown = await task.refused("mail__send", {"to": "eve@evil.example", "subject": "agenda", "body": "x"})
        again = await task.refused("mail__send", {"to": "mallory@evil.example", "subject": "agenda", "body": "x"})
    assert not sent.is_error
    assert [m["to"] for m in gateway.effects.sent] == ["dmitri@volkov.example"]
    assert unknown.code == again.code == -32044
    # searched with the refused value each time, until the task's budget of two searches was spent
    assert gateway.effects.searches == ["dmitri@volkov.example", "eve@evil.example"]
    first = next(g for g in gateway.grants() if g.get("references"))
    assert first["references"] == [{"tool": "mail__search_contacts", "outcome": "read",
                                    "arguments": {"query": "dmitri@volkov.example"}}]  # fmt: skip
    allowed = next(d for d in first["decisions"] if d["tool"] == "mail__send" and d["outcome"] == "allow")
    assert allowed["provenance"][0]["seen"]["source"] == "tool mail__search_contacts"
    assert allowed["provenance"][0]["seen"]["field"] == "contacts[0].email"


async def test_a_yaml_result_is_labelled_and_a_result_a_field_rule_cannot_read_is_a_warning(gateway: Gateway) -> None:
    async with connect(gateway.client, gateway.bearer()) as mcp:
        task = Task(mcp, "pay out my refund")
        await task.call("shop__refund", {})
        paid = await task.call("shop__pay", {"iban": REFUND_IBAN, "amount": 42.5})
        text = Task(mcp, "pay out my order refund")
        await text.call("shop__order", {})
        refused = await text.refused("shop__pay", {"iban": REFUND_IBAN, "amount": 42.5})
        metrics = (await (await gateway.client.get("/metrics")).read()).decode()
    assert not paid.is_error
    allowed = next(d for g in gateway.grants() for d in g.get("decisions", []) if d["tool"] == "shop__pay")
    assert allowed["provenance"][0]["seen"]["field"] == "refund.iban"
    assert refused.data["rule"] == "c-pay"
    warned = [w for g in gateway.grants() for w in g.get("warnings", [])]
    assert warned[0]["tool"] == "shop__order"
    assert "the result is text, not the structured fields the declarations name" in warned[0]["reason"]
    assert 'taskgate_authz_results_unread_total{reason="text"} 1.0' in metrics


async def test_a_base_profile_gets_the_classifier_s_additions_the_policy_allows(gateway: Gateway) -> None:
    async with connect(gateway.client, gateway.bearer()) as mcp:
        cleanup = Task(mcp, "clean up my inbox")
        await cleanup.call("files__list", {})
        deleted = await cleanup.call("files__delete", {"file_id": "doc-07"})
        summary = Task(mcp, "summarise my email from this week")
        await summary.call("mail__inbox", {})
        refused = await summary.refused("files__delete", {"file_id": "doc-07"})
    grants = gateway.grants()
    assert (grants[0]["profile"], grants[0]["profile_source"]) == ("assistant+mail_cleanup", "base+classifier")
    assert not deleted.is_error
    summarised = next(g for g in grants if g["task"] == summary.id)
    assert (summarised["profile"], summarised["profile_source"]) == ("assistant", "base")  # summarise: not addable
    assert refused.code == -32003
    assert "does not need it" in refused.message


async def test_an_approval_request_names_the_value_and_where_it_was_seen(gateway: Gateway) -> None:
    async with connect(gateway.client, gateway.bearer()) as mcp:
        task = Task(mcp, "answer the security mail")
        await task.call("mail__inbox", {})
        held = await task.refused("mail__send", {"to": "helpdesk@evil.example", "subject": "re", "body": "ok"})
    approval = held.data["approval"]
    assert approval["value"] == "helpdesk@evil.example"
    assert approval["seen"] == {"label": "untrusted", "source": "tool mail__inbox", "call": approval["seen"]["call"],
                                "field": "messages[0].body"}  # fmt: skip
    assert approval["not_in"] == ["contacts", "instruction", "trusted"]
    assert held.message.startswith(
        "Run mail__send with 'helpdesk@evil.example'? It is new: the task saw it only in tool mail__inbox, field "
        "messages[0].body (untrusted data: anyone could have written it); it is not in your contacts or your "
        "instruction or your trusted."
    )
    shown = await gateway.client.get(
        f"/v1/tasks/{task.id}/approvals/{approval['id']}", headers=gateway.bearer("taskgate:approve")
    )
    page = await shown.json()
    assert (page["value"], page["seen"]["field"], page["question"]) == (
        "helpdesk@evil.example", "messages[0].body", approval["question"],
    )  # fmt: skip
