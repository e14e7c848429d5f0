"""Task tokens others can verify: signed with keys that have a kid (ES256 by default, EdDSA, HS256 by config),
published at taskgate's JWKS and checked by a process of its own with PyJWT; rotated keys keep their tokens valid
until they are removed."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from structlog.testing import capture_logs

from taskgate.gateway.errors import ConfigError

from ..conftest import RedisServer
from .conftest import Keys
from .policy import authz_config, task_key
from .test_tasks import ask, bearer
from .upstream import ToolCaller

VERIFIER = Path(__file__).with_name("offline_verifier.py")
TYPE = "taskgate-task-token+jwt"


async def gateway(proxy: Any, aiohttp_server: Any, callers: Keys, tmp_path: Path, **tasks: Any) -> Any:
    """taskgate with `tasks` as its authz.tasks section (`keys` there: the task keys; `callers`: the callers')."""
    url = str((await aiohttp_server(ToolCaller().app())).make_url("")).rstrip("/")
    config = authz_config(callers, tmp_path, url)
    config["authz"]["tasks"] = tasks
    return await proxy(config)


async def open_task(client: Any, keys: Keys) -> str:
    resp = await client.post("/v1/chat/completions", json=ask("summarise my email"), headers=bearer(keys))
    assert resp.status == 200, await resp.text()
    return str(resp.headers["x-taskgate-task-token"])


async def present(client: Any, keys: Keys, token: str) -> Any:
    headers = bearer(keys, **{"x-taskgate-task-token": token})
    return await client.post("/v1/chat/completions", json=ask("more"), headers=headers)


async def offline(client: Any, token: str) -> tuple[int, dict[str, Any]]:
    """What a tool server makes of `token` with nothing but PyJWT and taskgate's JWKS, fetched over HTTP."""
    jwks_url = str(client.make_url("/.well-known/jwks.json"))
    proc = await asyncio.create_subprocess_exec(
        sys.executable, str(VERIFIER), jwks_url, token, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await asyncio.wait_for(proc.communicate(), timeout=30)
    assert proc.returncode is not None
    assert out, err.decode()
    return proc.returncode, json.loads(out)


def public_key_file(tmp_path: Path, key: dict[str, Any]) -> dict[str, Any]:
    """The same key as a retired one: only its public half, which verifies and cannot sign."""
    private = serialization.load_pem_private_key(Path(key["private_key_file"]).read_bytes(), password=None)
    path = tmp_path / f"{key['kid']}.pub.pem"
    path.write_bytes(
        private.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    )
    return {"kid": key["kid"], "algorithm": key["algorithm"], "public_key_file": str(path)}


def one_line_pem(key: dict[str, Any]) -> str:
    """The key's PEM on one line, `\\n` for its newlines, as many secret stores hold it."""
    return Path(key["private_key_file"]).read_text().replace("\n", "\\n")


@pytest.mark.parametrize("algorithm", ["ES256", "EdDSA"])
async def test_a_task_token_is_verified_by_another_process_from_the_published_keys(
    proxy: Any, aiohttp_server: Any, keys: Keys, tmp_path: Path, algorithm: str
) -> None:
    client = await gateway(proxy, aiohttp_server, keys, tmp_path, keys=[task_key(tmp_path, "k-1", algorithm)])
    token = await open_task(client, keys)
    header = jwt.get_unverified_header(token)
    assert (header["alg"], header["kid"], header["typ"]) == (algorithm, "k-1", TYPE)
    code, claims = await offline(client, token)
    assert code == 0, claims
    assert (claims["sub"], claims["tenant"], claims["profile"], claims["aud"]) == (
        "alice", "acme", "summarise", "taskgate-task"
    )  # fmt: skip
    forged = token.rsplit(".", 1)[0] + "." + jwt.utils.base64url_encode(b"\0" * 64).decode()
    code, refused = await offline(client, forged)
    assert code == 1
    assert "InvalidSignatureError" in refused["refused"]


async def test_one_jwks_publishes_the_task_keys_and_the_assertion_key(
    proxy: Any, aiohttp_server: Any, keys: Keys, tmp_path: Path
) -> None:
    ring = [task_key(tmp_path, "new"), task_key(tmp_path, "old", "EdDSA")]
    client = await gateway(proxy, aiohttp_server, keys, tmp_path, keys=ring)
    resp = await client.get("/.well-known/jwks.json")
    assert resp.headers["Cache-Control"] == "public, max-age=300"
    published = {k["kid"]: k for k in (await resp.json())["keys"]}
    assert {k: (v["kty"], v["alg"], v["use"]) for k, v in published.items() if k in ("new", "old")} == {
        "new": ("EC", "ES256", "sig"), "old": ("OKP", "EdDSA", "sig")
    }  # fmt: skip
    assert len(published) == 3  # and the per-task assertions' key, under its thumbprint
    assert not any("d" in k for k in published.values())  # public halves only
    assert jwt.get_unverified_header(await open_task(client, keys))["kid"] == "new"  # the first key signs


def resigned(token: str, key: dict[str, Any], typ: str) -> str:
    """The token's own claims and kid, signed again with its own key under another `typ`."""
    private = serialization.load_pem_private_key(Path(key["private_key_file"]).read_bytes(), password=None)
    claims = jwt.decode(token, options={"verify_signature": False})
    return jwt.encode(claims, private, algorithm="ES256", headers={"kid": key["kid"], "typ": typ})  # type: ignore[arg-type]


async def test_only_a_token_typed_as_a_task_token_is_one(
    proxy: Any, aiohttp_server: Any, keys: Keys, tmp_path: Path
) -> None:
    key = task_key(tmp_path, "k-1")
    client = await gateway(proxy, aiohttp_server, keys, tmp_path, keys=[key])
    token = await open_task(client, keys)
    assert (await present(client, keys, resigned(token, key, TYPE))).status == 200  # the same token, signed again
    resp = await present(client, keys, resigned(token, key, "taskgate-task+jwt"))  # typed as a per-task assertion
    assert resp.status == 401
    assert (await resp.json())["error"]["code"] == "task_token_invalid"


async def test_hs256_task_keys_still_sign_but_are_never_published(
    proxy: Any, aiohttp_server: Any, keys: Keys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TASK_HMAC", "a-task-hmac-secret-of-thirty-two-chars!")
    hs = {"kid": "hs", "algorithm": "HS256", "secret_env": "TASK_HMAC"}
    client = await gateway(proxy, aiohttp_server, keys, tmp_path, keys=[hs])
    token = await open_task(client, keys)
    assert jwt.get_unverified_header(token)["alg"] == "HS256"
    assert (await present(client, keys, token)).status == 200
    published = (await (await client.get("/.well-known/jwks.json")).json())["keys"]
    assert [k["kty"] for k in published] == ["EC"]  # the assertion key; a secret is never served
    code, refused = await offline(client, token)
    assert code == 1
    assert "Unable to find a signing key" in refused["refused"]


async def test_signing_secret_env_is_one_hs256_key(proxy: Any, aiohttp_server: Any, keys: Keys, tmp_path: Path) -> None:
    client = await gateway(proxy, aiohttp_server, keys, tmp_path, signing_secret_env="TASKGATE_TASK_KEY")
    token = await open_task(client, keys)
    assert jwt.get_unverified_header(token)["kid"] == "hs256"
    assert (await present(client, keys, token)).status == 200


async def test_a_rotated_key_keeps_its_tokens_valid_and_a_removed_key_invalidates_them(
    proxy: Any, aiohttp_server: Any, keys: Keys, tmp_path: Path, redis_server: RedisServer
) -> None:
    store = {"store": "redis", "redis_url": redis_server.url}  # tasks outlive each process below
    old, new = task_key(tmp_path, "2025-01"), task_key(tmp_path, "2025-06")
    before = await gateway(proxy, aiohttp_server, keys, tmp_path, keys=[old], **store)
    old_token = await open_task(before, keys)

    rotated = await gateway(
        proxy, aiohttp_server, keys, tmp_path, keys=[new, public_key_file(tmp_path, old)], **store
    )  # the new key signs; the old one, public half only, still verifies
    assert (await present(rotated, keys, old_token)).status == 200
    new_token = await open_task(rotated, keys)
    assert jwt.get_unverified_header(new_token)["kid"] == "2025-06"
    assert (await offline(rotated, old_token))[0] == 0
    assert (await offline(rotated, new_token))[0] == 0
    lapsed = _expired_copy(old_token, Path(old["private_key_file"]))  # the old key's token, once its time is up
    resp = await present(rotated, keys, lapsed)
    assert resp.status == 401
    assert "expired" in (await resp.json())["error"]["message"]
    assert (await offline(rotated, lapsed))[0] == 1

    removed = await gateway(proxy, aiohttp_server, keys, tmp_path, keys=[new], **store)
    resp = await present(removed, keys, old_token)
    assert resp.status == 401
    error = (await resp.json())["error"]
    assert error["code"] == "task_token_invalid"
    assert "no longer accepts" in error["message"]
    assert (await present(removed, keys, new_token)).status == 200
    code, refused = await offline(removed, old_token)
    assert code == 1
    assert "Unable to find a signing key" in refused["refused"]


async def test_without_configured_keys_each_process_makes_its_own_and_says_so(
    proxy: Any, aiohttp_server: Any, keys: Keys, tmp_path: Path, redis_server: RedisServer
) -> None:
    store = {"store": "redis", "redis_url": redis_server.url}
    with capture_logs() as logs:
        first = await gateway(proxy, aiohttp_server, keys, tmp_path, **store)
    made = [e for e in logs if e["event"] == "task_key_ephemeral"]
    assert made
    assert "authz.tasks.keys" in made[0]["effect"]
    second = await gateway(proxy, aiohttp_server, keys, tmp_path, **store)
    token = await open_task(first, keys)
    assert jwt.get_unverified_header(token)["alg"] == "ES256"
    assert (await present(first, keys, token)).status == 200
    resp = await present(second, keys, token)  # a replica cannot check what another one made up: refused, not let by
    assert resp.status == 401
    assert (await resp.json())["error"]["code"] == "task_token_invalid"


@pytest.mark.parametrize(
    ("tasks", "match"),
    [
        (lambda p: {"keys": [task_key(p, "a"), task_key(p, "a")]}, r"keys\[1\]\.kid: 'a' is used twice"),
        (lambda p: {"keys": [task_key(p, "a")], "signer": "b"}, r"signer: no key has the kid 'b'"),
        (lambda p: {"keys": [public_key_file(p, task_key(p, "a"))]}, r"signer: key 'a' has only a public_key_file"),
        (lambda p: {"keys": [task_key(p, "a")], "signing_secret_env": "TASKGATE_TASK_KEY"}, "not both"),
        (lambda p: {"keys": [{**task_key(p, "ed", "EdDSA"), "algorithm": "ES256"}]}, r"keys\[0\].*EC P-256"),
        (lambda p: {"keys": [{"kid": "x", "private_key_env": "NO_SUCH_PEM"}]}, r"keys\[0\].*not set"),
        (lambda p: {"keys": [{"kid": "x", "private_key_file": str(p / "none.pem")}]}, r"keys\[0\].*cannot read"),
        (lambda p: {"keys": [{"kid": "x", "algorithm": "HS256", "private_key_file": "k.pem"}]}, "secret_env"),
        (lambda p: {"keys": [{"kid": "no spaces", "private_key_file": "k.pem"}]}, r"keys\[0\]\.kid"),
    ],
)
async def test_task_key_config_errors_name_the_key_and_the_fix(
    proxy: Any, keys: Keys, tmp_path: Path, tasks: Any, match: str
) -> None:
    config = authz_config(keys, tmp_path, "http://127.0.0.1:9")
    config["authz"]["tasks"] = tasks(tmp_path)
    with pytest.raises(ConfigError, match=r"authz\.tasks.*" + match):
        await proxy(config)


async def test_a_key_from_the_environment_signs(
    proxy: Any, aiohttp_server: Any, keys: Keys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TASK_PEM", one_line_pem(task_key(tmp_path, "env-key", "EdDSA")))
    client = await gateway(
        proxy,
        aiohttp_server,
        keys,
        tmp_path,
        keys=[{"kid": "env-key", "algorithm": "EdDSA", "private_key_env": "TASK_PEM"}],
    )
    token = await open_task(client, keys)
    assert jwt.get_unverified_header(token)["kid"] == "env-key"
    assert (await offline(client, token))[0] == 0


def _expired_copy(token: str, pem: Path) -> str:
    """`token` as its key would have signed it with its time run out: its claims, `exp` a minute past."""
    claims = jwt.decode(token, options={"verify_signature": False})
    claims["exp"] = claims["iat"] - 60 if claims.get("iat") else 1
    header = jwt.get_unverified_header(token)
    return jwt.encode(
        claims, pem.read_bytes(), algorithm=header["alg"], headers={"kid": header["kid"], "typ": header.get("typ")}
    )
