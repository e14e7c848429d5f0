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

from .context import REQUEST, RequestContext
from .discovery import GROUP, load_plugins
from .errors import OutputRefused, ParamsError, PluginError, Reject
from .params import NoParams, Params
from .registry import Registry
from .scoring import Candidate, Scorer
from .services import Services
from .step import Step, StepOptions
from .types import (
    ALLOWED_REGIONS,
    PAYLOAD,
    PLACEMENT,
    REQUEST_CLASS,
    BodyEdit,
    DispatchObserver,
    Endpoint,
    HasEvidence,
    OutputGuard,
    Placement,
    ResponseFilter,
)

__all__ = [
    "ALLOWED_REGIONS",
    "GROUP",
    "PAYLOAD",
    "PLACEMENT",
    "REQUEST",
    "REQUEST_CLASS",
    "BodyEdit",
    "Candidate",
    "Derive",
    "DispatchObserver",
    "Endpoint",
    "Failure",
    "Halt",
    "HasEvidence",
    "Inputs",
    "NoParams",
    "OutputGuard",
    "OutputRefused",
    "Params",
    "ParamsError",
    "Placement",
    "PluginError",
    "Registry",
    "Reject",
    "RequestContext",
    "ResponseFilter",
    "Scorer",
    "Services",
    "Step",
    "StepOptions",
    "StepSpec",
    "describe",
    "load_plugins",
]
