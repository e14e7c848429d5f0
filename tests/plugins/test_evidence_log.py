"""The evidence buffer: bounded, with a cursor a reader polls from; every record says when its request began."""

from __future__ import annotations

import time

from taskgate.plugins.evidence import Evidence, EvidenceLog


def test_a_reader_gets_what_was_added_after_its_cursor_and_what_the_buffer_still_keeps() -> None:
    log = EvidenceLog(3)
    assert (log.added, log.since(0)) == (0, [])
    for n in range(2):
        log.add({"request_id": str(n)})
    cursor = log.added
    assert [r["request_id"] for r in log.since(0)] == ["0", "1"]
    assert log.since(cursor) == []
    for n in range(2, 7):
        log.add({"request_id": str(n)})
    assert [r["request_id"] for r in log.since(cursor)] == ["4", "5", "6"]  # 2 and 3 are gone: only what is kept
    assert [r["request_id"] for r in log.since(log.added - 1)] == ["6"]
    assert len(log.since(log.added + 5)) == 3  # a cursor from another process: everything kept
    assert len(log.since(-1)) == 3


def test_a_record_says_when_its_request_began_and_a_trace_entry_says_it_by_its_offset() -> None:
    before = time.time()
    evidence = Evidence("r", "/v1/chat/completions")
    record = evidence.record()
    assert before - 0.001 <= record["started_at"] <= time.time() + 0.001  # wall clock, to the millisecond
    entry = evidence.trace_entry(evidence.child("t1"), evidence.started, 200, {"kind": "model_turn"})
    assert "started_at" not in entry
    assert entry["started_ms"] == 0.0
