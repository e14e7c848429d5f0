"""A route step's filters, scorers and picker: instances by name and type in config, built once at start-up.

An instance is `{name, type, params}` (scorers add `weight`); a bare type name
stands for `{type: name}`. Unknown types, unknown keys and parameters a type
does not take are ParamsErrors naming the key, so the config error says where.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import Field, SerializerFunctionWrapHandler, ValidationError, model_serializer, model_validator

from taskgate.plugins import AFFINITY, DISTRIBUTION, Filter, Params, ParamsError, Picker, Scorer
from taskgate.plugins.params import problems

from .config import NAME

TOTAL = "total"
TIE = 0.001  # weighted totals closer than this rank as equal, and the tie-breaks decide
"""The key of the weighted sum among an endpoint's scores; no scorer may be named so."""


class PartSpec(Params):
    """One filter or picker instance; `name` defaults to the type."""

    name: str | None = Field(default=None, pattern=NAME)
    type: str
    params: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _bare_type(cls, value: Any) -> Any:
        return {"type": value} if isinstance(value, str) else value

    @model_serializer(mode="wrap")
    def _short(self, handler: SerializerFunctionWrapHandler) -> Any:
        """Only what differs from the defaults; the bare type name when nothing does."""
        given = {k: v for k, v in handler(self).items() if k == "type" or v}
        return self.type if list(given) == ["type"] else given

    @property
    def bare(self) -> bool:
        """Nothing but the type: config may spell it as the type name alone."""
        return self.name is None and not self.params

    @property
    def label(self) -> str:
        return self.name or self.type


class ScorerSpec(PartSpec):
    """One scorer instance and its weight (0 leaves it out)."""

    weight: float = Field(default=1.0, ge=0)

    @model_serializer(mode="wrap")
    def _short(self, handler: SerializerFunctionWrapHandler) -> Any:
        return {k: v for k, v in handler(self).items() if k in ("type", "weight") or v}

    @property
    def bare(self) -> bool:
        return super().bare and self.weight == 1.0


@dataclass(frozen=True, slots=True)
class Weighted:
    """A scorer instance as ranking uses it: its evidence name, weight, and whether it yields to load."""

    name: str
    scorer: Scorer
    weight: float
    affinity: bool


def build_filters(specs: Sequence[PartSpec], known: Mapping[str, Any]) -> tuple[Filter, ...]:
    _unique(specs, "params.filters")
    built = tuple(_build("filter", "add_filter", s, known, f"params.filters[{i}]") for i, s in enumerate(specs))
    if not any(spec.type == "region" for spec in specs):
        reason = "leaves out the region filter, which keeps each request inside its allowed_regions; add region"
        raise ParamsError("params.filters", reason)
    return built


def build_scorers(
    specs: Sequence[ScorerSpec] | None, weights: Mapping[str, float], known: Mapping[str, Any]
) -> tuple[Weighted, ...]:
    """The instance list if given, else the older `weights` map of type to weight."""
    if specs is None:
        given = [(ScorerSpec(type=t, weight=w), f"params.weights.{t}") for t, w in weights.items()]
    else:
        _unique(specs, "params.scorers")
        given = [(s, f"params.scorers[{i}]") for i, s in enumerate(specs)]
    for spec, path in given:
        if spec.label == TOTAL:
            where = f"{path}.name" if spec.name else path
            raise ParamsError(where, f"{TOTAL!r} names the weighted sum in the evidence; give this scorer another name")
    built = [(spec, _build("scorer", "add_scorer", spec, known, path)) for spec, path in given]
    return tuple(_weighted(spec, scorer) for spec, scorer in built if spec.weight)


def build_picker(spec: PartSpec, known: Mapping[str, Any], seed: int | None) -> Picker:
    """`seed`, the step's older top-level key, reaches a picker that takes one and was not given one."""
    model = getattr(known.get(spec.type), "Params", None)
    if seed is not None and model is not None and "seed" in model.model_fields and "seed" not in spec.params:
        spec = spec.model_copy(update={"params": {**spec.params, "seed": seed}})
    picker: Picker = _build("picker", "add_picker", spec, known, "params.picker")
    return picker


def _build(role: str, add: str, spec: PartSpec, known: Mapping[str, Any], path: str) -> Any:
    cls = known.get(spec.type)
    if cls is None:
        where = path if spec.bare else f"{path}.type"
        registered = ", ".join(sorted(known)) or "none"
        fix = f"check the spelling, or install the plugin that registers it (registry.{add})"
        raise ParamsError(where, f"unknown {role} type {spec.type!r} (registered: {registered}); {fix}")
    model = getattr(cls, "Params", None)
    if model is None:
        if spec.params:
            raise ParamsError(f"{path}.params", f"{role} type {spec.type!r} takes no params; remove them")
        return cls()
    try:
        return cls(model.model_validate(spec.params))
    except ValidationError as exc:
        raise ParamsError(*problems(exc, (f"{path}.params",))[0]) from None


def _weighted(spec: ScorerSpec, scorer: Scorer) -> Weighted:
    category = getattr(scorer, "category", DISTRIBUTION)
    return Weighted(spec.label, scorer, spec.weight, category == AFFINITY)


def _unique(specs: Sequence[PartSpec], path: str) -> None:
    seen: set[str] = set()
    for i, spec in enumerate(specs):
        if spec.label in seen:
            raise ParamsError(f"{path}[{i}].name", f"another instance is named {spec.label!r}; give this one a `name`")
        seen.add(spec.label)
