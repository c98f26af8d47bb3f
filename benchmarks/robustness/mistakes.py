"""A publisher's mistakes in a declaration: what a non-expert gets wrong when declaring from a codebook, for the
unseen-table hunt (``python -m benchmarks.robustness.unseen --mistakes RATE``).

:func:`mistaken` takes a declaration the real table fits (:func:`benchmarks.robustness.unseen.declare_loosely`) and
makes each column wrong with probability ``rate``, in one of the ways the column's kind allows:

* ``narrow top`` / ``high bottom``: a range whose end cuts into the data (a codebook's "usual" range, or last
  year's): the maximum at the data's 75th percentile, or the minimum at its 25th;
* ``whole numbers``: decimals declared as whole numbers;
* ``forgotten category``: a category the records hold that the documentation left out (of a list of three or more);
* ``category's case``: one category written in another case (``male`` for ``Male``);
* ``no missing``: ``"missing": false`` for a column with empty cells;
* ``dates cut short``: a date range that ends before the data's last decade.

The product must refuse such a declaration in one line or release inside it: never a crash, and never a value
outside what was declared (the records that do not fit are read as the declaration's rule says: clamped,
rounded, missing or ``other``; ``check-declaration`` and the Domain page name them to the publisher). The harness
reads the data to make the mistakes; no part of dpsynth does.

Run alone, it measures whether the publisher is told of each mistake before any draw: on tables drawn as the hunt
draws them, every mistake made and whether the check that ``check-declaration`` and the Preview run
(:func:`dpsynth_core.data.misfits.fit_notes`, on the table read from its CSV text as an upload is) names its column:

    python -m benchmarks.robustness.mistakes --root /tmp/Rdatasets --seed 117 --count 40 --rate 0.4
"""

from __future__ import annotations

import argparse
import copy
import math
import random
import re
from collections import Counter
from pathlib import Path

import pandas as pd


def mistaken(spec: dict, frame: pd.DataFrame, rng: random.Random, rate: float) -> tuple[dict, list[str]]:
    """``spec`` with each declared column made wrong with probability ``rate`` (the module docstring): the new
    declaration and one line per mistake (``column: what``)."""
    out, made = copy.deepcopy(spec), []
    for name, column in out["columns"].items():
        if rng.random() >= rate or name not in frame.columns:
            continue
        mistake = _mistake(column, frame[name], rng)
        if mistake is not None:
            made.append(f"{name}: {mistake}")
    return out, made


def seeded_mistakes(seed: int):
    """:func:`mistaken` with the mistakes drawn at a hunt's ``seed``, one generator per table from their own stream (so
    a seed draws the same tables and doors with mistakes as without, and this benchmark the hunt's mistakes)."""
    draws = random.Random(seed + 1)
    return lambda spec, frame, rate: mistaken(spec, frame, random.Random(draws.randrange(1 << 30)), rate)


