"""A plugin whose register() raises, for the discovery test."""

from taskgate.plugins import Registry


def register(registry: Registry) -> None:
    raise KeyError("missing-setting")
