"""The project's one base exception; every room's errors derive from it."""


class TaskgateError(Exception):
    """Base of every error taskgate raises on purpose."""
