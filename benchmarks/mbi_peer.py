"""Run mbi 2.0's reference AIM or MST on a table of integer codes (a worker of benchmarks/versus_aim.py).

Not a test, and not dpsynth: it runs in the benchmark's own environment (``requirements-bench-mbi.txt``:
mbi 2.0.0 from the package registry, with JAX), with the reference mechanisms of the mbi
repository (``mechanisms/aim.py``, ``mst.py``, ``mechanism.py``, ``cdp2adp.py``; not in the
wheel), whose folder is given by ``--mechanisms``:

    /work/benchvenv/bin/python benchmarks/mbi_peer.py --mechanisms /path/to/mbi/mechanisms \\
        --method aim --codes table.npz --epsilon 1 --delta 1e-10 --seed 0 --out synthetic.npz

``table.npz`` holds ``names``, ``cells`` and one ``column_i`` array of codes per column (as
:func:`benchmarks.versus_aim.save_codes` writes it). The synthetic codes go to ``--out``;
one JSON line on stdout gives the wall time of fit and sample and the process's peak memory.
The wheel's estimator is a class (``estimation.MirrorDescent``); the mechanisms call the function
``estimation.mirror_descent`` of the repository, supplied here as a thin adapter over it (and
``Dataset.df``, ``Dataset`` built from a DataFrame and ``Domain.attrs``, which ``mst.py`` uses,
as views of the wheel's own forms).
AIM runs with its defaults (``max_model_size`` 80 MB, 1,000 iterations per round) and the
workload of every pair of columns; MST as published.
"""

from __future__ import annotations

import argparse
import itertools
import json
import resource
import sys
import time
import warnings


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mechanisms", required=True, help="folder of mbi's mechanisms/aim.py and mst.py")
    parser.add_argument("--method", choices=["aim", "mst"], required=True)
    parser.add_argument("--codes", required=True)
    parser.add_argument("--epsilon", type=float, required=True)
    parser.add_argument("--delta", type=float, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-model-size", type=float, default=80.0, help="AIM's limit in MB (its default: 80)")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    sys.path.insert(0, args.mechanisms)

    import jax

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

    stored = np.load(args.codes)
    names = [str(n) for n in stored["names"]]
    cells = [int(c) for c in stored["cells"]]
    frame = pd.DataFrame({n: stored[f"column_{i}"] for i, n in enumerate(names)})
    data = Dataset({n: frame[n].to_numpy() for n in names}, Domain(names, cells))
    np.random.seed(args.seed)  # the reference mechanisms draw from numpy's global generator
    start = time.perf_counter()
    if args.method == "aim":
        from aim import AIM

        workload = [(pair, 1.0) for pair in itertools.combinations(names, 2)]
        mechanism = AIM(args.epsilon, args.delta, max_model_size=args.max_model_size)
        _, synthetic = mechanism.run(data, workload, num_synth_rows=len(frame))
    else:
        from mst import MST

        synthetic = MST(data, args.epsilon, args.delta)
    seconds = time.perf_counter() - start
    columns = synthetic.to_dict() if hasattr(synthetic, "to_dict") else synthetic.df
    np.savez(args.out, **{f"column_{i}": np.asarray(columns[n], dtype=np.int64) for i, n in enumerate(names)})
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "peak_mb": peak}), flush=True)


if __name__ == "__main__":
    main()
