"""authz.jwt.jwks_url against a real identity provider on 127.0.0.1: keys fetched on the event loop, a new kid
fetched once (a flood of made-up ones not at all), rotated keys picked up and removed ones dropped, a provider
that is down or slow failing closed."""

from __future__ import annotations

import asyncio
import secrets
import time
from typing import Any

import jwt
import pytest

from taskgate.gateway.gateway import GATEWAY

from ..conftest import StartEngines
from .idp import Idp, ec_key

AUDIENCE = "taskgate"


async def start_idp(aiohttp_server: Any, idp: Idp | None = None) -> tuple[Idp, Any]:
    idp = idp or Idp()
    server = await aiohttp_server(idp.app())
    idp.issuer = str(server.make_url("")).rstrip("/")
    return idp, server


async def gateway(proxy: Any, engines: StartEngines, idp: Idp, **jwt_section: Any) -> Any:
    started = await engines("e0")
    pool = {"name": "p", "endpoints": [{"name": "e0", "url": started[0][1]}], "models": [{"name": "m"}]}
    section = {
        "issuer": idp.issuer,
        "audience": AUDIENCE,
        "algorithms": ["ES256"],
        "jwks_url": f"{idp.issuer}/jwks.json",
    }
    return await proxy(
        {
            "routing": {"pools": [pool]},
            "authz": {"jwt": {**section, **jwt_section}},
            "steps": [{"name": "authn", "type": "authz.authenticate"}],
            "pipelines": {"chat": ["authn", "state", "route"]},
            "logging": {"evidence": False},
        }
    )


async def call(client: Any, token: str) -> Any:
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 2}
    return await client.post("/v1/chat/completions", json=body, headers={"Authorization": f"Bearer {token}"})


async def refusal(client: Any, resp: Any) -> tuple[int, str, str]:
    """Status, code, and the reason the evidence gives."""
    record = client.app[GATEWAY].evidence.find(resp.headers["x-taskgate-request-id"])
    assert "dispatch" not in record  # nothing was forwarded
    return resp.status, (await resp.json())["error"]["code"], record["error"]["authentication"]["reason"]


async def test_keys_are_fetched_once_as_taskgate_starts_and_then_verify_tokens(
    proxy: Any, engines: StartEngines, aiohttp_server: Any
) -> None:
    idp, _ = await start_idp(aiohttp_server)
    client = await gateway(proxy, engines, idp)
    assert idp.jwks_requests == 1
    for _ in range(3):
        assert (await call(client, idp.token(AUDIENCE, subject=f"user-{secrets.token_hex(2)}"))).status == 200
    assert idp.jwks_requests == 1  # within its time the set is not fetched again


async def test_a_new_kid_is_fetched_once_and_a_flood_of_unknown_kids_costs_nothing(
    proxy: Any, engines: StartEngines, aiohttp_server: Any
) -> None:
    idp, _ = await start_idp(aiohttp_server)
    client = await gateway(proxy, engines, idp, jwks_refetch_interval_s=60)
    idp.keys["idp-2"] = ec_key()  # the provider rotates a key in
    assert (await call(client, idp.token(AUDIENCE, kid="idp-2"))).status == 200
    assert idp.jwks_requests == 2

    def forged(i: int) -> str:
        now = int(time.time())
        claims = {"iss": idp.issuer, "aud": AUDIENCE, "sub": "mallory", "tenant": "acme", "exp": now + 60}
        return jwt.encode(claims, ec_key(), algorithm="ES256", headers={"kid": f"made-up-{i}"})

    answers = await asyncio.gather(*(call(client, forged(i)) for i in range(50)))
    assert {(await refusal(client, r))[:2] for r in answers} == {(401, "token_unknown_key")}
    assert idp.jwks_requests == 2  # one refetch per interval, and it was spent on idp-2
    idp.keys["idp-3"] = ec_key()
    resp = await call(client, idp.token(AUDIENCE, kid="idp-3"))  # a real new key waits for the interval too
    assert (await refusal(client, resp))[:2] == (401, "token_unknown_key")
    assert idp.jwks_requests == 2


async def test_a_removed_key_is_dropped_when_the_set_is_fetched_again(
    proxy: Any, engines: StartEngines, aiohttp_server: Any
) -> None:
    idp, _ = await start_idp(aiohttp_server)
    client = await gateway(proxy, engines, idp, jwks_ttl_s=0.5, jwks_refetch_interval_s=0.1)
    old = idp.token(AUDIENCE)
    assert (await call(client, old)).status == 200  # and remembered as verified
    idp.keys = {"idp-2": ec_key()}
    idp.signer = "idp-2"
    await asyncio.sleep(0.6)
    resp = await call(client, old)  # remembered, but the key that verified it is gone: checked again, refused
    status, code, reason = await refusal(client, resp)
    assert (status, code) == (401, "token_unknown_key")
    assert "idp-1" in reason
    assert (await call(client, idp.token(AUDIENCE))).status == 200


