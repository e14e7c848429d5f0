"""The bench's helpers run against a real gateway: the authz tests' signing keys serve here too. The bench's
scripts import their suite as `injection_suite` (bench/ is their directory), and so do these tests."""

import sys
from pathlib import Path

from tests.authz.conftest import key_pairs, keys

BENCH = str(Path(__file__).resolve().parents[2] / "bench")
if BENCH not in sys.path:
    sys.path.insert(0, BENCH)

__all__ = ["key_pairs", "keys"]
