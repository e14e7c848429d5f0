"""taskgate as an OAuth 2.1 resource server for /mcp: a client that meets a 401 finds the protected-resource
metadata (RFC 9728), then the authorization server, and gets a token for the resource (RFC 8707); the official
SDK's OAuth client does the whole dance; a token for another audience is refused."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2
import jwt
import pytest
from mcp import Client, MCPError
from mcp.client.auth import OAuthClientProvider
from mcp.client.auth.utils import build_protected_resource_metadata_discovery_urls, extract_field_from_www_auth
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthMetadata,
    OAuthToken,
    ProtectedResourceMetadata,
)

from taskgate.gateway.config import parse_config
from taskgate.gateway.errors import ConfigError
from taskgate.gateway.gateway import GATEWAY
from taskgate.plugins import Registry
from taskgate.proxy.app import create_app

from ..conftest import closed_port
from .conftest import Keys
from .idp import Idp
from .mcp_servers import files_server, mail_server, serving
from .policy import authz_config
from .upstream import ToolCaller

WELL_KNOWN = "/.well-known/oauth-protected-resource"
CHAT = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
PURPOSE = {"x-taskgate-purpose": "summarise my email"}
INITIALIZE = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}},
}  # fmt: skip


@contextlib.asynccontextmanager
async def world(
    aiohttp_server: Any, aiohttp_client: Any, registry: Registry, keys: Keys, tmp_path: Path, **resource: Any
) -> AsyncIterator[tuple[Any, Idp, str]]:
    """The identity provider, two MCP servers, and taskgate on a port chosen first, so its resource id is its URL."""
    idp = Idp()
    idp.issuer = str((await aiohttp_server(idp.app())).make_url("")).rstrip("/")
    model = str((await aiohttp_server(ToolCaller().app())).make_url("")).rstrip("/")
    port = closed_port()
    mcp_url = f"http://127.0.0.1:{port}/mcp"
    async with serving(mail_server()) as mail, serving(files_server()) as files:
        config = authz_config(keys, tmp_path, model)
        config["authz"]["jwt"] = {"issuer": idp.issuer, "algorithms": ["ES256"], "jwks_url": f"{idp.issuer}/jwks.json"}
        config["authz"]["resource"] = {"id": mcp_url, "scopes_supported": ["mail"], **resource}
        config["mcp"] = {"servers": [{"name": "mail", "url": mail}, {"name": "files", "url": files}]}
        config["pipelines"]["mcp"] = ["authn", "classify", "authorize"]
        app = create_app(parse_config(config, "<test>", registry), registry)
        client = await aiohttp_client(await aiohttp_server(app, port=port))
        yield client, idp, mcp_url
        await client.close()


class Memory:
    """Where the SDK's OAuth client keeps its registration and tokens."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


def oauth(mcp_url: str, storage: Memory) -> OAuthClientProvider:
    """The SDK's OAuth client; its user approves at once (the redirect is read, not followed in a browser)."""
    redirected: list[str] = []

    async def redirect(url: str) -> None:
        async with httpx2.AsyncClient() as http:
            redirected.append((await http.get(url)).headers["location"])

    async def callback() -> AuthorizationCodeResult:
        query = parse_qs(urlsplit(redirected.pop()).query)
        return AuthorizationCodeResult(code=query["code"][0], state=query["state"][0])

    metadata = OAuthClientMetadata(
        client_name="taskgate-test", redirect_uris=["http://127.0.0.1:1/callback"],  # type: ignore[list-item]
        grant_types=["authorization_code"], response_types=["code"], token_endpoint_auth_method="none",
    )  # fmt: skip
    return OAuthClientProvider(mcp_url, metadata, storage, redirect, callback)


