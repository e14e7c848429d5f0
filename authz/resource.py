"""taskgate as an OAuth 2.1 resource server, as MCP's authorization spec asks: its id and its metadata (RFC 9728).

The resource id (`authz.resource.id`, the URL clients reach `/mcp` at) is the
audience callers' tokens must carry (RFC 8707), so a token an authorization
server issued for another resource is refused. Its metadata is served at
`/.well-known/oauth-protected-resource` followed by the id's path
(`/.well-known/oauth-protected-resource/mcp`) and at the bare well-known path,
and every 401 of the authenticate step points to it in `WWW-Authenticate`
(`resource_metadata`), so a client that meets a 401 finds where to get a token.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from aiohttp import web
from pydantic import Field, field_validator

from taskgate.plugins import Params

WELL_KNOWN = "/.well-known/oauth-protected-resource"
JWKS_PATH = "/.well-known/jwks.json"


class ResourceConfig(Params):
    """What the protected-resource metadata says; the authorization servers default to `jwt.issuer`."""

    id: str  # the resource identifier: https://gateway.example/mcp
    authorization_servers: list[str] | None = Field(default=None, min_length=1)
    scopes_supported: list[str] = Field(default_factory=list)
    resource_name: str | None = None
    resource_documentation: str | None = None

    @field_validator("id")
    @classmethod
    def _absolute(cls, value: str) -> str:
        parts = urlsplit(value)
        if parts.scheme not in ("https", "http") or not parts.hostname:
            raise ValueError(f"{value!r} must be an absolute http(s) URL: where clients reach /mcp")
        if parts.fragment or parts.query or parts.username or parts.password:
            raise ValueError(f"{value!r}: a resource id has no fragment, query or user (RFC 8707)")
        if parts.netloc != parts.netloc.lower() or not value.startswith(parts.scheme + "://"):
            raise ValueError(f"{value!r}: write the scheme and host in lower case (tokens name the resource exactly)")
        return value

    @property
    def origin(self) -> str:
        parts = urlsplit(self.id)
        return f"{parts.scheme}://{parts.netloc}"

    @property
    def metadata_url(self) -> str:
        """Where the metadata is (RFC 9728 section 3.1): the well-known path, then the resource's own path."""
        return self.origin + WELL_KNOWN + urlsplit(self.id).path.rstrip("/")

    def document(self, issuers: list[str], jwks: bool) -> dict[str, Any]:
        body: dict[str, Any] = {
            "resource": self.id,
            "authorization_servers": self.authorization_servers or issuers,
            "bearer_methods_supported": ["header"],
        }
        if self.scopes_supported:
            body["scopes_supported"] = self.scopes_supported
        if jwks:  # taskgate's own keys: what its task tokens and per-task assertions are checked with
            body["jwks_uri"] = self.origin + JWKS_PATH
        for name in ("resource_name", "resource_documentation"):
            if getattr(self, name) is not None:
                body[name] = getattr(self, name)
        return body


def challenge(metadata_url: str | None, error: str | None, description: str | None) -> str:
    """A Bearer challenge (RFC 6750 section 3, RFC 9728 section 5.1): the metadata's URL, the error and what to do."""
    params = [f'resource_metadata="{metadata_url}"'] if metadata_url else []
    if error:
        params += [f'error="{error}"', f'error_description="{description}"']
    return "Bearer " + ", ".join(params) if params else "Bearer"


def add_routes(app: web.Application, config: ResourceConfig, issuers: list[str], jwks: bool) -> None:
    """Serve the metadata at the path-suffixed well-known path, at the bare one, and at `/mcp`'s."""
    body = config.document(issuers, jwks)

    async def metadata(request: web.Request) -> web.Response:
        return web.json_response(body, headers={"Cache-Control": "public, max-age=300"})

    paths = dict.fromkeys((urlsplit(config.metadata_url).path, WELL_KNOWN, WELL_KNOWN + "/mcp"))
    for path in paths:
        app.router.add_get(path, metadata)
