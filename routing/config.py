"""The `routing` config section: pools of endpoints, shared state, classes, admission."""

from __future__ import annotations

import os
from typing import Literal

from pydantic import Field, HttpUrl, field_validator, model_validator

from taskgate.plugins import Endpoint, Params, TokenPrice
from taskgate.plugins.redis import RedisUrl

NAME = r"^[A-Za-z0-9][A-Za-z0-9_.-]*$"
Class = Literal["interactive", "batch", "background"]
Role = Literal["prefill", "decode", "both"]


class EndpointConfig(Params):
    """One OpenAI-compatible server of a pool."""

    name: str = Field(pattern=NAME)
    url: HttpUrl
    api_key_env: str | None = None
    metrics_path: str = "/metrics"
    role: Role | None = None  # None: the pool's

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


class ModelConfig(Params):
    """A model a pool serves: the name engines know it by, and names clients may use."""

    name: str
    aliases: list[str] = Field(default_factory=list)


class Price(Params):
    """Per million tokens, in the operator's currency; the cost in evidence and metrics is in the same."""

    input_per_mtok: float = Field(default=0.0, ge=0)
    output_per_mtok: float = Field(default=0.0, ge=0)
    cached_input_per_mtok: float | None = Field(default=None, ge=0)  # prompt tokens the engine had cached; None: input


class Targets(Params):
    ttft_ms: float = Field(default=1000.0, gt=0)
    tpot_ms: float = Field(default=50.0, gt=0)


class PoolConfig(Params):
    """Endpoints of one hardware class in one region, with their price and capability."""

    name: str = Field(pattern=NAME)
    endpoints: list[EndpointConfig] = Field(min_length=1)
    models: list[ModelConfig] = Field(min_length=1)
    hardware: str | None = None
    precision: str | None = None
    region: str | None = None
    price: Price = Field(default_factory=Price)
    max_context: int = Field(default=32_768, gt=0)
    kv_capacity_tokens: int | None = Field(default=None, gt=0)
    targets: Targets = Field(default_factory=Targets)
    prefill_tokens_per_s: float = Field(default=10_000.0, gt=0)
    max_inflight: int = Field(default=256, gt=0)
    # disaggregated serving (routing/disagg.py): `prefill` engines take only the prompt of a request whose decode
    # runs elsewhere; `decode` engines take those decodes with the KV handed over, and whole requests when
    # aggregated is the better placement; `both`: whole requests only, as before
    role: Role = "both"
    zone: str | None = None  # a rack or zone: KV moves between engines of one zone at `same_zone_gb_per_s`

    def role_of(self, endpoint: EndpointConfig) -> Role:
        return endpoint.role or self.role

    def endpoint_values(self) -> list[Endpoint]:
        return [_endpoint(self, e) for e in self.endpoints]


class StateConfig(Params):
    store: Literal["memory", "redis"] = "memory"
    redis_url: RedisUrl = "redis://127.0.0.1:6379/0"  # or redis+sentinel://HOST:PORT[,...]/SERVICE[/DB]
    key_prefix: str = "taskgate"
    timeout_ms: float = Field(default=50.0, gt=0)
    retry_after_s: float = Field(default=5.0, gt=0)
    scrape_interval_s: float = Field(default=1.0, gt=0)
    models_interval_s: float = Field(default=10.0, gt=0)  # how often each endpoint's /v1/models is listed
    stale_after_s: float = Field(default=5.0, gt=0)
    session_ttl_s: float = Field(default=3600.0, gt=0)


class PrefixConfig(Params):
    block_chars: int = Field(default=256, ge=16)
    max_blocks_per_endpoint: int = Field(default=16_384, gt=0)
    chars_per_token: float = Field(default=4.0, gt=0)


class ClassConfig(Params):
    default: Class = "interactive"
    header: str = "x-taskgate-class"
    session_header: str = "x-session-id"
    interactive_ttft_ms: float = Field(default=1_000.0, gt=0)
    batch_ttft_ms: float = Field(default=30_000.0, gt=0)
    background_ttft_ms: float = Field(default=120_000.0, gt=0)
    interactive_itl_ms: float = Field(default=100.0, gt=0)  # the longest gap between tokens a chat should see


class AdmissionConfig(Params):
    queue_limit: int = Field(default=512, ge=0)
    max_wait_s: float = Field(default=30.0, gt=0)
    aging_s: float = Field(default=5.0, gt=0)
    # a pool takes batch jobs' items only while idle: its load (the largest of in-flight over max_inflight, an
    # endpoint's KV usage, 1 while anything queues) falls under idle_low to open, and at idle_high it closes
    idle_low: float = Field(default=0.5, gt=0, le=1)
    idle_high: float = Field(default=0.8, gt=0, le=1)
    # an item whose uncached prefill would take longer than idle_prefill_ms (at the pool's prefill_tokens_per_s;
    # unset: 5% of classes.interactive_ttft_ms) holds an engine's prefill for that long, and a request arriving
    # meanwhile waits for it: such an item starts only where no other request has run for idle_quiet_s
    idle_prefill_ms: float | None = Field(default=None, ge=0)
    idle_quiet_s: float = Field(default=5.0, ge=0)

    @model_validator(mode="after")
    def _ordered(self) -> AdmissionConfig:
        if self.idle_low > self.idle_high:
            raise ValueError(f"idle_low ({self.idle_low}) must not exceed idle_high ({self.idle_high})")
        return self


