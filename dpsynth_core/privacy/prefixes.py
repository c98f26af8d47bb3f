"""Hierarchical codes: a code too rare to release falls back to its longest released prefix.

For a text column whose prefixes the publisher declared meaningful (``prefixes`` in the
declaration: ICD-style ``428.31`` -> ``428`` -> ``42``, ZIP codes, occupation codes), the column's
vocabulary is released level by level:

1. the full codes: CatHist (:func:`~dpsynth_core.privacy.cathist.cathist`) over the declared domain;
2. for every declared prefix length ``L``, longest first: CatHist over the domain of prefixes of
   length ``L`` (:meth:`~dpsynth_core.domain.TextDomain.prefix_domain`), on the counts of each
   record's first ``L`` characters. A released prefix ``P`` enters the vocabulary as ``P*``.

Guarantee: epsilon-DP under adding or removing one record, for the whole vocabulary. The column's
``epsilon`` is split equally between the ``1 + len(prefixes)`` levels and each level is one CatHist
histogram in which a record changes one count by one, so the levels compose to ``epsilon`` (basic
composition). Each level runs with tolerance ``rho ** (1 / levels)``, so the chance that no level
holds a made-up value is exactly ``rho``, as for a column without prefixes. Prefixes enter the release
only through a level's threshold (never, for example, as the prefixes of released codes or of the
data's values), and the levels are listed in the public order of their domains.

A record's code then follows a public rule on the released vocabulary (:func:`fallback_codes`): its
full code when released, else its longest released prefix, else "other". A method that samples the
released counts directly (``cathist``) weighs a prefix ``P*`` by the records that fall back to it,
estimated from the noisy counts alone (:func:`fallback_weights`, post-processing). Must be declared in
advance: the domain and its prefix lengths.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .cathist import cathist, draw_from_generator


def level_budget(domain, epsilon: float, rho: float) -> tuple[float, float, int]:
    """Each level's epsilon and tolerance, and the number of levels (1 when no prefix is declared)."""
    levels = 1 + len(getattr(domain, "prefixes", ()) or ())
    return epsilon / levels, rho ** (1 / levels), levels


def shortened(labels: pd.Series, length: int) -> pd.Series:
    """Every label's prefix of ``length`` characters, where it has one (else None).

    A value shorter than ``length`` is its own prefix (letters); a shortened code ``P*`` has a prefix
    of length ``L`` only when ``len(P) >= L`` (its longer characters are not known).
    """
    text = labels.astype(object).where(labels.notna(), "").astype(str)
    is_short = text.str.endswith("*")
    stems = text.where(~is_short, text.str[:-1])
    usable = labels.notna() & (~is_short | (stems.str.len() >= length))
    return stems.str[:length].where(usable, None)


def _prefix_of(label: str, length: int) -> str | None:
    """:func:`shortened`'s rule for one (non-missing) label: its prefix of ``length`` characters, or None."""
    text = str(label)
    stem = text[:-1] if text.endswith("*") else text
    return stem[:length] if stem is text or len(stem) >= length else None


def _prefix_counts(labels: list, counts: np.ndarray, length: int) -> dict:
    """The counts added up by each label's prefix of ``length`` characters (:func:`shortened`'s rule,
    one label at a time: a handful of values costs microseconds, not pandas' fixed cost)."""
    out: dict = {}
    for label, count in zip(labels, counts.tolist()):
        prefix = None if pd.isna(label) else _prefix_of(label, length)
        if prefix is not None:
            out[prefix] = out.get(prefix, 0) + count
    return out


