"""authz.authenticate with real JWTs: RS256 (PEM), ES256 (JWKS), HS256 (env secret), and every attack refused."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Callable
from typing import Any

import pytest

from taskgate.gateway.gateway import GATEWAY

from ..conftest import StartEngines
from .conftest import HS_SECRET, Keys, jwt_section


async def authed_proxy(proxy: Any, engines: StartEngines, keys: Keys) -> Any:
    started = await engines("e0")
    pool = {"name": "p", "endpoints": [{"name": "e0", "url": started[0][1]}], "models": [{"name": "m"}]}
    return await proxy(
        {
            "routing": {"pools": [pool]},
            "authz": {"jwt": jwt_section(keys)},
            "steps": [{"name": "authn", "type": "authz.authenticate"}],
            "pipelines": {"chat": ["authn", "state", "route"]},
            "logging": {"evidence": False},
        }
    )


async def call(client: Any, token: str | None) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 2}
    return await client.post("/v1/chat/completions", json=body, headers=headers)


@pytest.mark.parametrize(("alg", "kid"), [("RS256", "rsa-1"), ("ES256", "ec-1"), ("HS256", "hs-1"), ("RS256", None)])
async def test_valid_tokens_of_each_algorithm_pass_and_name_the_identity(
    proxy: Any, engines: StartEngines, keys: Keys, alg: str, kid: str | None
) -> None:
    client = await authed_proxy(proxy, engines, keys)
    resp = await call(client, keys.token(alg, kid, roles=["support", "billing"], scope="mail:read tools"))
    assert resp.status == 200, await resp.text()
    record = client.app[GATEWAY].evidence.find(resp.headers["x-taskgate-request-id"])
    identity = record["decisions"]["identity"]
    assert identity["subject"] == "alice"
    assert identity["tenant"] == "acme"
    assert identity["roles"] == ["support", "billing"]
    assert identity["scopes"] == ["mail:read", "tools"]
    assert identity["alg"] == alg


def _none_token() -> str:
    def part(obj: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()

    now = int(time.time())
    claims = {"iss": "https://idp.example", "aud": "taskgate", "sub": "mallory", "tenant": "acme", "exp": now + 300}
    return f"{part({'alg': 'none', 'typ': 'JWT'})}.{part(claims)}."


ATTACKS: dict[str, tuple[Callable[[Keys], str], str]] = {
    "alg none": (lambda k: _none_token(), "token_algorithm_refused"),
    "HS256 signed with the RSA public key (key confusion)": (
        lambda k: _hmac_with(k.rsa_pem.read_bytes(), "rsa-1"),
        "token_unknown_key",
    ),
    "expired": (lambda k: k.token(exp=int(time.time()) - 120, iat=int(time.time()) - 600), "token_expired"),
    "not yet valid": (lambda k: k.token(nbf=int(time.time()) + 600), "token_not_yet_valid"),
    "wrong audience": (lambda k: k.token(aud="someone-else"), "token_wrong_audience"),
    "wrong issuer": (lambda k: k.token(iss="https://evil.example"), "token_wrong_issuer"),
    "bad signature": (lambda k: k.token()[:-6] + "AAAAAA", "token_bad_signature"),
    "signed by another key": (lambda k: _other_rsa_token(), "token_bad_signature"),
    "missing exp": (lambda k: k.token(exp=None), "token_missing_claim"),
    "garbage": (lambda k: "not.a.jwt", "token_malformed"),
    "no tenant": (lambda k: k.token(tenant=None), "token_missing_claim"),
}


def _hmac_with(secret: bytes, kid: str) -> str:
    import hashlib
    import hmac

    def part(obj: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()

    now = int(time.time())
    claims = {"iss": "https://idp.example", "aud": "taskgate", "sub": "mallory", "tenant": "acme", "exp": now + 300}
    signing = f"{part({'alg': 'HS256', 'typ': 'JWT', 'kid': kid})}.{part(claims)}"
    signature = hmac.new(secret, signing.encode(), hashlib.sha256).digest()
    return f"{signing}.{base64.urlsafe_b64encode(signature).rstrip(b'=').decode()}"


def _other_rsa_token() -> str:
    import jwt
    from cryptography.hazmat.primitives.asymmetric import rsa

    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    now = int(time.time())
    claims = {"iss": "https://idp.example", "aud": "taskgate", "sub": "mallory", "tenant": "acme", "exp": now + 300}
    return jwt.encode(claims, other, algorithm="RS256", headers={"kid": "rsa-1"})


@pytest.mark.parametrize("attack", list(ATTACKS))
async def test_every_attack_is_refused_with_a_clear_401_and_evidence(
    proxy: Any, engines: StartEngines, keys: Keys, attack: str
) -> None:
    make, code = ATTACKS[attack]
    client = await authed_proxy(proxy, engines, keys)
    resp = await call(client, make(keys))
    assert resp.status == 401
    assert resp.headers["WWW-Authenticate"].startswith("Bearer")
    error = (await resp.json())["error"]
    assert error["code"] == code, error
    assert error["type"] == "authentication_error"
    record = client.app[GATEWAY].evidence.find(resp.headers["x-taskgate-request-id"])
    assert record["error"]["step"] == "authn"
    assert record["error"]["authentication"]["reason"]
    assert "dispatch" not in record  # nothing was forwarded


async def test_a_missing_or_non_bearer_header_is_refused(proxy: Any, engines: StartEngines, keys: Keys) -> None:
    client = await authed_proxy(proxy, engines, keys)
    assert (await call(client, None)).status == 401
    resp = await client.post(
        "/v1/chat/completions",
        json={"model": "m", "messages": [{"role": "user", "content": "hi"}]},  # a valid body: only the header is wrong
        headers={"Authorization": f"Basic {HS_SECRET}"},
    )
    assert resp.status == 401
    assert (await resp.json())["error"]["code"] == "token_missing"


async def test_config_errors_name_the_key(proxy: Any, keys: Keys, tmp_path: Any) -> None:
    from taskgate.gateway.errors import ConfigError

    section = jwt_section(keys)
    section["keys"][0]["public_key_file"] = str(tmp_path / "missing.pem")
    with pytest.raises(ConfigError, match=r"authz\.jwt\.keys\[0\].*missing\.pem"):
        await proxy({"authz": {"jwt": section}})
