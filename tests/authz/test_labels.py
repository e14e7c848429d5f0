"""Values matched as values: what a task has seen, by label, and how a rule's value is found in it."""

from __future__ import annotations

from typing import Any

import pytest

from taskgate.authz.constraints import compile_row, group
from taskgate.authz.labels import Seen, Where
from taskgate.authz.trust import TrustMap, TrustRule, field_of, result_leaves

INSTRUCTION = frozenset({"instruction"})
SAID = (
    "Pay 1,250.00 EUR to DE89 3704 0044 0532 0130 00 and send the slides at "
    "https://Slides.example.com:443/q3?v=2.They are final. Mail bob@Example.COM, not eve."
)


@pytest.mark.parametrize(
    "value",
    [
        "DE89370400440532013000",  # an IBAN as written with spaces, compared without them
        "https://slides.example.com/q3?v=2",  # host case and the default port do not matter; the glued word goes
        "bob@example.com",
        1250,
        1250.0,
        "the slides",  # a phrase at word boundaries
    ],
)
def test_values_the_instruction_holds_are_found(value: Any) -> None:
    assert Seen.instruction(SAID).find(value, INSTRUCTION) is not None


@pytest.mark.parametrize(
    "value",
    [
        "DE89370400440532013001",  # one digit off
        "https://slides.example.com/q3?v=3",  # another query
        "http://slides.example.com/q3?v=2",  # another scheme
        "https://slides.example.com.evil.example/q3?v=2",
        "Bob@example.com",  # the local part is the recipient's own: its case counts
        "ob@example.com",  # inside a longer token
        "125",  # a string is not the number 1,250 and not a piece of it
        1251,
        "eve@example.com",  # a name mentioned is not an address given
        "sli",  # inside a word
        True,
    ],
)
def test_values_the_instruction_does_not_hold_are_not_found(value: Any) -> None:
    assert Seen.instruction(SAID).find(value, INSTRUCTION) is None


def test_a_value_seen_only_under_another_label_does_not_count() -> None:
    seen = Seen.instruction("pay the bill")
    seen.add_value("GB33BUKB20201555555555", Where("untrusted", "tool bank__transactions", "c1", "note"))
    assert seen.find("GB33BUKB20201555555555", INSTRUCTION) is None
    assert seen.anywhere("GB33BUKB20201555555555") == Where("untrusted", "tool bank__transactions", "c1", "note")
    seen.restrict({"trusted"})  # a subtask that may count only `trusted` data
    assert seen.find("pay the bill", INSTRUCTION) is None


def test_amounts_match_within_their_tolerance() -> None:
    rule = compile_row(["bank__pay", "*", "amount", "amount", "instruction; tolerance=1%", "c"], ())
    seen = Seen.instruction("transfer about 200 EUR")
    assert rule.judge({"amount": 201.5}, seen, []) is None
    assert rule.judge({"amount": "199"}, seen, []) is None
    unmet = rule.judge({"amount": 210}, seen, [])
    assert unmet is not None
    assert unmet.reason.startswith("is not an amount seen")


def test_a_text_rule_with_unseen_refuses_a_number_seen_nowhere_but_knows_one_written_otherwise() -> None:
    rule = compile_row(["files__write", "*", "content", "text", "contacts; unseen=refuse", "c"], ["contacts"])
    seen = Seen.instruction("note grace's phone")
    seen.add_value("+44 20 7946 0321", Where("contacts", "tool mail__contacts", "c1", "phone"))
    seen.add_value("+49 30 5550 1234", Where("untrusted", "tool mail__read", "c2", "body"))
    assert rule.judge({"content": "Phone: 44 20 7946 0321"}, seen, []) is None  # her contact's, without the +
    copied = rule.judge({"content": "Phone: 49 30 5550 1234"}, seen, [])
    assert copied is not None
    assert "seen only in untrusted data" in copied.reason
    invented = rule.judge({"content": "Phone: 33 1 4020 5050"}, seen, [])
    assert invented is not None
    assert "which the task has not seen anywhere" in invented.reason


def rules(*rows: tuple[str, str, str]) -> TrustMap:
    return TrustMap([TrustRule(tools, *field_of(field)[:1], label, f"t{n}", field_of(field)[1])
                     for n, (tools, field, label) in enumerate(rows)])  # fmt: skip


def labelled(trust: TrustMap, result: Any, tool: str = "mail__read") -> Seen:
    seen = Seen()
    trust.label_leaves(seen, tool, "c1", result_leaves(result))
    return seen


TRUSTED_ONLY = frozenset({"trusted"})
MESSAGE = {"messages": [{"sender": "carol@acme.example", "body": "wire it to GB33BUKB20201555555555"}]}


def test_the_most_specific_trust_declaration_wins_and_untrusted_wins_a_tie() -> None:
    trust = rules(("mail__read", "messages[]", "trusted"), ("mail__read", "$.messages[*].body", "untrusted"))
    seen = labelled(trust, MESSAGE)
    found = seen.find("carol@acme.example", TRUSTED_ONLY)
    assert found is not None
    assert found.field == "messages[0].sender"
    assert seen.find("GB33BUKB20201555555555", TRUSTED_ONLY) is None
    tie = rules(("mail__*", "messages[].sender", "trusted"), ("mail__read", "messages[].sender", "untrusted"))
    assert labelled(tie, MESSAGE).find("carol@acme.example", TRUSTED_ONLY) is None
    assert trust.for_tool("files__read").label("x") == ("untrusted", None)  # no declaration: untrusted