def release_levels(
    domain, counts: pd.Series, *, epsilon: float, rho: float, noise, label: str, with_missing: bool = False
):
    """The column's vocabulary released level by level (see the module docstring).

    Args:
        domain: the column's :class:`~dpsynth_core.domain.TextDomain` (with ``prefixes``).
        counts: the true count of every value present, missing left out unless ``with_missing``
            (shortened codes ``P*`` found in the data count at the levels they reach, never as full codes).
        epsilon, rho: the column's budget and tolerance, split as :func:`level_budget` says.
        with_missing: "missing" (key ``None``) is one more value of the full codes' level, last in its
            public order (as :func:`~dpsynth_core.privacy.cathist.draw_from_generator` says); a missing
            cell has no prefix, so it counts at no other level.

    Returns:
        ``(values, counts, made_up, lengths)``: the full codes released then each level's ``P*``, every
        level in its domain's public order; their noisy counts; which are made up; the level each was
        released at (0: a full code, ``L``: a prefix of ``L`` characters), the record of which values are
        prefixes that :func:`fallback_weights` reads (never the string's last character). A letters code
        shorter than a level is its own prefix there, so two levels may both release ``AB*``; only the
        shorter level's is kept (it holds every record of the longer one's, and the public rule reads
        one ``AB*``): post-processing of what was released.
    """
    each, rho_each, _ = level_budget(domain, epsilon, rho)
    keys = pd.Series(list(counts.index), dtype=object)
    true = counts.to_numpy(dtype=np.int64)
    full = ~keys.astype(str).str.endswith("*").to_numpy()
    result = cathist(
        keys[full].tolist(),
        true[full],
        domain.size + (1 if with_missing else 0),
        epsilon=each,
        rho=rho_each,
        draw_inactive=draw_from_generator(domain, with_missing=with_missing),
        noise=noise,
        label=label,
    )
    values, noisy, made_up = list(result.keys), [result.counts], [result.made_up]
    lengths = [0] * len(values)
    for length in domain.levels:
        grouped = _prefix_counts(keys.tolist(), true, length)
        level = domain.prefix_domain(length)
        present = sorted(sorted(grouped), key=level.index_of)
        result = cathist(
            present,
            np.array([grouped[key] for key in present], dtype=np.int64),
            level.size,
            epsilon=each,
            rho=rho_each,
            draw_inactive=draw_from_generator(level),
            noise=noise,
            label=f"{label} (first {length} characters)",
        )
        values += [f"{key}*" for key in result.keys]
        lengths += [length] * len(result.keys)
        noisy.append(result.counts)
        made_up.append(result.made_up)
    consistent = _consistent(values, lengths, domain.levels)
    last = {value: i for i, value in enumerate(values)}  # the shortest level that released it (the last)
    keep = [i for i, value in enumerate(values) if last[value] == i and consistent[i]]
    noisy, made_up = np.concatenate(noisy).astype(np.int64)[keep], np.concatenate(made_up).astype(bool)[keep]
    return [values[i] for i in keep], noisy, made_up, [lengths[i] for i in keep]


def _consistent(values: list, lengths: list, levels: tuple) -> list[bool]:
    """Which released values sit under a released prefix at every shorter declared level (post-processing
    of the released levels alone: no record is read).

    A real code above its level's threshold has a prefix holding at least its records, so that prefix is
    almost always released too; a made-up code (an empty value whose noise crossed the threshold) sits
    under a real prefix only by chance, and under a made-up one with the tiny chance of two independent
    crossings. So a full code is kept only when its prefix was released at every level, and a prefix
    ``P*`` only when its own prefixes were at every shorter level: a made-up code survives with about the
    chance of the last level's prefix being real, and "missing" is kept as it came. A code dropped here
    goes, by the public rule, to its longest released prefix, whose weight then holds its records
    (:func:`fallback_weights` subtracts only the released values below it). The shortest level is kept whole.
    """
    released = {length: set() for length in levels}
    for value, length in zip(values, lengths):
        if length:
            released[length].add(value[:-1])
    ok = [True] * len(values)
    for length in sorted(levels):  # shortest first: a prefix dropped here is not there for the levels above
        released[length] = {
            stem
            for stem in released[length]
            if all(stem[:lower] in released[lower] for lower in levels if lower < length)
        }
    for i, (value, length) in enumerate(zip(values, lengths)):
        if value is None:
            continue
        if length:
            ok[i] = value[:-1] in released[length]
        else:
            ok[i] = all(_prefix_of(value, lower) in released[lower] for lower in levels)
    return ok


