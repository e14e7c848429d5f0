"""The plugin SDK: everything a custom step needs, in one import.

    from taskgate.plugins import Inputs, Params, Step

    class Shout(Step[Shout.Params]): ...

A plugin package exposes `register(registry)` through the entry-point group
`taskgate.plugins`; built-in steps are registered exactly the same way.
"""

from taskgate.dag import Failure, Inputs

from .context import REQUEST, RequestContext
from .discovery import GROUP, load_plugins
from .errors import OutputRefused, ParamsError, PluginError, Reject
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
    "AFFINITY",
    "ALLOWED_REGIONS",
    "DISTRIBUTION",
    "GROUP",
    "PAYLOAD",
    "PLACEMENT",
    "REQUEST",
    "REQUEST_CLASS",
    "BodyEdit",
    "Candidate",
    "Category",
    "Demand",
    "DispatchObserver",
    "Endpoint",
    "Failure",
    "Filter",
    "HasEvidence",
    "Inputs",
    "NoParams",
    "OutputGuard",
    "OutputRefused",
    "Params",
    "ParamsError",
    "Picker",
    "Placement",
    "PluginError",
    "PoolFacts",
    "Ranked",
    "Registry",
    "Reject",
    "RequestContext",
    "ResponseFilter",
    "Scorer",
    "Services",
    "Slate",
    "Step",
    "StepOptions",
    "load_plugins",
]
