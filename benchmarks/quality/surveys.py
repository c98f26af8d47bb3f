"""A survey's skipped questions in the default method's releases. Not a test: prints a table.

    python -m benchmarks.quality.surveys [--seeds 5] [--epsilon 1] [--game 3] [--no-blocks]
        [--table PATH --domain DECLARATION.json [--header-rows N]]

By default FiveThirtyEight's Star Wars survey (``tests/datasets/star_wars.csv``, 1,186 respondents, its header
over two rows, declared from its questionnaire): about 10 s a seed, and about 5 s for each distinguishing game.
For each question answered over several columns (:mod:`dpsynth_core.synthesizers.marginals.blocks`) it reports the
share of records that skipped all of its columns and that skipped some but not all, real and synthetic; then the
mean 1-way and 2-way TVD over the categorical columns (2-way over at most 300 pairs, in column order), how far each
column's share of missing cells is off, and the distinguishing game's accuracy on the first ``--game`` seeds.
``--no-blocks`` turns the blocks off (the release before them). Figures: docs/benchmarks/history.md (thirty-first
round).
"""

from __future__ import annotations

import argparse
import itertools
import json
from pathlib import Path

import numpy as np
import pandas as pd

STAR_WARS = Path(__file__).resolve().parents[2] / "tests" / "datasets" / "star_wars"


def _cells(frame: pd.DataFrame, kept: list) -> pd.DataFrame:
    """Every kept cell as text, a missing one (absent, empty or ``NA``) as ``<NA>``."""
    cells = frame[kept].astype(object)
    return cells.where(cells.notna() & ~cells.astype(str).isin(["", "NA"]), "<NA>").astype(str)


def skips(cells: pd.DataFrame, columns: list) -> tuple[float, float]:
    """The shares of records missing in all of ``columns``, and in some but not all."""
    count = (cells[columns] == "<NA>").sum(axis=1)
    return float((count == len(columns)).mean()), float(((count > 0) & (count < len(columns))).mean())


def _tvd(real: pd.Series, synthetic: pd.Series) -> float:
    return 0.5 * float(real.subtract(synthetic, fill_value=0).abs().sum())


def scores(real: pd.DataFrame, synthetic: pd.DataFrame, categorical: list, pairs: int = 300) -> dict:
    """Mean 1-way and 2-way TVD over ``categorical`` (the first ``pairs`` pairs), and the missing shares' mean
    error."""
    one = [_tvd(real[c].value_counts(normalize=True), synthetic[c].value_counts(normalize=True)) for c in categorical]
    two = [
        _tvd(real.groupby([a, b]).size() / len(real), synthetic.groupby([a, b]).size() / len(synthetic))
        for a, b in list(itertools.combinations(categorical, 2))[:pairs]
    ]
    missing = [abs((real[c] == "<NA>").mean() - (synthetic[c] == "<NA>").mean()) for c in real.columns]
    return {"1-way TVD": np.mean(one), "2-way TVD": np.mean(two) if two else np.nan, "missing off": np.mean(missing)}


def run(path, declaration: dict, header_rows, seeds: int, epsilon: float, game: int, blocks_on: bool = True, pairs=300):
    """The table's blocks (question -> real skip shares) and one row of figures per seed."""
    from dpsynth_core.data.formats import read_data
    from dpsynth_core.domain import TableDomain
    from dpsynth_core.evaluation.metrics import distinguishing_game, paired_codes
    from dpsynth_core.release import synthesize
    from dpsynth_core.synthesizers.marginals import blocks

    frame, _ = read_data(path, header_rows=header_rows)
    domain = TableDomain.from_json(declaration)
    kept = list(domain.kept)
    real = _cells(frame, kept)
    found = blocks.question_blocks({n: bool(c.missing) for n, c in domain.kept.items()})
    categorical = [n for n, c in domain.kept.items() if c.kind == "categorical"]
    before, blocks.MIN_COLUMNS = blocks.MIN_COLUMNS, (blocks.MIN_COLUMNS if blocks_on else 10**9)
    try:
        rows = []
        for seed in range(seeds):
            release = synthesize(frame, declaration, epsilon, random_state=seed)
            synthetic = _cells(release.data, kept)
            row = {"seed": seed, **scores(real, synthetic, categorical, pairs)}
            for i, block in enumerate(found):
                row[f"Q{i + 1} all"], row[f"Q{i + 1} some"] = skips(synthetic, list(block.columns))
            if seed < game:
                row["game"] = distinguishing_game(paired_codes(frame, release.data, domain), random_state=0).accuracy
            rows.append(row)
    finally:
        blocks.MIN_COLUMNS = before
    return {b.question: skips(real, list(b.columns)) for b in found}, pd.DataFrame(rows)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--game", type=int, default=3, help="seeds that also play the distinguishing game")
    parser.add_argument("--no-blocks", action="store_true", help="the release without question blocks")
    parser.add_argument("--table", help="a survey (default: the Star Wars survey in tests/datasets)")
    parser.add_argument("--domain", help="its declaration (JSON)")
    parser.add_argument("--header-rows", type=int, help="rows its header spans (the Star Wars survey: 2)")
    args = parser.parse_args(argv)
    if bool(args.table) != bool(args.domain):
        parser.error("--table and --domain go together")
    path = args.table or f"{STAR_WARS}.csv"
    declaration = json.loads(Path(args.domain or f"{STAR_WARS}.domain.json").read_text())
    header_rows = args.header_rows if args.table else 2
    real, rows = run(path, declaration, header_rows, args.seeds, args.epsilon, args.game, not args.no_blocks)
    from benchmarks.common import markdown

    for i, (question, (every, some)) in enumerate(real.items()):
        print(f"Q{i + 1}: {question[:70]}: real all {every:.3f}, some {some:.3f}")
    print(markdown(rows, ".4f"))
    print(markdown(rows.drop(columns="seed").mean().to_frame("mean").T, ".4f"))


if __name__ == "__main__":
    main()
