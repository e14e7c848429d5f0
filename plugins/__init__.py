"""The plugin SDK: everything a custom step needs, in one import.

    from taskgate.plugins import Inputs, Params, Step

    class Shout(Step[Shout.Params]): ...

A plugin package exposes `register(registry)` through the entry-point group
`taskgate.plugins`; built-in steps are registered exactly the same way. The
engine's names a step meets (`StepSpec`, `Derive`, `Failure`, `Halt`, `Inputs`,
`describe`) are re-exported here: a plugin never imports `taskgate.dag`.
Test helpers for plugins are in `taskgate.testing`.
"""

from taskgate.dag import Derive, Failure, Halt, Inputs, StepSpec
from taskgate.dag.errors import describe

from .context import (
    META_APPROVAL,
    META_ASSERTION,
    META_PURPOSE,
    META_TASK,
    META_TASK_TOKEN,
    PURPOSE_HEADER,
    REQUEST,
    RequestContext,
    ToolCaller,
)
from .discovery import GROUP, load_plugins
from .errors import OutputRefused, ParamsError, PluginError, Reject
from .evidence import Evidence
from .failures import FAILURES, ClientError, Failures, Problem, halted_step
from .front import EVIDENCE, FRONT, Front, Routes, Takeover
from .hooks import (
    AddsHeaders,
    AddsMeta,
    AsksAgain,
    BodyEdit,
    CallsAs,
    ChecksToolCalls,
    Flushes,
    HasEvidence,
    Meter,
    ObservesResults,
    OutputGuard,
    Outputs,
    Settles,
    hooks_of,
)
from .mcp_items import MCP_ITEMS, ItemMethod
from .params import NoParams, Params
from .registry import Registry
from .scoring import (
    AFFINITY,
    DISTRIBUTION,
    Candidate,
    Category,
    Demand,
    Filter,
    Picker,
    PoolFacts,
    Ranked,
    Scorer,
    Slate,
)
from .services import Services
from .step import Step, StepOptions
from .surfaces import INFERENCE, Surface
from .types import (
    ALLOWED_REGIONS,
    BATCH_HEADER,
    BATCH_JOBS,
    DEFAULT_SESSION_HEADER,
    DEFAULT_TASK_HEADERS,
    ENDPOINT_READINGS,
    EVIDENCE_SINKS,
    GRANT,
    IDENTITY,
    IDLE_CAPACITY,
    PAYLOAD,
    PLACEMENT,
    READINESS,
    REQUEST_CLASS,
    SERVED_MODELS,
    SESSION_HEADER,
    TASK_HEADERS,
    DispatchObserver,
    Endpoint,
    Placement,
    Principal,
    ResponseFilter,
    TokenPrice,
    ToolGate,
    Usage,
)

__all__ = [
    "AFFINITY",
    "ALLOWED_REGIONS",
    "BATCH_HEADER",
    "BATCH_JOBS",
    "DEFAULT_SESSION_HEADER",
    "DEFAULT_TASK_HEADERS",
    "DISTRIBUTION",
    "ENDPOINT_READINGS",
    "EVIDENCE",
    "EVIDENCE_SINKS",
    "FAILURES",
    "FRONT",
    "GRANT",
    "GROUP",
    "IDENTITY",
    "IDLE_CAPACITY",
    "INFERENCE",
    "MCP_ITEMS",
    "META_APPROVAL",
    "META_ASSERTION",
    "META_PURPOSE",
    "META_TASK",
    "META_TASK_TOKEN",
    "PAYLOAD",
    "PLACEMENT",
    "PURPOSE_HEADER",
    "READINESS",
    "REQUEST",
    "REQUEST_CLASS",
    "SERVED_MODELS",
    "SESSION_HEADER",
    "TASK_HEADERS",
    "AddsHeaders",
    "AddsMeta",
    "AsksAgain",
    "BodyEdit",
    "CallsAs",
    "Candidate",
    "Category",
    "ChecksToolCalls",
    "ClientError",
    "Demand",
    "Derive",
    "DispatchObserver",
    "Endpoint",
    "Evidence",
    "Failure",
    "Failures",
    "Filter",
    "Flushes",
    "Front",
    "Halt",
    "HasEvidence",
    "Inputs",
    "ItemMethod",
    "Meter",
    "NoParams",
    "ObservesResults",
    "OutputGuard",
    "OutputRefused",
    "Outputs",
    "Params",
    "ParamsError",
    "Picker",
    "Placement",
    "PluginError",
    "PoolFacts",
    "Principal",
    "Problem",
    "Ranked",
    "Registry",
    "Reject",
    "RequestContext",
    "ResponseFilter",
    "Routes",
    "Scorer",
    "Services",
    "Settles",
    "Slate",
    "Step",
    "StepOptions",
    "StepSpec",
    "Surface",
    "Takeover",
    "TokenPrice",
    "ToolCaller",
    "ToolGate",
    "Usage",
    "describe",
    "halted_step",
    "hooks_of",
    "load_plugins",
]