class FallbackConfig(Params):
    max_attempts: int = Field(default=3, ge=1)


class BreakerConfig(Params):
    failures: int = Field(default=3, ge=1)
    cooldown_s: float = Field(default=10.0, gt=0)


class DisaggregationConfig(Params):
    """When a request's prefill runs on a `prefill` engine and its decode on a `decode` engine."""

    mode: Literal["auto", "always", "never"] = "auto"  # auto: decided per request (docs/steps/routing.route.md)
    transport: Literal["vllm"] = "vllm"  # how the KV is handed over: vLLM's kv_transfer_params
    kv_bytes_per_token: int = Field(default=131_072, gt=0)  # the model's KV per token (Llama-3-8B in fp16)
    same_zone_gb_per_s: float = Field(default=10.0, gt=0)  # between engines of one zone (GB/s)
    cross_zone_gb_per_s: float = Field(default=2.5, gt=0)  # between zones, or where a pool names none
    # an aggregated prefill holds a busy decode engine's batch for its prefill time: its decodes wait a step and
    # that stall for their next token; past this (unset: the interactive class's ITL target) the prefill goes
    # to a prefill engine, if a pair's TTFT allows it
    decode_stall_ms: float | None = Field(default=None, gt=0)
    # a pair may be this share of whole slower to the first token (or the stall it spares all the decodes running
    # there, or the budget)
    ttft_slack: float = Field(default=0.1, ge=0)
    # the prefill engines kept for short prompts: a long prompt (its prefill past long_prefill_ms; unset: the
    # interactive class's TTFT target) does not take the ones whose lanes are shortest while another can take it
    short_lanes: int = Field(default=1, ge=0)
    long_prefill_ms: float | None = Field(default=None, gt=0)


class RoutingConfig(Params):
    """Pools and how requests are placed on them."""

    pools: list[PoolConfig] = Field(default_factory=list)
    state: StateConfig = Field(default_factory=StateConfig)
    prefix: PrefixConfig = Field(default_factory=PrefixConfig)
    classes: ClassConfig = Field(default_factory=ClassConfig)
    admission: AdmissionConfig = Field(default_factory=AdmissionConfig)
    fallback: FallbackConfig = Field(default_factory=FallbackConfig)
    breaker: BreakerConfig = Field(default_factory=BreakerConfig)
    disaggregation: DisaggregationConfig = Field(default_factory=DisaggregationConfig)

    @model_validator(mode="after")
    def _halves_paired(self) -> RoutingConfig:
        """Every model with a decode engine has a prefill engine, and the other way round; a prefill engine takes
        no whole request, so a model served only by prefill engines could serve nothing."""
        roles: dict[str, dict[str, str]] = {}  # model -> role -> the first pool's key path that has it
        for index, pool in enumerate(self.pools):
            for endpoint in pool.endpoints:
                for model in pool.models:
                    roles.setdefault(model.name, {}).setdefault(pool.role_of(endpoint), f"pools[{index}]")
        for served, has in roles.items():
            for role, other in (("decode", "prefill"), ("prefill", "decode")):
                if role in has and other not in has:
                    raise ValueError(
                        f"{has[role]}: model {served!r} has {role} engines but no {other} engine "
                        f"{'to hand them the KV' if role == 'decode' else 'to take the KV'}; give a pool (or an "
                        f"endpoint) serving it role: {other}, or make this one role: both"
                    )
        return self

    @model_validator(mode="after")
    def _unique_names(self) -> RoutingConfig:
        pools: set[str] = set()
        endpoints: set[str] = set()
        for pool in self.pools:
            if pool.name in pools:
                raise ValueError(f"two pools are named {pool.name!r}")
            pools.add(pool.name)
            for endpoint in pool.endpoints:
                if endpoint.name in endpoints:
                    raise ValueError(f"two endpoints are named {endpoint.name!r}; endpoint names are global")
                endpoints.add(endpoint.name)
        return self


def _endpoint(pool: PoolConfig, config: EndpointConfig) -> Endpoint:
    key = os.environ.get(config.api_key_env, "") if config.api_key_env else ""
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    url = str(config.url).rstrip("/")
    price = (
        TokenPrice(pool.price.input_per_mtok, pool.price.output_per_mtok, pool.price.cached_input_per_mtok)
        if "price" in pool.model_fields_set  # a pool without one is unpriced: its cost is unknown, not zero
        else None
    )
    return Endpoint(config.name, url, pool.name, pool.region, pool.hardware, headers, price)
