"""Authorization that follows the data, through the official MCP SDK client on an MCP-only gateway.

Values are labelled by where the task saw them (the user's instruction, the
fields of tool results the policy trusts, the rest untrusted), and argument
rules name the labels they accept. The tool servers are real SDK servers; a
payment, a mail or a post either reaches them or it does not.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, cast

import jwt
import pytest
from mcp import MCPError
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.types import CallToolResult

from taskgate.authz.holds import call_digest
from taskgate.gateway.gateway import GATEWAY
from taskgate.plugins import META_APPROVAL, META_PURPOSE, META_TASK, META_TASK_TOKEN

from .agent_servers import ATTACKER_IBAN, ELECTRIC_IBAN, LANDLORD_IBAN, bank_server, mail_server, work_server
from .conftest import Keys, jwt_section
from .mcp_servers import serving
from .policy import AS_ERRORS, write_policy
from .test_mcp import connect
from .test_mcp_tasks import meta

POLICY = r"""
p, role:staff, acme, mail__*, call, r-mail
p, role:staff, acme, bank__*, call, r-bank
p, role:staff, acme, work__*, call, r-work
p, profile:assistant, *, *, call, prof-assistant
p, role:staff, acme, profile:assistant, pin, pin-staff
g, alice, role:staff, acme
g, bob, role:staff, acme
p3, mail__inbox, messages[].sender, trusted, t-sender
p3, mail__contacts, *, contacts, t-contacts
p3, mail__address_book, entries[].email, contacts, t-book
p3, mail__broken_book, *, contacts, t-broken-book
p3, bank__read_bill, *, own-files, t-bills
p3, bank__transactions, transactions[].iban, trusted, t-history
p2, bank__send_money, *, iban, provenance, instruction|own-files|trusted, c-iban
p2, bank__send_money, *, amount, max, 1000, hold, c-large
p2, mail__send, *, to, provenance, instruction|contacts|trusted, c-to
p2, mail__send, *, to, regex, [^@]+@acme\.example, c-to
p2, mail__send, *, cc?, provenance, instruction|contacts, c-cc
p2, work__create_event, *, participants[].email, provenance, instruction|contacts, c-participants
p2, work__post, *, text, links, instruction; allow=*.acme.example, c-links
p2, work__read_doc, *, path, prefix, /home/alice/docs; base=/home/alice, c-docs
"""


class World:
    def __init__(self, client: Any, keys: Keys):
        self.client, self.keys = client, keys
        self.sent: list[dict[str, Any]] = []
        self.payments: list[dict[str, Any]] = []
        self.book_reads: list[str] = []
        self.urls: dict[str, str] = {}

    def bearer(self, user: str = "alice") -> dict[str, str]:
        return {"Authorization": f"Bearer {self.keys.token(sub=user, roles=[])}"}

    def approver(self, user: str = "alice") -> dict[str, str]:
        """The user's own token for answering holds (from their approval app): it carries the approval scope."""
        return {"Authorization": f"Bearer {self.keys.token(sub=user, roles=[], scope='taskgate:approve')}"}

    def decisions(self) -> list[dict[str, Any]]:
        """Every tools/call decision the gateway recorded, oldest first."""
        out = []
        for record in self.client.app[GATEWAY].evidence.records():
            grant = record.get("decisions", {}).get("grant", {})
            out += grant.get("decisions", [])
            failure = record.get("error") or {}
            if "decision" in failure:
                out.append(failure["decision"])
        return out


@pytest.fixture
async def world(proxy: Any, keys: Keys, tmp_path: Path) -> AsyncIterator[World]:
    async with running(proxy, keys, tmp_path) as found:
        yield found


@pytest.fixture(params=["memory", "redis"])
async def either_store(request: Any, proxy: Any, keys: Keys, tmp_path: Path) -> AsyncIterator[World]:
    """The gateway with each task store: what a task has seen, its holds and its parents' revocations live
    there, and replicas share them through Redis."""
    store: dict[str, Any] = {}
    if request.param == "redis":
        server = request.getfixturevalue("redis_server")
        store = {"store": "redis", "redis_url": f"redis://127.0.0.1:{server.port}/0"}
    async with running(proxy, keys, tmp_path, store=store) as found:
        yield found


