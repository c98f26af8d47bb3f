"""A checkout laid out as Rdatasets' for the benchmarks that read one: the repository's copy of palmerpenguins' table
(344 rows), with the row names Rdatasets writes."""

from pathlib import Path

import pandas as pd

from benchmarks.common import DATASETS


def penguins_checkout(root: Path) -> Path:
    """``root`` holding ``csv/palmerpenguins/penguins.csv``, as a checkout of Rdatasets does; returns ``root``."""
    folder = root / "csv" / "palmerpenguins"
    folder.mkdir(parents=True)
    table = pd.read_csv(DATASETS / "penguins.csv")
    table.insert(0, "rownames", range(1, len(table) + 1))
    table.to_csv(folder / "penguins.csv", index=False)
    return root
