"""The authz room's errors."""

from __future__ import annotations

from taskgate.errors import TaskgateError


class PolicyError(TaskgateError):
    """A policy file that cannot be used; the message names the file, the row and the fix."""
