"""Typed keys for app and request state, and the gateway's shared wiring."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from aiohttp import web

from taskgate.dag import Plan
from taskgate.plugins import Services
from taskgate.plugins.evidence import Evidence

from .config import Config
from .evidence import EvidenceLog
from .metrics import Metrics

if TYPE_CHECKING:
    from .models import ModelCatalog


@dataclass
class Gateway:
    """Everything a request handler needs; built once by create_app."""

    config: Config
    plans: dict[str, Plan]
    services: Services
    catalog: ModelCatalog
    metrics: Metrics = field(default_factory=Metrics)
    evidence: EvidenceLog = field(default_factory=lambda: EvidenceLog(1000))
    pool: ThreadPoolExecutor | None = None
    ready: bool = False
    outputs: dict[str, tuple[str, ...]] = field(init=False)
    """Per surface, the keys its steps provide, in plan order: where body edits and output guards come from."""

    def __post_init__(self) -> None:
        self.outputs = {
            surface: tuple(key for name in plan.order if (key := plan.steps[name].spec.provides) is not None)
            for surface, plan in self.plans.items()
        }


GATEWAY = web.AppKey("taskgate.gateway", Gateway)
EVIDENCE = web.RequestKey("taskgate.evidence", Evidence)
