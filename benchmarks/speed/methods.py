"""Every method's release time and peak memory: on adult, on a million resampled adult rows, CatHist over
domain sizes, and a million candidates through the plausible-deniability test. Not a test: prints a table.

    python -m benchmarks.speed.methods            # everything: about 5 minutes on a quiet 2-core machine
    python -m benchmarks.speed.methods --quick    # without the 1,000,000-row table: about 2 minutes

Each case runs in a fresh subprocess so that its peak resident memory (ru_maxrss) is its own.
Times are wall-clock, best of a few repeats, after one warm-up (OpenDP's first import is
reported separately as "cold"). Figures: docs/benchmarks/speed.md.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import ROOT, SHARED, adult_declaration, binned_adult_declaration


def case_cathist(n: int, secure: bool) -> dict:
    from dpsynth_core.privacy.cathist import cathist, draw_from_range
    from dpsynth_core.privacy.noise import make_noise_source

    keys, counts = list(range(40)), [1000 // (i + 1) for i in range(40)]
    times = []
    for _ in range(20):
        noise = make_noise_source(None if secure else 1)
        start = time.perf_counter()
        cathist(keys, counts, n, epsilon=1.0, rho=0.5, draw_inactive=draw_from_range(n), noise=noise)
        times.append(time.perf_counter() - start)
    return {"seconds": statistics.median(times[1:]), "worst_seconds": max(times[1:])}


def case_synth(path: str, secure: bool, repeats: int, method: str = "cathist", paper_bins: bool = False) -> dict:
    """``paper_bins``: adult in the public bins of the comparisons with the peers (about 200 dummy columns,
    as in the copula paper) instead of bins fitted to the data."""
    from dpsynth_core import synthesize

    domain = binned_adult_declaration() if paper_bins else adult_declaration()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        release = synthesize(path, domain, 1.0, method=method, random_state=None if secure else 0)
        times.append(time.perf_counter() - start)
    return {"seconds": min(times), "cold_seconds": times[0], "rows": len(release.data)}


def case_deniability_candidates(secure: bool, count: int = 1_000_000) -> dict:
    """A million candidates through the plausible-deniability test."""
    import pandas as pd

    from dpsynth_core.synthesizers.network import PlausibleDeniability

    real = pd.read_csv(SHARED / "adult.csv", dtype=str, keep_default_na=False)
    model = PlausibleDeniability(epsilon=1.0, random_state=None if secure else 0).fit(real, adult_declaration())
    start = time.perf_counter()
    candidates, redraw = model.make_candidates(count)
    passed = model.test(model.plausible_seeds(candidates, redraw))
    return {"seconds": time.perf_counter() - start, "pass_rate": float(passed.mean())}


def _run_case(name: str, args: list) -> dict:
    code = (
        f"import json, resource; from benchmarks.speed.methods import {name}; out = {name}(*{args!r}); "
        "out['peak_mb'] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024; print(json.dumps(out))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip the 1,000,000-row table")
    opts = parser.parse_args(argv)
    rows = []
    for n in (10**3, 10**6, 10**10, 10**15):
        for secure in (False, True):
            out = _run_case("case_cathist", [n, secure])
            rows.append(
                (
                    f"CatHist n=10^{len(str(n)) - 1} ({'secure' if secure else 'seeded'}), median of 20",
                    out["seconds"],
                    out["peak_mb"],
                )
            )
            rows.append(
                (
                    f"CatHist n=10^{len(str(n)) - 1} ({'secure' if secure else 'seeded'}), worst of 20",
                    out["worst_seconds"],
                    out["peak_mb"],
                )
            )
    for method in ("marginals", "copula", "dirichlet", "bayesnet", "deniability", "microagg"):
        out = _run_case("case_synth", [str(SHARED / "adult.csv"), True, 3, method])
        rows.append((f"{method} on adult.csv (secure), warm", out["seconds"], out["peak_mb"]))
    for secure in (False, True):
        out = _run_case("case_deniability_candidates", [secure])
        rows.append(
            (
                f"deniability: 1,000,000 candidates through the test ({'secure' if secure else 'seeded'}), "
                f"pass rate {out['pass_rate']:.1%}",
                out["seconds"],
                out["peak_mb"],
            )
        )
    out = _run_case("case_synth", [str(SHARED / "adult.csv"), True, 3, "copula", True])
    rows.append(("copula on adult.csv, paper-like public bins (secure), warm", out["seconds"], out["peak_mb"]))
    for secure in (False, True):
        out = _run_case("case_synth", [str(SHARED / "adult.csv"), secure, 4])
        rows.append(
            (
                f"cathist on adult.csv, 32,561 rows ({'secure' if secure else 'seeded'}), warm",
                out["seconds"],
                out["peak_mb"],
            )
        )
        rows.append(
            (
                f"cathist on adult.csv ({'secure' if secure else 'seeded'}), cold (imports)",
                out["cold_seconds"],
                out["peak_mb"],
            )
        )
    if not opts.quick:
        import pandas as pd

        with tempfile.TemporaryDirectory() as tmp:
            big = Path(tmp) / "adult_1m.csv"
            adult = pd.read_csv(SHARED / "adult.csv", dtype=str, keep_default_na=False)
            adult.sample(1_000_000, replace=True, random_state=0).to_csv(big, index=False)
            for secure in (False, True):
                out = _run_case("case_synth", [str(big), secure, 2])
                rows.append(
                    (
                        f"cathist on 1,000,000 resampled adult rows ({'secure' if secure else 'seeded'})",
                        out["seconds"],
                        out["peak_mb"],
                    )
                )
            for method in ("marginals", "copula", "dirichlet", "bayesnet", "deniability"):
                out = _run_case("case_synth", [str(big), True, 1, method])
                rows.append((f"{method} on 1,000,000 resampled adult rows (secure)", out["seconds"], out["peak_mb"]))
    width = max(len(r[0]) for r in rows)
    print(f"{'case'.ljust(width)}  {'seconds':>9}  {'peak MB':>8}")
    for name, seconds, peak in rows:
        print(f"{name.ljust(width)}  {seconds:9.4f}  {peak:8.0f}")


if __name__ == "__main__":
    main()