def config(
    keys: Keys,
    tmp_path: Path,
    servers: dict[str, str],
    hold_ttl_s: float,
    pii: bool,
    store: dict[str, Any] | None = None,
    references: list[str] | None = None,
) -> dict[str, Any]:
    steps: list[dict[str, Any]] = [
        {"name": "authn", "type": "authz.authenticate"},
        {"name": "classify", "type": "guards.classify"},
        {"name": "authorize", "type": "authz.authorize", "params": {"references": references or []}},
    ]
    pipeline = ["authn", "classify", "authorize"]
    if pii:
        steps.append({"name": "pii", "type": "guards.pii", "params": {"backend": "patterns"}})
        pipeline.append("pii")
    return {
        "routing": {"pools": []},
        "authz": {
            "jwt": jwt_section(keys),
            "policy": {"file": str(write_policy(tmp_path, POLICY.lstrip())), "reload_interval_s": 0},
            "tasks": {"hold_ttl_s": hold_ttl_s, **(store or {})},
        },
        "mcp": {"servers": [{"name": name, "url": url} for name, url in servers.items()], **AS_ERRORS},
        "steps": steps,
        "pipelines": {"mcp": pipeline},
        "logging": {"evidence": False},
    }


class running:
    """The gateway in front of the three servers, as an async context manager yielding the World."""

    def __init__(
        self, proxy: Any, keys: Keys, tmp_path: Path, hold_ttl_s: float = 60, pii: bool = False,
        store: dict[str, Any] | None = None, references: list[str] | None = None,
    ):  # fmt: skip
        self.args = proxy, keys, tmp_path, hold_ttl_s, pii
        self.store, self.references = store, references

    async def __aenter__(self) -> World:
        proxy, keys, tmp_path, hold_ttl_s, pii = self.args
        self.world = world = World(None, keys)
        mail = mail_server(world.sent, world.book_reads)
        self.stack = [serving(mail), serving(bank_server(world.payments)), serving(work_server())]
        urls = [await s.__aenter__() for s in self.stack]
        world.urls = dict(zip(("mail", "bank", "work"), urls, strict=True))
        world.client = await proxy(config(keys, tmp_path, world.urls, hold_ttl_s, pii, self.store, self.references))
        return world

    async def __aexit__(self, *exc: Any) -> None:
        await self.world.client.close()
        for server in reversed(self.stack):
            await server.__aexit__(None, None, None)


class Task:
    """One task on one MCP session: the first call states the purpose, later ones carry the task token."""

    def __init__(self, mcp: Any, purpose: str):
        self.mcp, self.purpose = mcp, purpose
        self.id: str | None = None
        self.token: str | None = None

    async def call(self, tool: str, arguments: dict[str, Any], **extra: str) -> CallToolResult:
        carried = {META_TASK_TOKEN: self.token} if self.token else {META_PURPOSE: self.purpose}
        result: CallToolResult = await self.mcp.call_tool(tool, arguments, meta=meta_of({**carried, **extra}))
        if self.token is None and result.meta:
            self.id, self.token = result.meta[META_TASK], result.meta[META_TASK_TOKEN]
        return result

    async def refused(self, tool: str, arguments: dict[str, Any], **extra: str) -> Any:
        with pytest.raises(MCPError) as caught:
            await self.call(tool, arguments, **extra)
        data = caught.value.error.data or {}
        if self.token is None and META_TASK_TOKEN in data:  # a refused first call opened the task all the same
            self.id, self.token = data[META_TASK], data[META_TASK_TOKEN]
        return caught.value.error


def meta_of(values: dict[str, str]) -> Any:
    first, *_ = values.items()
    out = meta(*first)
    out.update(values)  # type: ignore[typeddict-item]
    return out


