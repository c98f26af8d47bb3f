"""The empirical risk's time (dpsynth_core.evaluation.risk) on the bundled adult example, as the Preview runs it.

    python -m benchmarks.speed.empirical_risk [--attacks 500] [--method marginals] [--epsilon 1]

Prints the time of each part and the three risks; the Preview's budget is 30 s in all. A run takes about
10 seconds with its imports. Figures: docs/benchmarks/speed.md.
"""

import argparse
import time

import numpy as np

from dpsynth_core import synthesize
from dpsynth_core.data.examples import example_csv, example_declaration
from dpsynth_core.data.tables import read_table
from dpsynth_core.evaluation.risk import empirical_risk


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attacks", type=int, default=500)
    parser.add_argument("--method", default="marginals")
    parser.add_argument("--epsilon", type=float, default=1.0)
    args = parser.parse_args(argv)
    frame = read_table(example_csv("adult"))[0]
    declaration = example_declaration("adult")
    marks = [("start", time.perf_counter())]

    def progress(done, message):
        marks.append((message, time.perf_counter()))

    start = time.perf_counter()
    report = empirical_risk(
        frame,
        lambda rows: synthesize(rows, declaration, args.epsilon, method=args.method).data,
        declaration,
        attacks=args.attacks,
        progress=progress,
    )
    total = time.perf_counter() - start
    for (message, at), (_, after) in zip(marks[1:], marks[2:] + [("end", time.perf_counter())]):
        print(f"{after - at:6.2f} s  {message}")
    print(f"total {total:.1f} s for {args.attacks} attacks ({args.method}, epsilon {args.epsilon:g}; budget 30 s)")
    for risk in [report.singling_out, report.linkability] + report.inference:
        low, high = risk.interval
        print(
            f"{risk.attack:15s} {risk.detail[:40]:40s} risk {risk.value:.3f} [{low:.3f}, {high:.3f}] "
            f"train {risk.training.value:.3f} control {risk.control.value:.3f} baseline {risk.baseline.value:.3f}"
        )
    assert np.isfinite(total)


if __name__ == "__main__":
    main()
