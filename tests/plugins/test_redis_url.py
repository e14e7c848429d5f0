"""The one way rooms reach Redis: both URL forms parsed, a malformed one a config error naming its key, a client
that works against a real server."""

from __future__ import annotations

from typing import Any

import pytest

from taskgate.gateway.config import parse_config
from taskgate.gateway.errors import ConfigError
from taskgate.plugins import Registry
from taskgate.plugins.redis import SentinelUrl, check_url, connect, parse_sentinel, redacted

from ..conftest import RedisServer


def test_the_sentinel_form_names_its_sentinels_service_database_and_login() -> None:
    parsed = parse_sentinel("redis+sentinel://app:s%40cret@10.0.0.1:26380,[::1],sentinel-c/tasks/2")
    sentinels = (("10.0.0.1", 26380), ("::1", 26379), ("sentinel-c", 26379))
    assert parsed == SentinelUrl(sentinels, "tasks", 2, "app", "s@cret")
    assert check_url("redis://127.0.0.1:6379/0") == "redis://127.0.0.1:6379/0"


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("redis+sentinel://h1:26379", "name the service the sentinels monitor"),
        ("redis+sentinel:///tasks", "name at least one sentinel host"),
        ("redis+sentinel://h1:port/tasks", "'h1:port' is not HOST[:PORT]"),
        ("redis+sentinel://h1/tasks/zero", "the database after the service is a number"),
        ("redis+sentinel://h1/tasks?ssl=1", "takes no query"),
        ("http://h1:6379", "is not a Redis URL"),
    ],
)
@pytest.mark.parametrize(
    "section",
    [
        lambda url: {"mcp": {"redis_url": url}},
        lambda url: {"workflows": {"redis_url": url}},
        lambda url: {"routing": {"pools": [], "state": {"redis_url": url}}},
    ],
)
def test_a_malformed_redis_url_is_a_config_error_naming_its_key(
    registry: Registry, url: str, reason: str, section: Any
) -> None:
    raw = section(url)
    with pytest.raises(ConfigError) as caught:
        parse_config(raw, "taskgate.yaml", registry)
    message = str(caught.value)
    assert message.startswith("taskgate.yaml: ")
    assert "redis_url" in message
    assert reason in message
    assert "redis+sentinel://HOST" in message  # and what a good one looks like


def test_a_password_stays_out_of_the_error() -> None:
    with pytest.raises(ValueError, match=r"redis\+sentinel://app:\*\*\*@h1") as caught:
        check_url("redis+sentinel://app:hunter2@h1")
    assert "hunter2" not in str(caught.value)
    assert redacted("redis://:hunter2@h:1/0") == "redis://:***@h:1/0"


async def test_connect_reaches_a_real_server(redis_server: RedisServer) -> None:
    client = connect(redis_server.url, decode_responses=True)
    try:
        await client.set("k", "v", ex=5)
        assert await client.get("k") == "v"
    finally:
        await client.aclose()