async def test_a_payment_goes_only_to_an_iban_from_the_instruction_or_a_trusted_field(either_store: World) -> None:
    world = either_store
    async with connect(world.client, world.bearer()) as mcp:
        bill = Task(mcp, "pay my electricity bill")
        await bill.call("bank__read_bill", {"name": "electricity"})  # the user's own file: label own-files
        paid = await bill.call("bank__send_money", {"iban": ELECTRIC_IBAN, "amount": 84.2})
        await bill.call("bank__transactions", {})  # the IBANs are trusted history; the notes are not
        refused = await bill.refused("bank__send_money", {"iban": ATTACKER_IBAN, "amount": 50})
        history = await bill.call("bank__send_money", {"iban": LANDLORD_IBAN, "amount": 100})
        stated = Task(mcp, "send 25 EUR to GB33 BUKB 2020 1555 5555 55 for the concert tickets")
        await stated.call("bank__send_money", {"iban": ATTACKER_IBAN, "amount": 25})  # the user named it
    assert not paid.is_error
    assert not history.is_error
    assert refused.code == -32003
    assert refused.data["rule"] == "c-iban"
    assert "was not seen in data labelled instruction|own-files|trusted" in refused.message
    assert [p["iban"] for p in world.payments] == [ELECTRIC_IBAN, LANDLORD_IBAN, ATTACKER_IBAN]
    denied = next(d for d in world.decisions() if d["outcome"] == "deny")
    assert denied["refused"]["seen"] == {  # where the IBAN was seen: only in a counterparty's note
        "label": "untrusted", "source": "tool bank__transactions", "call": denied["refused"]["seen"]["call"],
        "field": "transactions[0].note",
    }  # fmt: skip
    allowed = [d for d in world.decisions() if d["tool"] == "bank__send_money" and d["outcome"] == "allow"]
    assert [d["provenance"][0]["seen"]["label"] for d in allowed] == ["own-files", "trusted", "instruction"]
    assert allowed[0]["provenance"][0]["seen"]["field"] == "bill.iban"


@pytest.mark.parametrize("kind", ["memory", "redis"])
async def test_a_reference_source_vouches_for_a_recipient_the_task_never_looked_up(
    kind: str, request: Any, proxy: Any, keys: Keys, tmp_path: Path
) -> None:
    """The user's address book is read by taskgate itself, once per task, when a rule needs what it could show."""
    store = {}
    if kind == "redis":  # what was read is kept with the task: a replica does not read it again
        store = {"store": "redis", "redis_url": f"redis://127.0.0.1:{request.getfixturevalue('redis_server').port}/0"}
    async with running(proxy, keys, tmp_path, store=store, references=["mail__address_book"]) as world:
        async with connect(world.client, world.bearer()) as mcp:
            task = Task(mcp, "send the minutes to erin and bob")
            first = await task.call("mail__send", {"to": "erin@friendsmail.com", "body": "minutes"})
            second = await task.call("mail__send", {"to": "bob@friendsmail.com", "body": "minutes"})
            outsider = await task.refused("mail__send", {"to": "mallory@evil.example", "body": "minutes"})
            other = Task(mcp, "mail mallory")  # another task reads the book for itself
            await other.refused("mail__send", {"to": "mallory@evil.example", "body": "hi"})
        records = world.client.app[GATEWAY].evidence.records()
    assert not first.is_error
    assert not second.is_error
    assert [m["to"] for m in world.sent] == ["erin@friendsmail.com", "bob@friendsmail.com"]
    assert outsider.data["rule"] == "c-to"
    assert world.book_reads == ["read", "read"]  # once for each task, not once per refused call
    grant = next(r for r in records if "grant" in r.get("decisions", {}))["decisions"]["grant"]
    assert grant["references"] == [{"tool": "mail__address_book", "outcome": "read"}]
    refused, book, allowed = grant["decisions"]
    assert (refused["outcome"], book["tool"], allowed["outcome"]) == ("deny", "mail__address_book", "allow")
    assert allowed["provenance"][0]["seen"] == {
        "label": "contacts", "source": "tool mail__address_book", "call": "taskgate:reference",
        "field": "entries[1].email",
    }  # fmt: skip


async def test_a_reference_that_cannot_be_read_leaves_the_refusal_standing(
    proxy: Any, keys: Keys, tmp_path: Path
) -> None:
    async with running(proxy, keys, tmp_path, references=["mail__broken_book", "mail__unknown"]) as world:
        async with connect(world.client, world.bearer()) as mcp:
            task = Task(mcp, "send the minutes to erin")
            error = await task.refused("mail__send", {"to": "erin@friendsmail.com", "body": "minutes"})
        records = world.client.app[GATEWAY].evidence.records()
    assert error.code == -32003
    assert error.data["rule"] == "c-to"
    assert world.sent == []
    assert world.book_reads == ["broken"]
    refusal = next(r["error"] for r in records if "decision" in (r.get("error") or {}))
    assert refusal["decision"]["outcome"] == "deny"
    assert refusal["references"] == [{"tool": "mail__broken_book", "outcome": "failed"}]  # unknown: nothing declared