async def test_a_client_finds_the_metadata_from_the_401_and_a_token_for_the_resource_is_accepted(
    aiohttp_server: Any, aiohttp_client: Any, registry: Registry, keys: Keys, tmp_path: Path
) -> None:
    async with world(aiohttp_server, aiohttp_client, registry, keys, tmp_path) as (_, idp, mcp_url):
        listing = INITIALIZE
        async with httpx2.AsyncClient() as http:
            refused = await http.post(mcp_url, json=listing, headers={"Accept": "application/json, text/event-stream"})
            assert refused.status_code == 401
            metadata_url = extract_field_from_www_auth(refused, "resource_metadata")
            assert metadata_url == f"{mcp_url.removesuffix('/mcp')}{WELL_KNOWN}/mcp"  # absolute, path-suffixed
            assert extract_field_from_www_auth(refused, "error") == "invalid_request"  # no token: say send one
            assert build_protected_resource_metadata_discovery_urls(metadata_url, mcp_url)[0] == metadata_url
            prm = ProtectedResourceMetadata.model_validate_json((await http.get(metadata_url)).content)
            assert str(prm.resource) == mcp_url
            assert [str(s) for s in prm.authorization_servers] == [idp.issuer]  # jwt.issuer, by default
            assert (prm.scopes_supported, prm.bearer_methods_supported) == (["mail"], ["header"])
            assert str(prm.jwks_uri) == mcp_url.removesuffix("/mcp") + "/.well-known/jwks.json"
            found = await http.get(f"{prm.authorization_servers[0]}/.well-known/oauth-authorization-server")
            assert str(OAuthMetadata.model_validate_json(found.content).issuer) == idp.issuer

        async with connected(mcp_url, {"Authorization": f"Bearer {idp.token(mcp_url)}", **PURPOSE}) as mcp:
            names = sorted(t.name for t in (await mcp.list_tools()).tools)
        assert names == ["files__read", "mail__list", "mail__read"]

        async with httpx2.AsyncClient() as http:  # the same caller, a token the provider issued for another resource
            headers = {"Authorization": f"Bearer {idp.token('https://other.example/mcp')}", **PURPOSE}
            wrong = await http.post(
                mcp_url, json=listing, headers={**headers, "Accept": "application/json, text/event-stream"}
            )
        assert wrong.status_code == 401
        assert extract_field_from_www_auth(wrong, "resource_metadata") == metadata_url
        assert extract_field_from_www_auth(wrong, "error") == "invalid_token"
        assert wrong.json()["error"]["data"]["reason"] == "token_wrong_audience"


@contextlib.asynccontextmanager
async def connected(url: str, headers: dict[str, str], auth: Any = None) -> AsyncIterator[Client]:
    async with (
        httpx2.AsyncClient(headers=headers, auth=auth) as http,
        Client(streamable_http_client(url, http_client=http)) as mcp,
    ):
        yield mcp


async def test_the_sdk_oauth_client_discovers_registers_and_gets_a_token_for_the_resource(
    aiohttp_server: Any, aiohttp_client: Any, registry: Registry, keys: Keys, tmp_path: Path
) -> None:
    async with world(aiohttp_server, aiohttp_client, registry, keys, tmp_path) as (_, _, mcp_url):
        storage = Memory()
        async with connected(mcp_url, PURPOSE, oauth(mcp_url, storage)) as mcp:
            names = sorted(t.name for t in (await mcp.list_tools()).tools)
    assert names == ["files__read", "mail__list", "mail__read"]
    assert storage.tokens is not None
    assert jwt.decode(storage.tokens.access_token, options={"verify_signature": False})["aud"] == mcp_url


