"""The project's one base exception; every room's errors derive from it."""


class TaskgateError(Exception):
    """Base of every error taskgate raises on purpose."""


class ConfigError(TaskgateError):
    """The config is wrong; the message names the file, the key path and why."""

    def __init__(self, source: str, path: str, reason: str):
        super().__init__(f"{source}: {path}: {reason}" if path else f"{source}: {reason}")
        self.source = source
        self.path = path
        self.reason = reason
