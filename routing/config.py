"""The `routing` config section: the upstreams inference is dispatched to."""

from __future__ import annotations

import os

from pydantic import Field, HttpUrl, field_validator, model_validator

from taskgate.plugins import Endpoint, Params


class Upstream(Params):
    """One OpenAI-compatible server and the models it serves."""

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    url: HttpUrl
    models: list[str] = Field(min_length=1)
    api_key_env: str | None = None
    pool: str = "default"
    region: str | None = None
    hardware: str | None = None

    @field_validator("url")
    @classmethod
    def _base_url(cls, url: HttpUrl) -> HttpUrl:
        if url.path not in (None, "", "/") or url.query or url.fragment:
            raise ValueError("give the server's base URL, without path, query or fragment; taskgate appends /v1/...")
        return url

    @field_validator("api_key_env")
    @classmethod
    def _key_is_set(cls, name: str | None) -> str | None:
        if name is not None and not os.environ.get(name):
            raise ValueError(f"environment variable {name} is not set (or empty); set it or remove api_key_env")
        return name

    def endpoint(self) -> Endpoint:
        """The Endpoint for this upstream, with its credential read from the environment."""
        key = os.environ.get(self.api_key_env, "") if self.api_key_env else ""
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        base = str(self.url).rstrip("/")
        return Endpoint(self.name, base, self.pool, self.region, self.hardware, headers)


class RoutingConfig(Params):
    """Where models are served. Each model is served by exactly one upstream for now."""

    upstreams: list[Upstream] = Field(default_factory=list)

    @model_validator(mode="after")
    def _unique(self) -> RoutingConfig:
        names: set[str] = set()
        models: dict[str, str] = {}
        for upstream in self.upstreams:
            if upstream.name in names:
                raise ValueError(f"two upstreams are named {upstream.name!r}")
            names.add(upstream.name)
            for model in upstream.models:
                if model in models:
                    raise ValueError(f"model {model!r} is served by both {models[model]!r} and {upstream.name!r}")
                models[model] = upstream.name
        return self
