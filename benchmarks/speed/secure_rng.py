"""What the secure path's cryptographic helper generator costs. Not a test: prints a table.

    python -m benchmarks.speed.secure_rng      # about 30 seconds

Compares, on this machine, numpy's PCG64 (the seeded path, and the old secure path's helper
generator) with randomgen's ChaCha20 (the secure path's helper generator now) and AESCounter:
raw draws, a cathist release of adult (secure: count noise from OpenDP either way), and the
sampling of 1,000,000 rows from a fitted model. Best of 3 runs after a warm-up. Figures:
docs/benchmarks/speed.md.
"""

from __future__ import annotations

import argparse
import secrets
import time

import numpy as np
import pandas as pd

from benchmarks.common import SHARED, adult_declaration


def generators():
    from randomgen import AESCounter, ChaCha

    return {
        "PCG64": lambda: np.random.Generator(np.random.PCG64(secrets.randbits(256))),
        "ChaCha20 (secure path)": lambda: np.random.Generator(ChaCha(key=secrets.randbits(256), rounds=20)),
        "AESCounter": lambda: np.random.Generator(AESCounter(key=secrets.randbits(128))),
    }


def best(fn, repeats=3) -> float:
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv=None) -> None:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args(argv)
    from dpsynth_core.privacy import noise
    from dpsynth_core.synthesizers.cathist import CatHistSynthesizer

    frame = pd.read_csv(SHARED / "adult.csv", dtype=str, keep_default_na=False)
    spec = adult_declaration()
    rows = []
    for name, make in generators().items():
        rng = make()
        rows.append(
            {
                "generator": name,
                "10^7 uniforms (s)": best(lambda rng=rng: rng.random(10_000_000)),
                "10^7 integers (s)": best(lambda rng=rng: rng.integers(0, 1000, 10_000_000)),
                "10^6 weighted choices of 100 (s)": best(
                    lambda rng=rng: rng.choice(100, 1_000_000, p=np.full(100, 0.01))
                ),
            }
        )
        original = noise.secure_generator
        noise.secure_generator = make  # the secure path with this helper generator
        try:
            rows[-1]["cathist release of adult (s)"] = best(
                lambda: CatHistSynthesizer(epsilon=1.0).fit(frame, spec).sample()
            )
            model = CatHistSynthesizer(epsilon=1.0).fit(frame, spec)
            rows[-1]["sample 10^6 rows (s)"] = best(lambda model=model: model.sample(1_000_000), repeats=2)
        finally:
            noise.secure_generator = original
    seeded = CatHistSynthesizer(epsilon=1.0, random_state=1).fit(frame, spec)
    rows.append(
        {
            "generator": "seeded numpy PCG64, count noise too (tests only)",
            "cathist release of adult (s)": best(
                lambda: CatHistSynthesizer(epsilon=1.0, random_state=1).fit(frame, spec).sample()
            ),
            "sample 10^6 rows (s)": best(lambda: seeded.sample(1_000_000), repeats=2),
        }
    )
    print(pd.DataFrame(rows).set_index("generator").round(3).to_string())


if __name__ == "__main__":
    main()
