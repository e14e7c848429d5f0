"""A small identity provider on 127.0.0.1 for the tests: its JWKS by URL, and an OAuth 2.1 authorization server.

Real keys and real JWTs. The JWKS answer can be changed while it runs (keys
rotated in and out, a Cache-Control header, an error status) and counts the
requests it gets. The authorization server does what an MCP client needs:
metadata (RFC 8414), dynamic client registration, the authorization code
flow with PKCE (S256), and access tokens for the `resource` the client names
(RFC 8707), unless told to issue them for another audience.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

import jwt
from aiohttp import web
from cryptography.hazmat.primitives.asymmetric import ec
from jwt.algorithms import ECAlgorithm


def ec_key() -> Any:
    return ec.generate_private_key(ec.SECP256R1())


@dataclass
class Idp:
    """Serves `/jwks.json` from `keys` (kid -> private key) and issues tokens signed by `signer`."""

    keys: dict[str, Any] = field(default_factory=lambda: {"idp-1": ec_key()})
    signer: str = "idp-1"
    issuer: str = ""  # set once it listens: http://127.0.0.1:PORT
    jwks_requests: int = 0
    cache_control: str | None = None
    status: int = 200  # what /jwks.json answers with
    delay_s: float = 0.0  # how long /jwks.json takes to answer
    extra: list[dict[str, Any]] = field(default_factory=list)  # further JWKs served as they are
    audience: str | None = None  # issue tokens for this audience instead of the resource asked for
    claims: dict[str, Any] = field(default_factory=lambda: {"tenant": "acme", "roles": ["mail-user"]})
    _codes: dict[str, dict[str, str]] = field(default_factory=dict)

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/jwks.json", self._jwks)
        app.router.add_get("/.well-known/oauth-authorization-server", self._metadata)
        app.router.add_post("/register", self._register)
        app.router.add_get("/authorize", self._authorize)
        app.router.add_post("/token", self._token)
        return app

    def token(self, audience: str, kid: str | None = None, subject: str = "alice", **claims: Any) -> str:
        kid = kid or self.signer
        now = int(time.time())
        body = {"iss": self.issuer, "aud": audience, "sub": subject, "iat": now, "exp": now + 300, **self.claims}
        body.update(claims)
        return jwt.encode(body, self.keys[kid], algorithm="ES256", headers={"kid": kid})

    def jwks(self) -> dict[str, Any]:
        def public(kid: str, key: Any) -> dict[str, Any]:
            return {**ECAlgorithm.to_jwk(key.public_key(), as_dict=True), "kid": kid, "alg": "ES256", "use": "sig"}

        return {"keys": [public(kid, key) for kid, key in self.keys.items()] + self.extra}

    async def _jwks(self, request: web.Request) -> web.Response:
        self.jwks_requests += 1
        await asyncio.sleep(self.delay_s)
        headers = {"Cache-Control": self.cache_control} if self.cache_control else {}
        if self.status != 200:
            return web.json_response({"error": "unavailable"}, status=self.status)
        return web.json_response(self.jwks(), headers=headers)

    async def _metadata(self, request: web.Request) -> web.Response:
        return web.json_response(
            {
                "issuer": self.issuer,
                "authorization_endpoint": f"{self.issuer}/authorize",
                "token_endpoint": f"{self.issuer}/token",
                "registration_endpoint": f"{self.issuer}/register",
                "jwks_uri": f"{self.issuer}/jwks.json",
                "response_types_supported": ["code"],
                "grant_types_supported": ["authorization_code"],
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["none"],
            }
        )

    async def _register(self, request: web.Request) -> web.Response:
        body = await request.json()
        client = {**body, "client_id": secrets.token_urlsafe(8), "token_endpoint_auth_method": "none"}
        return web.json_response(client, status=201)

    async def _authorize(self, request: web.Request) -> web.Response:
        """The user says yes at once: a code bound to the PKCE challenge and the resource asked for."""
        q = request.query
        if q.get("code_challenge_method") != "S256" or "code_challenge" not in q:
            return web.json_response({"error": "invalid_request"}, status=400)
        code = secrets.token_urlsafe(16)
        self._codes[code] = {"challenge": q["code_challenge"], "resource": q.get("resource", "")}
        location = f"{q['redirect_uri']}?code={code}&state={q.get('state', '')}"
        raise web.HTTPFound(location)

    async def _token(self, request: web.Request) -> web.Response:
        form = await request.post()
        grant = self._codes.pop(str(form.get("code")), None)
        verifier = str(form.get("code_verifier", ""))
        digest = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        if grant is None or digest != grant["challenge"] or form.get("resource") != grant["resource"]:
            return web.json_response({"error": "invalid_grant"}, status=400)
        access = self.token(self.audience or grant["resource"])
        return web.json_response({"access_token": access, "token_type": "Bearer", "expires_in": 300})
