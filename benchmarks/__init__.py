"""Benchmark scripts (not tests): each runs as ``python benchmarks/NAME.py`` from the checkout."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: The shared public tables (``shared/datasets``), looked for beside the checkout or above it, so a worktree
#: (``/work/wt/NAME``) reads the same tables as the main checkout.
SHARED = next(
    (p / "shared" / "datasets" for p in ROOT.parents if (p / "shared" / "datasets").is_dir()),
    ROOT.parent / "shared" / "datasets",
)
