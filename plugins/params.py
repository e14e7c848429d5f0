"""Strict parameter models and readable validation errors."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError


class Params(BaseModel):
    """Base for a step's parameters: parsed once at start-up, unknown keys refused."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class NoParams(Params):
    """For steps that take no parameters."""


def join_path(*parts: str | int) -> str:
    """Join key path parts as `a.b[0].c`."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part:
            out += f".{part}" if out else part
    return out


def problems(error: ValidationError, prefix: Iterable[str | int] = ()) -> list[tuple[str, str]]:
    """Each validation failure as (key path, reason)."""
    head = tuple(prefix)
    return [(join_path(*head, *_loc(item["loc"])), _reason(item)) for item in error.errors()]


def _loc(loc: tuple[Any, ...]) -> tuple[str | int, ...]:
    return tuple(p for p in loc if isinstance(p, str | int) and p != "[key]")


def _reason(item: Any) -> str:
    if item["type"] == "extra_forbidden":
        return "unknown key (check its spelling, or remove it)"
    if item["type"] == "missing":
        return "required key is missing"
    if item["type"] == "value_error":  # our own validators' sentences, without pydantic's prefix
        return str(item["msg"]).removeprefix("Value error, ")
    return str(item["msg"])
