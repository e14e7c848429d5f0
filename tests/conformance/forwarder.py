"""A pass-through HTTP proxy that adds a caller's bearer token: the conformance suite's client sends none.

    python -m tests.conformance.forwarder --port 9100 --to http://127.0.0.1:8080 --bearer-env CALLER_TOKEN

forwards every request to the same path under --to, Host and Origin as the
client sent them (so taskgate sees what a client sent, DNS-rebinding probes
included), with `Authorization: Bearer $CALLER_TOKEN` unless the request
carries an Authorization of its own. Answers stream back chunk by chunk, so SSE
passes as it is produced.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import AsyncIterator

import aiohttp
from aiohttp import web

# RFC 9110 7.6.1 hop-by-hop fields, plus those aiohttp sets itself
HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "content-length",
        "accept-encoding",  # ask for identity, so the body passes untouched
    }
)
TARGET = web.AppKey("target", str)
BEARER = web.AppKey("bearer", str)
SESSION = web.AppKey("session", aiohttp.ClientSession)


async def forward(request: web.Request) -> web.StreamResponse:
    headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP_BY_HOP}
    if "authorization" not in {k.lower() for k in headers}:
        headers["Authorization"] = f"Bearer {request.app[BEARER]}"
    body = await request.read()
    url = request.app[TARGET] + request.rel_url.path_qs
    async with request.app[SESSION].request(
        request.method, url, headers=headers, data=body or None, allow_redirects=False
    ) as upstream:
        response = web.StreamResponse(status=upstream.status, reason=upstream.reason)
        for key, value in upstream.headers.items():
            if key.lower() not in HOP_BY_HOP:
                response.headers.add(key, value)
        await response.prepare(request)
        async for chunk in upstream.content.iter_any():
            await response.write(chunk)
        await response.write_eof()
        return response


def app(target: str, bearer: str) -> web.Application:
    application = web.Application()
    application[TARGET] = target.rstrip("/")
    application[BEARER] = bearer

    async def client(application: web.Application) -> AsyncIterator[None]:
        timeout = aiohttp.ClientTimeout(total=None, sock_connect=10, sock_read=None)
        async with aiohttp.ClientSession(timeout=timeout, auto_decompress=False) as session:
            application[SESSION] = session
            yield

    application.cleanup_ctx.append(client)
    application.router.add_route("*", "/{tail:.*}", forward)
    return application


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Forward HTTP to --to, adding a bearer token.")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--to", required=True, help="base URL to forward to")
    parser.add_argument("--bearer-env", required=True, help="the environment variable holding the token")
    options = parser.parse_args(argv)
    web.run_app(app(options.to, os.environ[options.bearer_env]), host="127.0.0.1", port=options.port, print=None)


if __name__ == "__main__":
    main()