@pytest.mark.parametrize(("cache_control", "fetches"), [("max-age=1", 2), (None, 1)])
async def test_the_answers_max_age_shortens_the_sets_life(
    proxy: Any, engines: StartEngines, aiohttp_server: Any, cache_control: str | None, fetches: int
) -> None:
    idp, _ = await start_idp(aiohttp_server, Idp(cache_control=cache_control))
    client = await gateway(proxy, engines, idp, jwks_ttl_s=600, jwks_refetch_interval_s=0.1)
    await asyncio.sleep(1.2)
    assert (await call(client, idp.token(AUDIENCE))).status == 200
    assert idp.jwks_requests == fetches


async def test_a_provider_that_is_down_fails_closed_and_is_not_hammered(
    proxy: Any, engines: StartEngines, aiohttp_server: Any
) -> None:
    idp, server = await start_idp(aiohttp_server, Idp(status=503))
    client = await gateway(proxy, engines, idp, jwks_ttl_s=0.5, jwks_refetch_interval_s=0.1)
    token = idp.token(AUDIENCE)
    answers = [await call(client, token) for _ in range(5)]
    for resp in answers:
        status, code, reason = await refusal(client, resp)
        assert (status, code) == (503, "token_keys_unavailable")
        assert resp.headers["Retry-After"] == "2"
        assert "HTTP 503" in reason
    assert idp.jwks_requests == 1  # the start-up fetch; the next waits two seconds
    idp.status = 200
    await asyncio.sleep(2.1)
    assert (await call(client, token)).status == 200  # the provider is back: so is taskgate
    await server.close()
    await asyncio.sleep(0.6)
    status, code, reason = await refusal(client, await call(client, token))  # remembered, but its set is stale
    assert (status, code) == (503, "token_keys_unavailable")
    assert "ClientConnectorError" in reason


async def test_a_slow_provider_times_out_closed(proxy: Any, engines: StartEngines, aiohttp_server: Any) -> None:
    idp, _ = await start_idp(aiohttp_server, Idp(delay_s=1.0))
    client = await gateway(proxy, engines, idp, jwks_timeout_s=0.2)
    status, code, reason = await refusal(client, await call(client, idp.token(AUDIENCE)))
    assert (status, code) == (503, "token_keys_unavailable")
    assert "TimeoutError" in reason


async def test_fetching_keys_never_blocks_the_event_loop(
    proxy: Any, engines: StartEngines, aiohttp_server: Any
) -> None:
    idp, _ = await start_idp(aiohttp_server)
    client = await gateway(proxy, engines, idp)
    idp.keys["idp-2"] = ec_key()
    idp.delay_s = 1.0  # the provider, in this same event loop, takes a second to answer
    started = time.monotonic()
    pending = asyncio.ensure_future(call(client, idp.token(AUDIENCE, kid="idp-2")))
    await asyncio.sleep(0.1)
    for _ in range(3):
        assert (await client.get("/healthz")).status == 200
    assert time.monotonic() - started < 0.8  # answered while the fetch was in flight
    assert not pending.done()
    assert (await pending).status == 200


async def test_secrets_in_a_fetched_set_are_never_used(
    proxy: Any, engines: StartEngines, aiohttp_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "a-published-hmac-secret-is-no-secret-at-all"
    oct_key = {"kty": "oct", "kid": "oct-1", "alg": "HS256", "k": jwt.utils.base64url_encode(secret.encode()).decode()}
    idp, _ = await start_idp(aiohttp_server, Idp(extra=[oct_key]))
    monkeypatch.setenv("IDP_HS_SECRET", "a-configured-hmac-secret-of-32-characters")
    hs = {"kid": "hs-1", "algorithm": "HS256", "secret_env": "IDP_HS_SECRET"}
    client = await gateway(proxy, engines, idp, algorithms=["ES256", "HS256"], keys=[hs])
    now = int(time.time())
    claims = {"iss": idp.issuer, "aud": AUDIENCE, "sub": "mallory", "tenant": "acme", "exp": now + 60}
    resp = await call(client, jwt.encode(claims, secret, algorithm="HS256", headers={"kid": "oct-1"}))
    assert (await refusal(client, resp))[:2] == (401, "token_unknown_key")
