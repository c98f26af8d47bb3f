"""mbi 2.0's reference AIM or MST on a table of integer codes: the peers' worker of
:mod:`benchmarks.peers.mbi_reference`, which runs it once per (table, method, epsilon, seed).

Not a test, and not dpsynth: it runs in the benchmark's own environment (``requirements-bench-mbi.txt``:
mbi 2.0.0 from the package registry, with JAX), with the reference mechanisms of the mbi
repository (``mechanisms/aim.py``, ``mst.py``, ``mechanism.py``, ``cdp2adp.py``; not in the
wheel), which import one another as top-level modules, so their folder goes on ``PYTHONPATH``:

    PYTHONPATH=/path/to/mbi/mechanisms /path/to/mbi-env/bin/python -m benchmarks.peers.mbi_worker \\
        --method aim --codes table.npz --epsilon 1 --delta 1e-10 --seed 0 --out synthetic.npz

``table.npz`` holds ``names``, ``cells`` and one ``column_i`` array of codes per column (as
:func:`benchmarks.common.save_codes` writes it). The synthetic codes go to ``--out`` in the same form;
one JSON line on stdout gives the wall time of fit and sample and the process's peak memory: from a
minute (pums) to more than half an hour (AIM on wide tables).
The wheel's estimator is a class (``estimation.MirrorDescent``); the mechanisms call the function
``estimation.mirror_descent`` of the repository, supplied here as a thin adapter over it (and
``Dataset.df``, ``Dataset`` built from a DataFrame and ``Domain.attrs``, which ``mst.py`` uses,
as views of the wheel's own forms).
AIM runs with its defaults (``max_model_size`` 80 MB, 1,000 iterations per round) and the
workload of every pair of columns; MST as published.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import itertools
import json
import resource
import time
import warnings

from benchmarks.common import load_codes, require, save_codes


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--method", choices=["aim", "mst"], required=True)
    parser.add_argument("--codes", required=True)
    parser.add_argument("--epsilon", type=float, required=True)
    parser.add_argument("--delta", type=float, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-model-size", type=float, default=80.0, help="AIM's limit in MB (its default: 80)")
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    require("mbi", "requirements-bench-mbi.txt")
    jax = require("jax", "requirements-bench-mbi.txt")
    jax.config.update("jax_enable_x64", True)  # mbi's advice for tables of this size
    import numpy as np
    import pandas as pd
    from mbi import Dataset, Domain, estimation

    if not hasattr(estimation, "mirror_descent"):  # the mechanisms call the function form of the repository's HEAD

        class Fitted:
            """The wheel's model, with its cliques as a list (the mechanisms append to them)."""

            def __init__(self, model):
                self.model, self.cliques = model, list(model.cliques)

            def __getattr__(self, name):
                return getattr(self.model, name)

        def mirror_descent(domain, measurements, iters=1000, potentials=None, callback_fn=None):
            return Fitted(
                estimation.MirrorDescent().estimate(
                    domain, measurements, iters=iters, warm_start=potentials, callback_fn=callback_fn
                )
            )

        estimation.mirror_descent = mirror_descent
    import inspect

    if "potentials" not in inspect.signature(estimation.MirrorDescent.estimate).parameters:
        # the repository's later aim.py calls the class form with potentials= (the wheel's warm_start=)
        wheel_estimate = estimation.MirrorDescent.estimate

        def estimate(self, domain, measurements, *args, potentials=None, **kwargs):
            if potentials is not None:
                kwargs["warm_start"] = potentials
            return wheel_estimate(self, domain, measurements, *args, **kwargs)

        estimation.MirrorDescent.estimate = estimate
    if not hasattr(Dataset, "df"):  # mst.py reads and rebuilds the table as a DataFrame
        import mbi

        Dataset.df = property(lambda self: pd.DataFrame(self.data))

        def from_frame(data, domain, weights=None):
            if isinstance(data, pd.DataFrame):
                data = {c: data[c].to_numpy(dtype=np.int64) for c in data.columns}
            return Dataset(data, domain, weights)

        mbi.Dataset = from_frame
    if not hasattr(Domain, "attrs"):
        Domain.attrs = property(lambda self: self.attributes)

    frame, cells = load_codes(args.codes)
    names = list(cells)
    data = Dataset({n: frame[n].to_numpy() for n in names}, Domain(names, list(cells.values())))
    if importlib.util.find_spec(args.method) is None:
        raise SystemExit(
            f"mbi's reference {args.method}.py is not importable: put the mbi repository's mechanisms/ folder on "
            "PYTHONPATH (benchmarks.peers.mbi_reference does it from its --mechanisms)"
        )
    reference = importlib.import_module(args.method)
    np.random.seed(args.seed)  # the reference mechanisms draw from numpy's global generator
    start = time.perf_counter()
    if args.method == "aim":
        workload = [(pair, 1.0) for pair in itertools.combinations(names, 2)]
        mechanism = reference.AIM(args.epsilon, args.delta, max_model_size=args.max_model_size)
        _, synthetic = mechanism.run(data, workload, num_synth_rows=len(frame))
    else:
        synthetic = reference.MST(data, args.epsilon, args.delta)
    seconds = time.perf_counter() - start
    columns = synthetic.to_dict() if hasattr(synthetic, "to_dict") else synthetic.df
    save_codes(args.out, pd.DataFrame({n: np.asarray(columns[n], dtype=np.int64) for n in names}), cells)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "peak_mb": peak}), flush=True)


if __name__ == "__main__":
    main()