async def test_an_optional_argument_is_constrained_when_present(world: World) -> None:
    async with connect(world.client, world.bearer()) as mcp:
        task = Task(mcp, "mail bob that I am running late")
        await task.call("mail__contacts", {"name": "bob"})
        await task.call("mail__send", {"to": "bob@friendsmail.com", "body": "late"})  # no cc: nothing to check
        await task.call("mail__send", {"to": "bob@friendsmail.com", "body": "late", "cc": []})
        await task.call("mail__inbox", {})
        error = await task.refused(
            "mail__send", {"to": "bob@friendsmail.com", "body": "late", "cc": ["mallory@evil.example"]}
        )
    assert error.data["rule"] == "c-cc"
    assert [m["cc"] for m in world.sent] == [[], []]


async def test_any_of_a_rule_s_rows_admits_the_call(world: World) -> None:
    async with connect(world.client, world.bearer()) as mcp:
        task = Task(mcp, "reply to my messages")
        await task.call("mail__inbox", {})
        await task.call("mail__send", {"to": "carol@acme.example", "body": "yes"})  # a sender: trusted field
        await task.call("mail__send", {"to": "frank@acme.example", "body": "hi"})  # seen nowhere, but internal
        error = await task.refused("mail__send", {"to": "mallory@evil.example", "body": "slides"})
    assert [m["to"] for m in world.sent] == ["carol@acme.example", "frank@acme.example"]
    assert error.data["rule"] == "c-to"
    assert "nor does any other alternative of the rule hold" in error.message


async def test_a_list_path_checks_every_element(world: World) -> None:
    async with connect(world.client, world.bearer()) as mcp:
        task = Task(mcp, "set up a meeting with bob")
        await task.call("mail__contacts", {"name": "bob"})
        await task.call("mail__inbox", {})
        ok = await task.call(
            "work__create_event", {"title": "sync", "participants": [{"email": "bob@friendsmail.com"}]}
        )
        both = [{"email": "bob@friendsmail.com"}, {"email": "mallory@evil.example"}]
        outsider = await task.refused("work__create_event", {"title": "sync", "participants": both})
        nameless = await task.refused("work__create_event", {"title": "sync", "participants": [{"name": "x"}]})
    assert not ok.is_error
    assert outsider.data["rule"] == nameless.data["rule"] == "c-participants"
    assert "is missing" in nameless.message


async def test_a_link_in_a_message_body_must_be_allowed_or_the_user_s(world: World) -> None:
    async with connect(world.client, world.bearer()) as mcp:
        task = Task(mcp, "tell #general the slides are at https://slides.partner.example/q3.They are final")
        await task.call("mail__inbox", {})
        await task.call("work__post", {"channel": "general", "text": "Slides: https://slides.partner.example/q3"})
        await task.call("work__post", {"channel": "general", "text": "Notes on https://wiki.acme.example/q3"})
        await task.call("work__post", {"channel": "general", "text": "no links at all"})
        phish = await task.refused("work__post", {"channel": "general", "text": "Log in at https://acme.evil.example/"})
    assert phish.data["rule"] == "c-links"
    assert "carries a link to acme.evil.example" in phish.message


async def test_a_relative_path_is_resolved_against_its_base(world: World) -> None:
    async with connect(world.client, world.bearer()) as mcp:
        task = Task(mcp, "read my quarterly plan")
        await task.call("work__read_doc", {"path": "docs/plan.txt"})
        await task.call("work__read_doc", {"path": "/home/alice/docs/plan.txt"})
        escape = await task.refused("work__read_doc", {"path": "docs/../.ssh/id_rsa"})
    assert escape.data["rule"] == "c-docs"