def _mistake(column: dict, values: pd.Series, rng: random.Random) -> str | None:
    """Make ``column`` wrong in place, in a way its kind allows; what was done, or None (no mistake fits)."""
    kind, present = column.get("type"), values.dropna()
    choices = []
    if kind in ("integer", "float"):
        numbers = pd.to_numeric(present, errors="coerce").dropna()
        if numbers.nunique() >= 4:
            choices += ["narrow top", "high bottom"]
        if kind == "float" and not (numbers == numbers.round()).all():
            choices.append("whole numbers")
    if kind == "categorical" and len(column.get("values", [])) >= 3:
        choices.append("forgotten category")
    held = {str(v).strip() for v in present.unique()}
    lettered = [i for i, v in enumerate(column.get("values", [])) if v in held and v.lower() != v.upper()]
    if kind == "categorical" and lettered:
        choices.append("category's case")
    if kind not in (None, "drop") and values.isna().any() and column.get("missing", True):
        choices.append("no missing")
    if kind == "date" and len(present) > 1:
        choices.append("dates cut short")
    if not choices:
        return None
    mistake = rng.choice(choices)
    if mistake in ("narrow top", "high bottom"):
        numbers = pd.to_numeric(present, errors="coerce").dropna()
        cut = float(numbers.quantile(0.75 if mistake == "narrow top" else 0.25))
        cut = int(cut) if kind == "integer" else round(cut, 6)
        end = "max" if mistake == "narrow top" else "min"
        if (end == "max" and not column["min"] < cut < numbers.max()) or (
            end == "min" and not numbers.min() < cut < column["max"]
        ):
            return None  # a cut that leaves every record inside, or the range empty: no mistake
        column[end] = cut
        return f"{mistake}: {end} {cut}"
    if mistake == "whole numbers":
        column["type"] = "integer"
        column["min"], column["max"] = math.floor(column["min"]), math.ceil(column["max"])
        column.pop("decimals", None)
        return mistake
    if mistake == "forgotten category":
        real = [v for v in column["values"] if str(v) in held]  # not the "Unknown" or the code no record holds
        if not real:
            return None
        gone = rng.choice(real)
        column["values"] = [v for v in column["values"] if v != gone]
        return f"{mistake}: {gone!r}"
    if mistake == "category's case":
        i = rng.choice(lettered)  # a category the records hold, not the "Unknown" no record holds
        old = column["values"][i]
        new = old.lower() if old != old.lower() else old.upper()
        if new in column["values"]:
            return None
        column["values"][i] = new
        return f"{mistake}: {old!r} as {new!r}"
    if mistake == "no missing":
        column["missing"] = False
        return mistake
    dates = pd.to_datetime(present.astype(str), errors="coerce", format="ISO8601").dropna()
    last = int(dates.max().year) // 10 * 10 - 1
    if last < int(str(column["min"])[:4]):
        return None
    column["max"] = f"{last}-12-31"
    return f"{mistake}: max {column['max']}"


def told(frame: pd.DataFrame, spec: dict, made: list[str]) -> list[bool]:
    """For each mistake of ``made``, whether the publisher's check names its column (any note of
    :func:`~dpsynth_core.data.misfits.fit_notes`), on ``frame`` read from its CSV text as an upload is: at once, or
    once the spellings of missing values it names (``NA``) are declared, as its note asks (a note of one spelling
    names its first five columns and counts the others)."""
    from benchmarks.robustness.unseen import uploaded_cells
    from dpsynth_core.data.misfits import fit_notes
    from dpsynth_core.domain import TableDomain

    cells = uploaded_cells(frame)

    def said(declaration: dict):
        notes = fit_notes(cells, TableDomain.from_json(declaration))
        lines = [line for _, _, found, _ in notes.advice() for line in found] + [*notes.missing, *notes.clamped]
        return " ".join(lines), notes.spelled

    first, spelled = said(spec)
    spellings = [m for line in spelled for m in re.findall(r"cells? written '(.+?)' in", line)]
    markers = spec.get("missing_values", {}).get("markers", [""])
    then = said({**spec, "missing_values": {"markers": [*markers, *spellings]}})[0] if spellings else ""
    return [f"'{line.split(': ')[0]}'" in first + then for line in made]  # "Column 'age': ...", "columns: 'age'"


def main(argv=None) -> Counter:
    from benchmarks.robustness.unseen import COLUMNS, ROWS, tables
    from dpsynth_core.errors import DomainError

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, required=True, help="a checkout of Rdatasets")
    parser.add_argument("--seed", type=int, default=117, help="which tables are drawn, and the mistakes")
    parser.add_argument("--count", type=int, default=40)
    parser.add_argument("--rate", type=float, default=0.4, help="the chance that a declared column is made wrong")
    args = parser.parse_args(argv)
    make_mistakes, found = seeded_mistakes(args.seed), Counter()
    for name, frame, spec in tables(args.root, args.seed, args.count, ROWS, COLUMNS):
        wrong, made = make_mistakes(spec, frame, args.rate)
        try:
            said = told(frame, wrong, made)
        except DomainError:  # a declaration the schema refuses in one line (a range past 10^15): nothing to tell
            continue
        for line, was_told in zip(made, said):
            kind = line.split(": ")[1]
            found[(kind, was_told)] += 1
            if not was_told:
                print(f"not told  {name}: {line}", flush=True)
    kinds = sorted({kind for kind, _ in found})
    for kind in kinds:
        print(f"{kind:20s} told {found[(kind, True)]:4d}  not told {found[(kind, False)]:4d}")
    return found


if __name__ == "__main__":
    main()
