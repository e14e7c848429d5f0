"""Fixtures for the simulated-engine tests."""

from collections.abc import Awaitable, Callable

import pytest
from pytest_aiohttp import AiohttpClient

from taskgate.sim import EngineProfile, create_app
from tests.sim.helpers import SimClient

MakeClient = Callable[..., Awaitable[SimClient]]


@pytest.fixture
def sim_client(aiohttp_client: AiohttpClient) -> MakeClient:
    """Start a sim app for a profile and return a test client for it."""

    async def make(profile: EngineProfile, name: str = "sim-test") -> SimClient:
        return await aiohttp_client(create_app(profile, name))

    return make