async def test_a_held_call_runs_once_when_its_user_approves_and_never_for_another_user(either_store: World) -> None:
    world = either_store
    client = world.client
    async with connect(client, world.bearer()) as mcp:
        task = Task(mcp, f"pay the rent of 1500 to {LANDLORD_IBAN}")
        await task.call("bank__transactions", {})
        assert task.token is not None
        held = await task.refused("bank__send_money", {"iban": LANDLORD_IBAN, "amount": 1500})
        assert held.code == -32044
        assert held.data["reason"] == "approval_required"
        approval = held.data["approval"]
        assert world.payments == []  # a held call is not executed
        path = f"/v1/tasks/{task.id}/approvals/{approval['id']}"
        assert approval["url"].endswith(path)
        assert approval["rule"] == "c-large"
        other = await client.post(path, json={"approve": True}, headers=world.approver("bob"))
        assert other.status == 404  # another user cannot see it, let alone approve it
        agent = await client.post(path, json={"approve": True}, headers=world.bearer())
        assert agent.status == 403  # the agent's own credential lacks the approval scope
        assert (await agent.json())["error"]["code"] == "approval_scope_missing"
        shown = await (await client.get(path, headers=world.bearer())).json()
        assert json.loads(shown["arguments"]) == {"iban": LANDLORD_IBAN, "amount": 1500}  # what the user approves
        early = await task.refused("bank__send_money", {"iban": LANDLORD_IBAN, "amount": 1500},
                                   **{META_APPROVAL: approval["id"]})  # fmt: skip
        assert early.data["reason"] == "approval_pending"
        answer = await client.post(path, json={"approve": True}, headers=world.approver())
        assert answer.status == 200
        assert (await answer.json())["state"] == "approved"
        changed = await task.refused("bank__send_money", {"iban": LANDLORD_IBAN, "amount": 1499},
                                     **{META_APPROVAL: approval["id"]})  # fmt: skip
        ran = await task.call("bank__send_money", {"iban": LANDLORD_IBAN, "amount": 1500},
                              **{META_APPROVAL: approval["id"]})  # fmt: skip
        again = await task.refused("bank__send_money", {"iban": LANDLORD_IBAN, "amount": 1500},
                                   **{META_APPROVAL: approval["id"]})  # fmt: skip
    assert changed.data["reason"] == "approval_mismatch"
    assert not ran.is_error
    assert world.payments == [{"iban": LANDLORD_IBAN, "amount": 1500}]
    assert again.data["reason"] == "approval_used"  # it runs once
    approved = next(d for d in world.decisions() if d["outcome"] == "allow" and "approval" in d)
    assert approved["approval"]["decided_by"] == "alice"
    assert approved["approval"]["state"] == "used"
    assert approved["reason"] == "approved by alice"


async def test_a_refused_hold_never_runs_and_an_unanswered_one_expires(proxy: Any, keys: Keys, tmp_path: Path) -> None:
    async with running(proxy, keys, tmp_path, hold_ttl_s=0.5) as world, connect(world.client, world.bearer()) as mcp:
        task = Task(mcp, f"pay the rent of 1500 to {LANDLORD_IBAN}")
        call = {"iban": LANDLORD_IBAN, "amount": 1500}
        first = (await task.refused("bank__send_money", call)).data["approval"]
        refusal = await world.client.post(
            f"/v1/tasks/{task.id}/approvals/{first['id']}", json={"approve": False}, headers=world.approver()
        )
        refused = await task.refused("bank__send_money", call, **{META_APPROVAL: first["id"]})
        second = (await task.refused("bank__send_money", call)).data["approval"]
        await asyncio.sleep(0.7)
        late = await world.client.post(
            f"/v1/tasks/{task.id}/approvals/{second['id']}", json={"approve": True}, headers=world.approver()
        )
        expired = await task.refused("bank__send_money", call, **{META_APPROVAL: second["id"]})
        late_answer = await late.json()
    assert refusal.status == 200
    assert refused.data["reason"] == "approval_refused"
    assert late.status == 410
    assert late_answer["error"]["code"] == "approval_expired"
    assert expired.data["reason"] == "approval_expired"
    assert world.payments == []


