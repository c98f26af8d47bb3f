"""k-anonymity and l-diversity by generalisation and suppression (book chapter 6, section 6.2).

For teaching the contrast with differential privacy. Not a privacy mechanism of this tool:
k-anonymity makes every combination of quasi-identifiers shared by at least ``k`` records,
but a group whose members all share the sensitive value still gives that value away (the
homogeneity attack), and the guarantee says nothing about what else an attacker knows.

Generalisation uses public hierarchies, one list of levels per quasi-identifier (level 0
is the exact value); the search takes the combination of levels with the least total
generalisation that reaches k-anonymity after suppressing at most ``max_suppressed`` of
the rows (full-domain generalisation, in the spirit of Samarati and Sweeney's lattice).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import pandas as pd


def age_band(width: int):
    def generalise(values: pd.Series) -> pd.Series:
        numbers = pd.to_numeric(values, errors="coerce")
        low = (numbers // width * width).astype("Int64")
        return low.astype(str) + "-" + (low + width - 1).astype(str)

    return generalise


def keep(values: pd.Series) -> pd.Series:
    return values.astype(str)


def suppress(values: pd.Series) -> pd.Series:
    return pd.Series("*", index=values.index)


def us_or_not(values: pd.Series) -> pd.Series:
    return values.map(lambda v: "United-States" if v == "United-States" else ("*" if v == "" else "outside US"))


#: Public hierarchies for the bundled adult example's quasi-identifiers.
ADULT_HIERARCHIES = {
    "age": [keep, age_band(5), age_band(10), age_band(20), suppress],
    "sex": [keep, suppress],
    "race": [keep, suppress],
    "native-country": [keep, us_or_not, suppress],
}


@dataclass
class KAnonymity:
    """A k-anonymous version of a table and what it took."""

    table: pd.DataFrame
    levels: dict
    suppressed: int
    k: int


def k_anonymize(frame: pd.DataFrame, hierarchies: dict, k: int, max_suppressed: float = 0.01) -> KAnonymity:
    """The least-generalised full-domain generalisation that is k-anonymous after suppression."""
    names = list(hierarchies)
    combos = sorted(itertools.product(*[range(len(hierarchies[n])) for n in names]), key=lambda c: (sum(c), c))
    limit = int(max_suppressed * len(frame))
    for combo in combos:
        general = frame.copy()
        for name, level in zip(names, combo):
            general[name] = hierarchies[name][level](frame[name]).to_numpy()
        sizes = general.groupby(names, dropna=False)[names[0]].transform("size")
        small = sizes < k
        if small.sum() <= limit:
            return KAnonymity(general[~small].reset_index(drop=True), dict(zip(names, combo)), int(small.sum()), k)
    raise ValueError(f"no generalisation reaches {k}-anonymity within the suppression limit")


def equivalence_classes(table: pd.DataFrame, quasi: list, sensitive: str) -> pd.DataFrame:
    """Per class of identical quasi-identifiers: its size, distinct sensitive values (l), the top value and share."""
    grouped = table.groupby(quasi, dropna=False)[sensitive]
    out = pd.DataFrame(
        {
            "size": grouped.size(),
            "distinct values (l)": grouped.nunique(),
            "most common value": grouped.agg(lambda s: s.value_counts().index[0]),
            "share of most common": grouped.agg(lambda s: s.value_counts(normalize=True).iloc[0]),
        }
    )
    return out.reset_index().sort_values(["distinct values (l)", "size"], ascending=[True, False])


def homogeneity_attack(classes: pd.DataFrame) -> pd.DataFrame:
    """Classes whose members all share the sensitive value: knowing a person is in one reveals it."""
    return classes[classes["distinct values (l)"] == 1]


def l_diversity(classes: pd.DataFrame) -> int:
    """The l the table satisfies: the fewest distinct sensitive values in any class."""
    return int(min(classes["distinct values (l)"], default=0))


__all__ = [
    "ADULT_HIERARCHIES",
    "KAnonymity",
    "k_anonymize",
    "equivalence_classes",
    "homogeneity_attack",
    "l_diversity",
    "age_band",
    "keep",
    "suppress",
    "us_or_not",
]