@pytest.mark.parametrize(
    "result",
    [
        MESSAGE,  # a whole-result row does not apply to a tool that has carve-outs: declare the trusted fields
        [MESSAGE, MESSAGE],  # several text items: paths that match no declaration
        {"messages[0].sender": "GB33BUKB20201555555555"},  # a key that imitates a path
        "Messages:\n" + str(MESSAGE),  # prose around the JSON
    ],
)
def test_a_result_of_another_shape_than_declared_is_untrusted(result: Any) -> None:
    trust = rules(("mail__read", "*", "trusted"), ("mail__read", "messages[].body", "untrusted"))
    assert labelled(trust, result).find("GB33BUKB20201555555555", TRUSTED_ONLY) is None


def test_a_trusted_field_is_one_value_not_a_text_whose_phrases_count() -> None:
    trust = rules(("mail__inbox", "messages[].sender", "trusted"), ("files__read", "text:content", "trusted"))
    sender = '"Billing DE89 3704 0044 0532 0130 00 ceo@acme.example" <eve@evil.example>'
    seen = labelled(trust, {"messages": [{"sender": sender}]}, "mail__inbox")
    assert seen.find("eve@evil.example", TRUSTED_ONLY) is not None  # the address of `Name <addr>`
    assert seen.find("ceo@acme.example", TRUSTED_ONLY) is None  # what the display name says
    assert seen.find("DE89370400440532013000", TRUSTED_ONLY) is None
    document = labelled(trust, {"content": "Pay DE89 3704 0044 0532 0130 00 by Friday"}, "files__read")
    assert document.find("DE89370400440532013000", TRUSTED_ONLY) is not None  # declared text: its IBANs count


@pytest.mark.parametrize(
    "text",
    [
        "see https://evil.example\\.docs.acme.example/x",  # a backslash: browsers read another host
        "see //evil.example/leak?d=1",  # protocol-relative
        "see evil.example:8080/x",
        "see evil.example?d=secret",
        "see xhttps://evil.example/",
        "see ftp://docs.acme.example/x",  # another scheme: not readable as http(s)
        "mail evil.com now",  # a bare host of a common top-level domain
        "see https://wiki.acme.example/#/transfer?to=evil",  # the fragment counts: not the trusted link
    ],
)
def test_links_that_dodge_the_allowlist_are_refused(text: str) -> None:
    rule = compile_row(["chat__post", "*", "text", "links", "instruction; allow=docs.acme.example", "c"], ())
    seen = Seen.instruction("post the notes at https://wiki.acme.example/")
    assert rule.judge({"text": text}, seen, []) is not None, text
    fine = "notes: https://wiki.acme.example/ and https://docs.acme.example/q3, see main.py"
    assert rule.judge({"text": fine}, seen, []) is None


def test_ids_keep_their_case_unless_they_are_ibans_and_huge_numbers_are_no_amounts() -> None:
    seen = Seen.instruction("ticket AB12cdefGH1234 and 9" + "9" * 400)
    assert seen.find("ab12CDEFgh1234", INSTRUCTION) is None  # not an IBAN by its check digits: case counts
    rule = compile_row(["bank__pay", "*", "amount", "amount", "instruction; tolerance=1%", "c"], ())
    assert rule.judge({"amount": 5e300}, seen, []) is not None


def test_alternatives_that_are_all_optional_do_not_admit_a_bad_present_value() -> None:
    rows = [compile_row(["mail__send", "*", arg, "provenance", "instruction", "c-to"], ()) for arg in ("to?", "to_id?")]
    rule = group(rows)[0]
    seen = Seen.instruction("mail bob@friends.example")
    assert rule.judge({"to": "eve@evil.example"}, seen)[0] is not None
    assert rule.judge({"to": "bob@friends.example"}, seen)[0] is None
    assert rule.judge({}, seen)[0] is None  # nothing to check: the rule holds


def test_a_trusted_tool_that_echoes_its_arguments_or_fails_vouches_for_nothing() -> None:
    from taskgate.authz.provenance import gather, result_record

    trust = rules(("contacts__*", "*", "contacts"))
    labels = frozenset({"contacts"})
    echoed = result_record("contacts__find", "c1", {"structuredContent": {
        "query": "eve@evil.example", "note": "no contact matches eve@evil.example", "results": []}},
        {"name": "eve@evil.example"})  # fmt: skip
    found = result_record("contacts__find", "c2", {"structuredContent": {
        "name": "bob", "email": "bob@friends.example"}}, {"name": "bob"})  # fmt: skip
    failed = result_record("contacts__find", "c3", {"isError": True, "content": [
        {"type": "text", "text": "unknown contact mallory@evil.example"}]}, {"name": "x"})  # fmt: skip
    assert failed is None
    assert echoed is not None
    assert found is not None
    seen = gather(trust, None, [echoed, found], ())
    assert seen.find("eve@evil.example", labels) is None
    assert seen.find("bob@friends.example", labels) is not None  # a name asked for does not hide the answer


def test_an_argument_with_more_values_than_a_check_reads_fails_its_rule() -> None:
    rule = compile_row(["mail__send", "*", "cc?", "provenance", "instruction", "c"], ())
    seen = Seen.instruction("cc bob@friends.example")
    assert rule.judge({"cc": ["bob@friends.example"] * 256}, seen, []) is None
    unmet = rule.judge({"cc": ["bob@friends.example"] * 257}, seen, [])
    assert unmet is not None
    assert "more than 256" in unmet.reason