async def test_a_subtask_cannot_widen_and_dies_with_its_parent(either_store: World) -> None:
    world = either_store
    client = world.client
    async with connect(client, world.bearer()) as mcp:
        parent = Task(mcp, "pay my electricity bill")
        await parent.call("bank__read_bill", {"name": "electricity"})

        async def subtask(task: Task, **body: Any) -> Any:
            resp = await client.post(
                f"/v1/tasks/{task.id}/subtasks", json={"subject_token": task.token, **body}, headers=world.bearer()
            )
            return resp.status, await resp.json()

        status, opened = await subtask(parent, tools=["bank__send_money"], labels=["instruction"])
        assert status == 200
        assert opened["parent"] == parent.id
        child = Task(mcp, "")
        child.id, child.token = opened["task"], opened["access_token"]
        # the child may not count the parent's own-files label: the bill's IBAN does not admit the payment
        narrow = await child.refused("bank__send_money", {"iban": ELECTRIC_IBAN, "amount": 84.2})
        other_tool = await child.refused("mail__inbox", {})
        assert (await subtask(child, labels=["instruction", "own-files"]))[0] == 403
        assert (await subtask(child, labels=[]))[0] == 400  # no labels is not "no restriction"
        assert (await subtask(child, tools=["mail__send"]))[0] == 403
        assert (await subtask(parent, tools=["bank__*"]))[0] == 403
        await parent.call("bank__send_money", {"iban": ELECTRIC_IBAN, "amount": 84.2})  # the parent still may
        revoked = await client.post(f"/v1/tasks/{parent.id}/revoke", headers=world.bearer())
        assert revoked.status == 200
        dead = await child.refused("bank__send_money", {"iban": ELECTRIC_IBAN, "amount": 84.2})
    assert narrow.data["rule"] == "c-iban"
    assert "narrowed" in other_tool.message
    assert dead.data["reason"] == "task_revoked"
    assert len(world.payments) == 1


async def test_an_upstream_verifies_the_per_task_assertion_from_published_keys(world: World) -> None:
    async with connect(world.client, world.bearer()) as mcp:
        task = Task(mcp, "who am I to the mail server")
        result = await task.call("mail__whoami", {})
    assertion = (result.structured_content or {})["assertion"]
    keys = await (await world.client.get("/.well-known/jwks.json")).json()
    key = jwt.PyJWKSet.from_dict(keys)[jwt.get_unverified_header(assertion)["kid"]]
    claims = jwt.decode(assertion, key, algorithms=["ES256"], audience=world.urls["mail"])
    who = (claims["sub"], claims["tenant"], claims["task"], claims["profile"])
    assert who == ("alice", "acme", task.id, "assistant")
    assert (claims["tool"], claims["call_sha256"]) == ("mail__whoami", call_digest("mail__whoami", {}))  # this call
    with pytest.raises(jwt.InvalidAudienceError):  # meant for the mail server: the bank would refuse it
        jwt.decode(assertion, key, algorithms=["ES256"], audience=world.urls["bank"])
    assert "Bearer" not in assertion


async def test_a_trusted_recipient_is_not_redacted_from_a_granted_send(proxy: Any, keys: Keys, tmp_path: Path) -> None:
    async with running(proxy, keys, tmp_path, pii=True) as world, connect(world.client, world.bearer()) as mcp:
        task = Task(mcp, "mail bob that I am running late")
        await task.call("mail__contacts", {"name": "bob"})
        await task.call("mail__send", {"to": "bob@friendsmail.com", "body": "late, tell erin@friendsmail.com"})
    assert world.sent == [{"to": "bob@friendsmail.com", "body": "late, tell <EMAIL_ADDRESS>", "cc": []}]


async def test_the_profile_pinned_by_a_policy_rule_is_recorded(world: World) -> None:
    async with connect(world.client, world.bearer()) as mcp:
        await Task(mcp, "summarise my email").call("mail__inbox", {})
    records = world.client.app[GATEWAY].evidence.records()
    grant = next(r["decisions"]["grant"] for r in records if "grant" in r.get("decisions", {}))
    assert (grant["profile"], grant["profile_source"]) == ("assistant", "policy")


async def test_a_client_that_declared_url_elicitation_is_asked_for_the_approval_as_one(world: World) -> None:
    """The SDK client declares elicitation when it has a callback; a hold then arrives as the protocol's
    URL elicitation (-32042): the URL is the approval, its id the elicitation's, and the retry runs once."""
    from urllib.parse import urlsplit

    import httpx2
    from mcp import Client, UrlElicitationRequiredError
    from mcp.client.streamable_http import streamable_http_client
    from mcp.types import ElicitResult

    async def decline(*_: Any) -> ElicitResult:
        return ElicitResult(action="decline")

    async with (
        httpx2.AsyncClient(headers=world.bearer()) as http,
        Client(streamable_http_client(str(world.client.make_url("/mcp")), http_client=http),
               elicitation_callback=cast(Any, decline)) as mcp,
    ):  # fmt: skip
        task = Task(mcp, f"pay the rent of 1500 to {LANDLORD_IBAN}")
        call = {"iban": LANDLORD_IBAN, "amount": 1500}
        with pytest.raises(MCPError) as caught:
            await task.call("bank__send_money", call)
        assert caught.value.error.code == -32042  # the protocol's URL elicitation, not taskgate's -32044
        asked = UrlElicitationRequiredError.from_error(caught.value.error).elicitations[0]
        data = caught.value.error.data or {}
        task.id, task.token = data[META_TASK], data[META_TASK_TOKEN]
        path = urlsplit(asked.url).path
        assert path == f"/v1/tasks/{task.id}/approvals/{asked.elicitation_id}"
        answer = await world.client.post(path, json={"approve": True}, headers=world.approver())
        assert answer.status == 200
        ran = await task.call("bank__send_money", call, **{META_APPROVAL: str(asked.elicitation_id)})
    assert not ran.is_error
    assert world.payments == [{"iban": LANDLORD_IBAN, "amount": 1500}]


