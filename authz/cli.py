"""`taskgate policy seal|verify`: check a Casbin policy file and write, or check, its seal (docs/authz.md)."""

from __future__ import annotations

import sys
from pathlib import Path

from .errors import PolicyError
from .policy import load, read, seal_file
from .seal import unseal


def policy(action: str, file: str, model_file: str | None) -> int:
    """Seal (check, then write the seal) or verify a policy file; print what it holds.

    `verify` checks every row of an unsealed file too (as `seal` would), and
    then says it is not sealed (exit status 1): rows that would not load are
    named first, so a file can be checked before it is sealed.
    """
    path, model = Path(file), Path(model_file) if model_file else None
    if action == "seal":
        seal_file(path, model)
    else:
        try:
            load(model, path, 1)
        except PolicyError:
            sealed = unseal(path, read(path), required=False)
            if sealed.sealed:
                raise
            load(model, path, 1, require_seal=False)  # a broken row is named here, before the missing seal
            print(
                f"{path}: rows ok: {len(sealed.rows)} rows load, but the file is not sealed, so taskgate will not "
                f"serve it: when it is complete, run `taskgate policy seal {path}`",
                file=sys.stderr,
            )
            return 1
    sealed = unseal(path, read(path))
    print(f"{path}: {'sealed' if action == 'seal' else 'ok'}: {len(sealed.rows)} rows, sha256 {sealed.digest}")
    return 0