async def test_the_sdk_oauth_client_with_a_token_for_another_audience_gets_nowhere(
    aiohttp_server: Any, aiohttp_client: Any, registry: Registry, keys: Keys, tmp_path: Path
) -> None:
    async with world(aiohttp_server, aiohttp_client, registry, keys, tmp_path) as (client, idp, mcp_url):
        idp.audience = "https://other.example/mcp"  # a provider that ignores the resource asked for
        with pytest.raises(ExceptionGroup) as refused:  # the SDK's task groups wrap the refusal of its retry
            async with connected(mcp_url, PURPOSE, oauth(mcp_url, Memory())) as mcp:
                await mcp.list_tools()
        errors = [r["error"] for r in client.app[GATEWAY].evidence.records() if r.get("error")]
    assert refused.group_contains(MCPError, match="not meant for this gateway")
    assert errors[-1]["code"] == "token_wrong_audience"
    assert "https://other.example/mcp" not in errors[-1]["message"]


async def test_the_metadata_is_served_at_both_well_known_paths_and_every_401_points_to_it(
    aiohttp_server: Any, aiohttp_client: Any, registry: Registry, keys: Keys, tmp_path: Path
) -> None:
    async with world(
        aiohttp_server, aiohttp_client, registry, keys, tmp_path, authorization_servers=["https://as.example"]
    ) as (client, _, mcp_url):
        documents = [await (await client.get(path)).json() for path in (WELL_KNOWN, f"{WELL_KNOWN}/mcp")]
        chat = await client.post("/v1/chat/completions", json=CHAT)  # no token
        bad = await client.post("/v1/chat/completions", json=CHAT, headers={"Authorization": "Bearer x.y.z"})
    assert documents[0] == documents[1]
    assert documents[0]["resource"] == mcp_url
    assert documents[0]["authorization_servers"] == ["https://as.example"]
    challenge = f'resource_metadata="{mcp_url.removesuffix("/mcp")}{WELL_KNOWN}/mcp"'
    assert chat.status == 401
    missing = 'error="invalid_request", error_description="send a bearer token in the Authorization header"'
    assert chat.headers["WWW-Authenticate"] == f"Bearer {challenge}, {missing}"
    assert bad.status == 401
    assert bad.headers["WWW-Authenticate"].startswith(f'Bearer {challenge}, error="invalid_token", error_description=')


async def test_without_a_resource_there_is_no_metadata_and_a_challenge_still_says_what_to_send(
    proxy: Any, aiohttp_server: Any, keys: Keys, tmp_path: Path
) -> None:
    model = str((await aiohttp_server(ToolCaller().app())).make_url("")).rstrip("/")
    client = await proxy(authz_config(keys, tmp_path, model))
    assert (await client.get(WELL_KNOWN)).status == 404
    resp = await client.post("/v1/chat/completions", json=CHAT)
    assert resp.headers["WWW-Authenticate"] == (
        'Bearer error="invalid_request", error_description="send a bearer token in the Authorization header"'
    )


@pytest.mark.parametrize(
    ("resource", "audience", "match"),
    [
        ({"id": "https://gw.example/mcp"}, "taskgate", r"jwt\.audience \('taskgate'\) must be resource\.id"),
        ({"id": "/mcp"}, None, r"resource\.id.*absolute http\(s\) URL"),
        ({"id": "https://gw.example/mcp#top"}, None, r"resource\.id.*no fragment"),
        ({"id": "https://GW.example/mcp"}, None, r"resource\.id.*lower case"),
        (None, None, r"authz\.jwt.*give `audience`"),
    ],
)
async def test_the_resource_id_and_the_audience_are_one_value(
    proxy: Any, keys: Keys, tmp_path: Path, resource: dict[str, Any] | None, audience: str | None, match: str
) -> None:
    config = authz_config(keys, tmp_path, "http://127.0.0.1:9")
    section = config["authz"]["jwt"]
    section.pop("audience")
    if audience is not None:
        section["audience"] = audience
    if resource is not None:
        config["authz"]["resource"] = resource
    with pytest.raises(ConfigError, match=match):
        await proxy(config)


async def test_a_resource_needs_the_jwt_section(proxy: Any) -> None:
    with pytest.raises(ConfigError, match="resource needs the `jwt` section"):
        await proxy({"authz": {"resource": {"id": "https://gw.example/mcp"}}})