async def test_a_stateful_upstream_gets_a_session_per_task(proxy: Any, keys: Keys, tmp_path: Path) -> None:
    """`sessions: per_task`: each task talks to the server over a session of its own; a shared server sees one."""

    def server(name: str) -> MCPServer:
        made = MCPServer(name)

        @made.tool()
        def session(ctx: Context) -> dict[str, Any]:
            """The session this call arrived in."""
            return {"session": (ctx.headers or {}).get("mcp-session-id")}

        return made

    async with serving(server("state")) as stateful, serving(server("plain")) as shared:
        settings = config(keys, tmp_path, {}, 60, False)
        settings["mcp"] = {"servers": [{"name": "state", "url": stateful, "sessions": "per_task"},
                                       {"name": "plain", "url": shared}]}  # fmt: skip
        rows = "p, role:staff, acme, state__*, call, r-state\np, role:staff, acme, plain__*, call, r-plain\n"
        settings["authz"]["policy"]["file"] = str(write_policy(tmp_path, POLICY.lstrip() + rows))
        client = await proxy(settings)
        world = World(client, keys)
        seen: dict[str, list[str]] = {"state": [], "plain": []}
        async with connect(client, world.bearer()) as mcp:
            for purpose in ("first task", "second task"):
                task = Task(mcp, purpose)
                for _ in range(2):
                    for name in seen:
                        result = await task.call(f"{name}__session", {})
                        seen[name].append((result.structured_content or {})["session"])
        await client.close()
    first, again, second, later = seen["state"]
    assert (first, second) == (again, later)  # one session per task, kept between its calls
    assert first != second
    assert len(set(seen["plain"])) == 1  # a shared server: one session for every task


async def test_the_new_endpoints_answer_a_client_s_mistakes_with_4xx_error_bodies(world: World) -> None:
    client = world.client
    async with connect(client, world.bearer()) as mcp:
        task = Task(mcp, "pay my electricity bill")
        await task.call("bank__read_bill", {"name": "electricity"})
    approvals = f"/v1/tasks/{task.id}/approvals/"
    cases: list[tuple[str, str, Any, dict[str, str]]] = [
        ("post", approvals + "x" * 500, {"approve": True}, world.approver()),
        ("post", approvals + "nope", {"approve": "yes"}, world.approver()),
        ("post", approvals + "nope", b"{not json", world.approver()),
        ("post", approvals + "nope", {"approve": True}, {}),
        ("get", approvals + "nope", None, world.bearer()),
        ("post", f"/v1/tasks/{task.id}/subtasks", {"subject_token": 5}, world.bearer()),
        ("post", f"/v1/tasks/{task.id}/subtasks", {"subject_token": task.token, "tools": "all"}, world.bearer()),
        ("post", f"/v1/tasks/{task.id}/subtasks", {"subject_token": "garbage"}, world.bearer()),
        ("post", "/v1/tasks/another/subtasks", {"subject_token": task.token}, world.bearer()),
        ("post", f"/v1/tasks/{task.id}/subtasks", [1, 2], world.bearer()),
    ]
    for method, path, body, headers in cases:
        sent = {"data": body} if isinstance(body, bytes) else {"json": body} if body is not None else {}
        resp = await getattr(client, method)(path, headers=headers, **sent)
        answer = await resp.json()
        assert 400 <= resp.status < 500, (path, body, resp.status, answer)
        assert set(answer["error"]) >= {"message", "type", "code"}, answer
