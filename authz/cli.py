"""`taskgate policy seal|verify`: check a Casbin policy file and write, or check, its seal (docs/authz.md)."""

from __future__ import annotations

from pathlib import Path

from .policy import load, read, seal_file
from .seal import unseal


def policy(action: str, file: str, model_file: str | None) -> int:
    """Seal (check, then write the seal) or verify a policy file; print what it holds."""
    path, model = Path(file), Path(model_file) if model_file else None
    if action == "seal":
        seal_file(path, model)
    else:
        load(model, path, 1)
    sealed = unseal(path, read(path))
    print(f"{path}: {'sealed' if action == 'seal' else 'ok'}: {len(sealed.rows)} rows, sha256 {sealed.digest}")
    return 0
