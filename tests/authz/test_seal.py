"""A policy is served only whole: its seal, a slow writer, an overwrite that leaves an old tail, the CLI."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from taskgate.authz.policy import PolicyError, load, seal_file
from taskgate.authz.seal import seal
from taskgate.gateway.errors import ConfigError
from taskgate.gateway.gateway import GATEWAY
from taskgate.proxy.cli import main

from .conftest import Keys
from .policy import POLICY, authz_config
from .test_tasks import MAIL_TOOLS, bearer
from .upstream import ToolCaller

EXTRA = "p, profile:summarise, *, mail__send, call, prof-summarise-send\n"
ESCAPE = ("files__read", {"path": "/home/alice/../../etc/passwd"})  # c-home-only denies it in every version


def rows(text: str) -> list[str]:
    return [r.strip() for r in text.splitlines() if r.strip() and not r.strip().startswith("#")]


def loaded_rows(path: Path) -> list[str]:
    return _rows_of(load(None, path, 1))


def loaded_rows_unsealed(path: Path) -> list[str]:
    return _rows_of(load(None, path, 1, require_seal=False))


def _rows_of(policy: Any) -> list[str]:
    return [", ".join(["p", *r]) for r in policy.enforcer.get_named_policy("p")] + [
        ", ".join(["p2", *r]) for r in policy.enforcer.get_named_policy("p2")
    ]


def casbin_rows(text: str) -> list[str]:
    return sorted(r for r in rows(text) if not r.startswith("g,"))


def test_no_prefix_of_a_sealed_policy_loads_but_the_whole_file(tmp_path: Path) -> None:
    """A writer cut anywhere (mid-row, at a line boundary, inside the seal) leaves a file that is refused."""
    whole = seal(POLICY + EXTRA)
    path = tmp_path / "policy.csv"
    for cut in range(len(whole) + 1):
        path.write_text(whole[:cut])
        try:
            served = loaded_rows(path)
        except PolicyError:
            continue
        assert cut >= len(whole) - 1, f"a policy cut after {cut} of {len(whole)} characters was loaded"
        assert sorted(served) == casbin_rows(whole)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (POLICY + EXTRA, (POLICY + EXTRA).replace("/home/alice", "/home/carol").replace("min, 30", "min, 90")),
        (POLICY + EXTRA, POLICY.replace("p2, files__read, *, path, prefix, /home/alice, c-home-only\n", "")),
    ],
    ids=["rows-of-the-same-length", "a-shorter-file"],
)
def test_an_overwrite_in_place_that_leaves_the_old_tail_never_loads_a_mixture(
    tmp_path: Path, old: str, new: str
) -> None:
    """new prefix + old tail (the old seal included) is refused: only the old or the new policy ever loads."""
    old, new = seal(old), seal(new)
    assert len(new) <= len(old)
    path = tmp_path / "policy.csv"
    boundaries = [i + 1 for i, c in enumerate(new) if c == "\n"]
    mixtures = []
    for cut in [0, *boundaries]:
        path.write_text(new[:cut] + old[cut:])
        try:
            served = sorted(loaded_rows(path))
        except PolicyError:
            continue
        if served not in (casbin_rows(old), casbin_rows(new)):
            mixtures.append(cut)
    assert mixtures == [], "a mixture of the old and new policy loaded"
    path.write_text(new)
    assert sorted(loaded_rows(path)) == casbin_rows(new)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (POLICY, "the policy is not sealed"),
        (seal(POLICY)[:-20], "line 12: the seal is incomplete"),
        (seal(POLICY).replace("c-home-only", "c-home-onl"), "do not match the sha256 of the seal on line 12"),
        (seal(POLICY).replace("g, alice, role:mail-user, acme\n", ""), "declares 11 rows but 10 precede it"),
        (seal(POLICY) + "p, role:x, acme, mail__send, call, r-late\n", "line 13 follows the seal on line 12"),
        (seal(POLICY) + seal(POLICY), "line 13 follows the seal on line 12"),
    ],
)
def test_a_policy_without_its_seal_is_refused_naming_the_file_and_the_fix(
    tmp_path: Path, text: str, reason: str
) -> None:
    path = tmp_path / "policy.csv"
    path.write_text(text)
    with pytest.raises(PolicyError, match=reason) as caught:
        load(None, path, 1)
    assert str(caught.value).startswith(f"{path}: ")
    assert f"run `taskgate policy seal {path}`" in str(caught.value)


def test_comments_and_blank_lines_may_change_without_a_new_seal_and_seals_may_be_optional(tmp_path: Path) -> None:
    sealed = seal(POLICY)
    path = tmp_path / "policy.csv"
    path.write_text("# who may do what\n\n" + sealed.replace("\ng,", "\n# alice\n\ng,") + "\n\n")
    assert sorted(loaded_rows(path)) == casbin_rows(POLICY)
    path.write_text(POLICY)  # where every writer renames into place, an operator may not require the seal
    assert sorted(loaded_rows_unsealed(path)) == casbin_rows(POLICY)
    path.write_text(sealed[:-20])  # but a seal that is there must match, required or not
    with pytest.raises(PolicyError, match="seal is incomplete"):
        load(None, path, 1, require_seal=False)


def test_the_policy_command_seals_a_file_only_if_it_loads_and_verifies_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "policy.csv"
    path.write_text(seal(POLICY) + EXTRA)  # edited after sealing: the old seal is replaced, not kept
    assert main(["policy", "seal", str(path)]) == 0
    assert "sealed: 12 rows, sha256 " in capsys.readouterr().out
    assert path.read_text().splitlines()[-1].startswith("#! taskgate-seal rows=12 sha256=")
    assert path.read_text().count("#! taskgate-seal") == 1
    assert main(["policy", "verify", str(path)]) == 0
    assert ": ok: 12 rows" in capsys.readouterr().out
    assert list(tmp_path.iterdir()) == [path]  # written by a rename into place: no temporary left behind
    broken = "p, role:x, acme, mail__read, call\n"
    path.write_text(broken)
    assert main(["policy", "seal", str(path)]) == 2
    assert "p row 1 has 4 fields" in capsys.readouterr().err
    assert path.read_text() == broken  # nothing is sealed that would not load
    assert main(["policy", "verify", str(path)]) == 2
    assert "p row 1 has 4 fields" in capsys.readouterr().err  # verify checks the rows of an unsealed file too
    path.write_text(POLICY)
    assert main(["policy", "verify", str(path)]) == 1  # rows that load, but no seal: not served yet
    assert "rows ok: 11 rows load, but the file is not sealed" in capsys.readouterr().err


def test_sealing_a_file_its_writer_still_holds_open_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "policy.csv"
    with path.open("w") as editor:  # an editor that has written whole rows, and is still writing
        editor.write(POLICY.split("p2,")[0])
        editor.flush()
        with pytest.raises(PolicyError, match=r"process \d+ has it open for writing"):
            seal_file(path, settle_s=0.1)
        editor.write("p2" + POLICY.split("p2", 1)[1])
    assert "taskgate-seal" not in path.read_text()  # nothing was sealed: the cut would have dropped the p2 rows
    seal_file(path, settle_s=0.1)  # the writer closed the file: now it seals
    assert sorted(loaded_rows(path)) == casbin_rows(POLICY)


def test_sealing_a_file_that_is_still_changing_is_refused(tmp_path: Path) -> None:
    """A writer that reopens the file for each row (no open handle while sealing looks) is caught by the change."""
    path = tmp_path / "policy.csv"
    lines = POLICY.splitlines(keepends=True)
    path.write_text("".join(lines[:3]))
    stop = False

    def slow_writer() -> None:
        for line in lines[3:]:
            if stop:
                return
            time.sleep(0.05)
            with path.open("a") as out:
                out.write(line)

    thread = threading.Thread(target=slow_writer)
    thread.start()
    try:
        with pytest.raises(PolicyError, match="changed while taskgate watched it"):
            seal_file(path, settle_s=0.3)
    finally:
        stop = True
        thread.join()
    assert "taskgate-seal" not in path.read_text()


async def test_start_up_with_an_unsealed_policy_is_an_error_that_says_how_to_fix_it(
    proxy: Any, keys: Keys, tmp_path: Path
) -> None:
    config = authz_config(keys, tmp_path, "http://127.0.0.1:9")
    (tmp_path / "policy.csv").write_text(POLICY)
    with pytest.raises(
        ConfigError, match=r"step 'authorize' .* refused to start: .*policy\.csv: the policy is not sealed"
    ) as caught:
        await proxy(config)
    assert f"taskgate policy seal {tmp_path / 'policy.csv'}" in str(caught.value)


async def started(proxy: Any, aiohttp_server: Any, keys: Keys, tmp_path: Path) -> tuple[Any, ToolCaller, Any]:
    upstream = ToolCaller()
    server = await aiohttp_server(upstream.app())
    client = await proxy(authz_config(keys, tmp_path, str(server.make_url("")).rstrip("/")))
    return client, upstream, client.app[GATEWAY].services._shared["authz.authorizer"].policy


async def escaped(client: Any, upstream: ToolCaller, keys: Keys) -> bool:
    """Whether a files__read call that every version of the policy denies reached the client."""
    upstream.calls = [ESCAPE]
    tools = [*MAIL_TOOLS, {"type": "function", "function": {"name": "files__read", "parameters": {"type": "object"}}}]
    body = {"model": "m", "messages": [{"role": "user", "content": "summarise my email"}], "tools": tools}
    resp = await client.post("/v1/chat/completions", json=body, headers=bearer(keys))
    assert resp.status == 200, await resp.text()
    return "tool_calls" in (await resp.json())["choices"][0]["message"]


async def test_a_slow_writer_never_has_its_partial_policy_served(
    proxy: Any, aiohttp_server: Any, keys: Keys, tmp_path: Path
) -> None:
    """The file is rewritten in place: p and g rows, a pause, then the p2 rows and the seal."""
    client, upstream, store = await started(proxy, aiohttp_server, keys, tmp_path)
    assert not await escaped(client, upstream, keys)
    full = seal(
        "".join(r + "\n" for r in rows(POLICY + EXTRA) if not r.startswith("p2,"))
        + "".join(r + "\n" for r in rows(POLICY) if r.startswith("p2,"))
    )
    cut = full.index("p2,")
    calls = 0
    with (tmp_path / "policy.csv").open("w") as writer:
        writer.write(full[:cut])
        writer.flush()
        os.fsync(writer.fileno())
        deadline = time.monotonic() + 1.5
        while time.monotonic() < deadline:
            assert not await escaped(client, upstream, keys), f"call {calls} went through a partial policy"
            calls += 1
        assert store.current.generation == 1
        writer.write(full[cut:])
    assert calls > 10
    assert store.reloads["refused"] >= 1  # the partial file was seen, refused, and the old policy kept serving
    for _ in range(100):
        if store.current.generation >= 2:
            break
        await asyncio.sleep(0.05)
    assert store.current.generation == 2, store.reloads
    assert not await escaped(client, upstream, keys)
    assert "mail__send" in [t["function"]["name"] for t in upstream.bodies[-1]["tools"]]  # the new policy serves


async def test_a_refused_file_is_read_again_until_it_loads_even_if_its_timestamp_and_size_stay_the_same(
    proxy: Any, aiohttp_server: Any, keys: Keys, tmp_path: Path
) -> None:
    """Two writes within one tick of the file system's clock leave the same mtime; the complete file still loads."""
    _, _, store = await started(proxy, aiohttp_server, keys, tmp_path)
    path = tmp_path / "policy.csv"
    full = seal(POLICY + EXTRA)
    unfinished = full[:-65] + "0" * 64 + "\n"  # the seal's digest not written yet: same size
    stat = path.stat()
    path.write_text(unfinished)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    for _ in range(100):
        if store.reloads["refused"]:
            break
        await asyncio.sleep(0.05)
    assert store.reloads["refused"] == 1
    written = path.stat()
    path.write_text(full)
    os.utime(path, ns=(written.st_atime_ns, written.st_mtime_ns))
    assert (path.stat().st_mtime_ns, path.stat().st_size) == (written.st_mtime_ns, written.st_size)
    for _ in range(100):
        if store.current.generation >= 2:
            break
        await asyncio.sleep(0.05)
    assert store.current.generation == 2
    assert store.reloads["refused"] == 1  # the unfinished file was refused (and logged) once, not at every check


async def test_a_generation_that_allows_what_the_last_denied_is_named_in_the_log(tmp_path: Path) -> None:
    from structlog.testing import capture_logs

    from taskgate.authz.policy import PolicyStore

    path = tmp_path / "policy.csv"
    path.write_text(seal(POLICY))
    store = PolicyStore(None, path, 0, None, "taskgate:policy")
    loose = POLICY.replace("p2, files__read, *, path, prefix, /home/alice, c-home-only\n", "")
    path.write_text(seal(loose + EXTRA))  # the home-only rule gone, summarise may send mail
    with capture_logs() as logs:
        assert await store.reload()
    widened = next(e for e in logs if e["event"] == "policy_widened")
    assert widened["rows_removed"] == ["p2, files__read, *, path, prefix, /home/alice, c-home-only"]
    assert widened["rows_added"] == [EXTRA.strip()]
    assert not store.current.enforcer.has_policy("files__read", "*", "path", "prefix", "/home/alice", "c-home-only")
    path.write_text(seal(loose))  # only narrows: named as a change, not as a widening
    with capture_logs() as logs:
        assert await store.reload()
    assert [e["event"] for e in logs] == ["policy_reloaded"]
    assert logs[0]["removed"] == [EXTRA.strip()]
