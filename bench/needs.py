"""What a benchmark needs before it spends minutes measuring: checked first, refused in one line."""

from __future__ import annotations

import importlib.util


def plotting() -> None:
    """Every benchmark saves a PNG: without matplotlib (the `[bench]` extra) say so now, not after the run."""
    if importlib.util.find_spec("matplotlib") is None:
        raise SystemExit("matplotlib is not installed: pip install -e '.[bench]' first (make bench does it)")
