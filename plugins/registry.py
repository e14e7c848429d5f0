"""One registry for step types, routing parts and config sections, built-in and third-party alike."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, get_args

from pydantic import BaseModel, ValidationError

from .errors import ParamsError, PluginError
from .front import Routes, Takeover
from .params import Params, problems
from .scoring import DISTRIBUTION, Category, Filter, Picker, Scorer
from .services import Services
from .step import Step, StepOptions

_TYPE_NAME = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$")
_CATEGORIES = get_args(Category)


class Registry:
    """What plugins contributed: step types and config sections, with their origin."""

    def __init__(self) -> None:
        self._steps: dict[str, type[Step[Any]]] = {}
        self._scorers: dict[str, type[Scorer]] = {}
        self._filters: dict[str, type[Filter]] = {}
        self._pickers: dict[str, type[Picker]] = {}
        self._sections: dict[str, type[BaseModel]] = {}
        self._routes: list[Routes] = []
        self._defaults: list[tuple[str, str]] = []
        self._takeovers: dict[str, dict[str, Takeover]] = {}
        self._origin: dict[str, str] = {}
        self._plugin = "(direct)"

    @contextmanager
    def loading(self, plugin: str) -> Iterator[None]:
        """Attribute what is registered inside the block to `plugin`."""
        previous, self._plugin = self._plugin, plugin
        try:
            yield
        finally:
            self._plugin = previous

    def add_step(self, cls: type[Step[Any]]) -> type[Step[Any]]:
        """Register a step type; a malformed one is refused with its name."""
        _check_step(cls, self._plugin)
        self._claim(f"step type {cls.type!r}", cls.type)
        self._steps[cls.type] = cls
        return cls

    def add_scorer(self, cls: type[Scorer]) -> type[Scorer]:
        """Register an endpoint scorer; route steps weight scorers by this type name."""
        name = self._check_part("scorer", "score", cls)
        category = getattr(cls, "category", DISTRIBUTION)
        if category not in _CATEGORIES:
            raise PluginError(
                f"plugin {self._plugin!r}: scorer {name!r} has category {category!r}; "
                "declare 'affinity' (it yields to load) or 'distribution'"
            )
        self._claim(f"scorer {name!r}", f"scorer:{name}")
        self._scorers[name] = cls
        return cls

    @property
    def scorers(self) -> Mapping[str, type[Scorer]]:
        return self._scorers

    def add_filter(self, cls: type[Filter]) -> type[Filter]:
        """Register an endpoint filter; route steps list filters by this type name."""
        name = self._check_part("filter", "filter", cls)
        self._claim(f"filter {name!r}", f"filter:{name}")
        self._filters[name] = cls
        return cls

    @property
    def filters(self) -> Mapping[str, type[Filter]]:
        return self._filters

    def add_picker(self, cls: type[Picker]) -> type[Picker]:
        """Register an endpoint picker; a route step names its picker by this type name."""
        name = self._check_part("picker", "pick", cls)
        if not isinstance(getattr(cls, "scored", True), bool):
            raise PluginError(f"plugin {self._plugin!r}: picker {name!r}: `scored` must be True or False")
        self._claim(f"picker {name!r}", f"picker:{name}")
        self._pickers[name] = cls
        return cls

    @property
    def pickers(self) -> Mapping[str, type[Picker]]:
        return self._pickers

    def _check_part(self, role: str, verb: str, cls: Any) -> str:
        """A routing part has a `type` name, its one verb, and optionally a strict `Params` model."""
        name = getattr(cls, "type", "")
        if not (isinstance(name, str) and _TYPE_NAME.match(name)) or not callable(getattr(cls, verb, None)):
            raise PluginError(
                f"plugin {self._plugin!r}: {role} {cls!r} needs a `type` name (lowercase, dotted) and a {verb}() method"
            )
        model = getattr(cls, "Params", Params)
        if not (isinstance(model, type) and issubclass(model, Params)):
            raise PluginError(f"plugin {self._plugin!r}: {role} {name!r}: Params must subclass taskgate.plugins.Params")
        return name

    def add_section(self, name: str, model: type[BaseModel]) -> None:
        """Register a top-level config section and the model that validates it."""
        self._claim(f"config section {name!r}", f"section:{name}")
        self._sections[name] = model

    def add_routes(self, routes: Routes) -> None:
        """Serve a room's HTTP routes: `routes(app)` adds them while the app is built (see plugins.front)."""
        if not callable(routes):
            raise PluginError(f"plugin {self._plugin!r}: add_routes needs a function of the app, got {routes!r}")
        self._routes.append(routes)

    def add_takeover(self, surface: str, field: str, handler: Takeover) -> None:
        """Answer `surface`'s requests whose JSON body has `field` (the tool loop takes chat's `tool_loop`)."""
        self._claim(f"the {field!r} field of the {surface!r} surface", f"takeover:{surface}:{field}")
        self._takeovers.setdefault(surface, {})[field] = handler

    def add_default(self, name: str, type_name: str) -> None:
        """A step instance every config has unless it defines one of that name; the defaults, in order, are the
        pipeline of a surface the config gives none (routing contributes `state` and `route`)."""
        self._claim(f"the default step {name!r}", f"default:{name}")
        self._defaults.append((name, type_name))

    @property
    def defaults(self) -> tuple[tuple[str, str], ...]:
        return tuple(self._defaults)

    @property
    def routes(self) -> tuple[Routes, ...]:
        return tuple(self._routes)

    @property
    def takeovers(self) -> Mapping[str, Mapping[str, Takeover]]:
        return self._takeovers

    @property
    def steps(self) -> Mapping[str, type[Step[Any]]]:
        return self._steps

    @property
    def sections(self) -> Mapping[str, type[BaseModel]]:
        return self._sections

    def services(self, sections: Mapping[str, BaseModel] | None = None) -> Services:
        """The shared resources for an app built from this registry: its sections and routing's parts."""
        return Services(sections=sections or {}, scorers=self.scorers, filters=self.filters, pickers=self.pickers)

    def origin(self, type_name: str) -> str:
        return self._origin.get(type_name, "?")

    def build(self, name: str, type_name: str, params: Any, services: Services, options: StepOptions) -> Step[Any]:
        """Instantiate a step; raises ParamsError with the offending key path."""
        cls = self._steps.get(type_name)
        if cls is None:
            known = ", ".join(sorted(self._steps)) or "none"
            raise ParamsError("type", f"unknown step type {type_name!r} (registered types: {known})")
        return cls(name, _parse(cls.Params, params), services, options)

    def _claim(self, what: str, key: str) -> None:
        if key in self._origin:
            raise PluginError(f"plugin {self._plugin!r} registers {what}, already registered by {self._origin[key]!r}")
        self._origin[key] = self._plugin


def _parse(model: type[Params], raw: Any) -> Params:
    try:
        return model.model_validate(raw if raw is not None else {})
    except ValidationError as exc:
        path, reason = problems(exc, ("params",))[0]
        raise ParamsError(path, reason) from None


def _check_step(cls: Any, plugin: str) -> None:
    if not (isinstance(cls, type) and issubclass(cls, Step)):
        raise PluginError(f"plugin {plugin!r} registers {cls!r}, which is not a taskgate.plugins.Step subclass")
    label = f"plugin {plugin!r}: step class {cls.__qualname__}"
    if not _TYPE_NAME.match(cls.type or ""):
        raise PluginError(f"{label} needs a `type` such as 'vendor.my_step' (lowercase, dotted), got {cls.type!r}")
    if not (isinstance(cls.Params, type) and issubclass(cls.Params, Params)):
        raise PluginError(f"{label}: Params must subclass taskgate.plugins.Params")
    hook = "run_blocking" if cls.cpu_bound else "run"
    if getattr(cls, hook) is getattr(Step, hook):
        raise PluginError(f"{label} must implement {hook}()")
