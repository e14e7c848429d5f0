"""Proxy tests that run tasks under authorization use the authz tests' real keys."""

from tests.authz.conftest import key_pairs, keys

__all__ = ["key_pairs", "keys"]