def fallback_weights(values: list, noisy: np.ndarray, lengths) -> np.ndarray:
    """How many records fall back to each released value, from the released noisy counts alone
    (post-processing: no record is read). A full code (or "missing", ``None``) keeps its noisy count; a
    prefix ``P*`` gets its noisy count minus those of the released values right below it (whose longest
    released shorter prefix is ``P*``: their records do not fall back to ``P*``), floored at 0.

    ``lengths`` says what the release made of each value (:func:`release_levels`' fourth result): 0 for a
    full code, ``L`` for a prefix released at the level of ``L`` characters. A value's last character is
    never read as the mark: a declared full code may end with ``*``.

    >>> values, lengths = ["42831", "42899", "428*", "42*", "51*"], [0, 0, 3, 2, 2]
    >>> fallback_weights(values, np.array([50, 3, 70, 90, 8]), lengths).tolist()
    [50.0, 3.0, 17.0, 20.0, 8.0]
    """
    noisy = np.asarray(noisy, dtype=float)
    weights = noisy.copy()
    own = np.asarray([int(length) for length in lengths], dtype=np.int64)
    if len(own) != len(values):
        raise ValueError("fallback_weights: one length per released value")
    labels = np.empty(len(values), dtype=object)
    labels[:] = values
    # Each value's parent: its longest released prefix at a level below its own (a full code: any level; a
    # prefix P at level L: the shorter levels its stem reaches), by the public rule, one lookup per level.
    parent = np.full(len(values), -1, dtype=np.int64)
    named = np.array([value is not None for value in values], dtype=bool)
    for level in sorted({int(length) for length in own if length > 0}, reverse=True):
        keys = np.flatnonzero(own == level)
        asking = np.flatnonzero(named & (parent < 0) & ((own == 0) | (own > level)))
        if not asking.size:
            continue
        found = fallback_codes(labels[asking], tuple(labels[keys]), (level,))
        hit = found < keys.size
        parent[asking[hit]] = keys[found[hit]]
    has = parent >= 0
    np.subtract.at(weights, parent[has], noisy[has])
    return np.clip(weights, 0, None)


def fallback_codes(labels, values: tuple, levels: tuple) -> np.ndarray:
    """Codes by the public rule: the index of a label in ``values`` (a released full code, or a shortened
    code of the data read as itself), else of its longest released prefix ``P*`` among ``levels``, else
    ``len(values)`` ("other"). ``None`` in ``values`` stands for missing. Vectorised over the labels."""
    if len(labels) <= _FEW:
        small = _fallback_few(labels, values, levels)
        if small is not None:
            return small
    labels = pd.Series(np.asarray(labels, dtype=object))
    keys = pd.Index(["\x00missing" if v is None else v for v in values])
    missing = labels.isna().to_numpy()
    codes = keys.get_indexer(labels.where(~labels.isna(), "\x00missing").to_numpy(dtype=object))
    for length in levels:
        todo = (codes < 0) & ~missing
        if not todo.any():
            break
        prefix = shortened(labels[todo], length)
        found = keys.get_indexer((prefix + "*").where(prefix.notna(), "\x00none").to_numpy(dtype=object))
        codes[np.flatnonzero(todo)] = found
    return np.where(codes < 0, len(values), codes).astype(np.int64)


#: Up to this many labels, :func:`fallback_codes` looks them up one by one (pandas' fixed cost
#: dominates a few labels, as in the many small releases of an audit).
_FEW = 2_000


def _fallback_few(labels, values: tuple, levels: tuple) -> np.ndarray | None:
    """:func:`fallback_codes` one label at a time, by :func:`shortened`'s rule (None when two values
    are the same key, which the vectorised path refuses)."""
    keys = ["\x00missing" if v is None else v for v in values]
    where = {key: i for i, key in enumerate(keys)}
    if len(where) != len(keys):
        return None
    other = len(values)
    codes = []
    for label in np.asarray(labels, dtype=object).tolist():
        if pd.isna(label):
            codes.append(where.get("\x00missing", other))
            continue
        code = where.get(label, -1)
        for length in levels:
            if code >= 0:
                break
            prefix = _prefix_of(label, length)
            if prefix is not None:
                code = where.get(prefix + "*", -1)
        codes.append(code if code >= 0 else other)
    return np.array(codes, dtype=np.int64)
