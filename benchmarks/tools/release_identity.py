"""Seeded releases saved, then compared byte for byte, with their CPU seconds: for speed work that
must not change any result.

    python -m benchmarks.tools.release_identity save  DIR   # before the change (from the old checkout)
    python -m benchmarks.tools.release_identity check DIR   # after: same data, card (but "created") and report?
    python -m benchmarks.tools.release_identity check DIR --method marginals --repeats 3

Tables: the bundled adult example (seeds 0-2) and the shared pums and compas tables (seeds 0-1,
through :func:`benchmarks.common.load_table`). CPU seconds are ``time.process_time`` (every thread of the
process), best of ``--repeats``: on a shared machine they hold better than wall times. With ``marginals``
and one repeat a run takes about 20 seconds.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
import time
from pathlib import Path

from benchmarks.common import load_table


def tables():
    from dpsynth_core.data.examples import example_csv, example_declaration
    from dpsynth_core.data.tables import read_table

    yield "adult", read_table(example_csv("adult"))[0], example_declaration("adult"), (0, 1, 2)
    for name in ("pums", "compas"):
        frame, spec = load_table(name)
        yield name, frame, spec, (0, 1)


def _without_created(value):
    if isinstance(value, dict):
        return {k: _without_created(v) for k, v in value.items() if k != "created"}
    if isinstance(value, list):
        return [_without_created(v) for v in value]
    return value


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=("save", "check"))
    parser.add_argument("folder", type=Path)
    parser.add_argument("--method", default="marginals")
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args(argv)
    from dpsynth_core import synthesize

    args.folder.mkdir(parents=True, exist_ok=True)
    same = True
    for name, frame, spec, seeds in tables():
        for seed in seeds:
            seconds = []
            for _ in range(max(1, args.repeats)):
                start = time.process_time()
                release = synthesize(frame, spec, args.epsilon, method=args.method, random_state=seed)
                seconds.append(time.process_time() - start)
            got = {
                "data": release.data,
                "card": _without_created(json.loads(json.dumps(release.card, default=str))),
                "report": _without_created(json.loads(json.dumps(release.publisher_report, default=str))),
            }
            path = args.folder / f"{args.method}_{name}_{seed}.pkl"
            if args.mode == "save":
                path.write_bytes(pickle.dumps(got))
                verdict = "saved"
            else:
                saved = pickle.loads(path.read_bytes())
                ok = saved["data"].equals(got["data"]) and all(saved[k] == got[k] for k in ("card", "report"))
                same &= ok
                verdict = "same" if ok else "DIFFERENT"
            print(f"{name} ({len(frame):,} rows) seed {seed}: {verdict}, {min(seconds):.3f} CPU s", flush=True)
    if args.mode == "check":
        print("all the same" if same else "SOME DIFFER")
        sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
