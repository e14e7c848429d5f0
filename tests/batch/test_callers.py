"""A batch job keeps its caller as the room that authenticated it says: authz's identities whole, any other
Principal by what the protocol says of it, so a plugin's own principal can run batch items too."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from taskgate.authz.identity import Identity
from taskgate.batch.types import ITEMS

from ..authz.conftest import Keys, jwt_section
from ..authz.conftest import key_pairs as key_pairs
from ..authz.conftest import keys as keys
from ..conftest import ProxyFactory, StartEngines, upstreams


@dataclass(frozen=True)
class Contractor:
    """A principal a third-party authenticate step might provide: not authz's Identity."""

    subject: str
    tenant: str
    roles: tuple[str, ...]
    badge: str  # its own field: not part of the Principal protocol


async def test_a_plugin_s_own_principal_is_kept_for_a_job_and_runs_its_items(
    proxy: ProxyFactory, engines: StartEngines
) -> None:
    (_, url, _), *_ = await engines("e0")
    client = await proxy(upstreams(url, "m"))
    items = client.app[ITEMS]
    sealed = items.seal(Contractor("carol", "acme", ("ops",), "B-17"))
    assert sealed == {"subject": "carol", "tenant": "acme", "roles": ["ops"]}  # kept as data, never the object
    caller = items.unseal(sealed)
    assert caller is not None
    assert (caller.subject, caller.tenant, caller.roles) == ("carol", "acme", ("ops",))
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 4}
    result = await items.run(caller, "chat", body, {}, {"batch_id": "batch_t", "custom_id": "one"})
    assert result.status == 200
    assert result.body["choices"][0]["message"]["content"]


async def test_an_authz_identity_is_kept_whole_and_a_damaged_one_is_refused(
    proxy: ProxyFactory, engines: StartEngines, keys: Keys
) -> None:
    (_, url, _), *_ = await engines("e0")
    raw = upstreams(url, "m") | {"authz": {"jwt": jwt_section(keys)}}
    raw["steps"] = [{"name": "authn", "type": "authz.authenticate"}]
    raw["pipelines"] = {"chat": ["authn", "state", "route"]}
    client = await proxy(raw)
    items = client.app[ITEMS]
    alice = Identity("alice", "acme", ("dev",), ("chat",), "issuer", "k1", "ES256", 2e9, (("team", "blue"),))
    sealed = items.seal(alice)
    assert sealed is not None
    assert sealed["kind"] == "authz.identity"
    assert items.unseal(sealed) == alice
    with pytest.raises(ValueError, match="cannot be restored"):
        items.unseal({**sealed, "roles": None})
