"""Finite columns: public code order, "missing" and "other" as codes of their own, the decoding
rule for "other", and audits of the CatHist vocabulary (new value; frequency order restored)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpsynth_core.data.encoding import EncodedColumn, encode_column
from dpsynth_core.domain import TextDomain
from dpsynth_core.privacy import cathist as ch
from dpsynth_core.privacy.noise import make_noise_source
from dpsynth_core.synthesizers.finite import finite_column
from tests.audit import audit, clopper_pearson, restore_frequency_order

WORDS = TextDomain(name="w", generator="english_word")


def _column(values, domain=WORDS) -> EncodedColumn:
    return encode_column(domain, pd.Series(values, dtype=object))


def _finite(values, seed=0, eps=1.0, rho=0.9, domain=WORDS):
    return finite_column(_column(values, domain), text_epsilon=eps, rho=rho, noise=make_noise_source(seed), label="w")


def test_vocabulary_codes_follow_the_public_order_and_missing_has_its_own_code():
    values = ["zebra"] * 300 + ["apple"] * 100 + ["mango"] * 200 + ["quartz"] * 2 + [""] * 50
    column = _finite(values, eps=2.0)
    assert column.vocabulary == sorted(column.vocabulary, key=WORDS.index_of)
    assert {"apple", "mango", "zebra"} <= set(column.vocabulary)
    other, missing = column.other_code, column.missing_code
    assert (other, missing, column.cells) == (
        len(column.vocabulary),
        len(column.vocabulary) + 1,
        len(column.vocabulary) + 2,
    )
    codes = column.codes
    assert (codes[-50:] == missing).all()  # the 50 missing cells: never merged with "other"
    if "quartz" not in column.vocabulary:
        assert (codes[600:602] == other).all()
    assert (codes[:300] == column.vocabulary.index("zebra")).all()


def test_no_missing_code_when_the_column_cannot_be_missing():
    domain = TextDomain(name="w", generator="english_word", missing=False)
    column = _finite(["apple"] * 100 + [""] * 10, domain=domain, eps=2.0)
    assert column.missing_code is None and column.cells == len(column.vocabulary) + 1
    assert column.codes.max() <= column.other_code


def test_other_decodes_to_vocabulary_values_in_proportion_to_their_noisy_counts():
    column = _finite(["apple"] * 300 + ["mango"] * 100 + ["zoo"], eps=2.0)
    noise = make_noise_source(1)
    decoded = column.decode(np.full(40_000, column.other_code), noise)
    assert set(decoded) <= set(column.vocabulary)
    weights = np.clip(column.vocabulary_counts, 0, None) / np.clip(column.vocabulary_counts, 0, None).sum()
    share = (decoded == "apple").mean()
    expected = weights[column.vocabulary.index("apple")]
    assert abs(share - expected) < 4 * np.sqrt(expected * (1 - expected) / 40_000)
    missing = column.decode(np.array([column.missing_code, 0]), noise)
    assert missing.iloc[0] is None and missing.iloc[1] == column.vocabulary[0]


def test_empty_vocabulary_decodes_other_to_the_public_placeholder():
    # Nothing survives at a tiny epsilon (rho close to 1: no made-up value either, almost surely).
    for domain in (WORDS, TextDomain(name="w", generator="english_word", missing=False)):
        column = _finite(["apple", "mango", ""], eps=0.05, rho=0.999, domain=domain)
        assert column.vocabulary == []
        decoded = column.decode(np.array([column.other_code] * 5 + [column.cells - 1]), make_noise_source(0))
        assert (decoded[:5] == "a").all()  # the first English word, never "missing" nor a random value
        assert (decoded.iloc[5] is None) == domain.missing


def test_made_up_values_in_the_output_follow_rho_exactly():
    # 40% of the rows hold values too rare to be kept: they are "other". The decoded column
    # must hold no made-up value with probability rho (as CatHist alone), not one per row.
    rho = 0.6
    values = ["apple"] * 300 + ["mango"] * 300 + [f"{w}" for w in ("ant", "bee", "cat", "dog", "eel") * 80]
    present = set(values)
    encoded = _column(values)
    clean, runs = 0, 400
    for seed in range(runs):
        column = finite_column(encoded, text_epsilon=0.2, rho=rho, noise=make_noise_source(seed), label="w")
        decoded = column.decode(np.full(2000, column.other_code), make_noise_source(seed + 10_000))
        made_up = set(decoded.dropna()) - present
        assert made_up <= set(column.vocabulary) - present
        clean += not made_up
    low, high = clopper_pearson(clean, runs, 0.999)
    assert low <= rho <= high + 0.01  # a made-up value with tiny weight may be missed by 2,000 draws


# --- audits of the vocabulary ------------------------------------------------------------

EPS, RHO = 0.5, 0.5
# A new word joins the data (checklist 2).
_D = ["apple"] * 30 + ["zebra"] * 31
_D_NEW = _D + ["mango"]
# One record ties the frequency order (checklist 13): zebra leads in D, apple in D' (first seen).
_D_ORDER = ["apple"] * 30 + ["zebra"] * 31 + [""] * 5
_D_ORDER_PRIME = _D_ORDER + ["apple"]


def _vocabulary(values, seed):
    column = EncodedColumn(WORDS, labels=np.array([v or None for v in values], dtype=object))
    noise = make_noise_source(seed)
    return finite_column(column, text_epsilon=EPS, rho=RHO, noise=noise, label="w").vocabulary


def _order_events():
    def apple_first(vocabulary):
        return "apple" in vocabulary and "zebra" in vocabulary and vocabulary.index("apple") < vocabulary.index("zebra")

    return {
        "apple coded before zebra": apple_first,
        "zebra coded before apple": lambda v: "apple" in v and "zebra" in v and not apple_first(v),
    }


_NEW_EVENTS = {"mango in the vocabulary": lambda v: "mango" in v, "three or more values": lambda v: len(v) >= 3}


def test_audit_vocabulary_new_value_passes():
    result = audit(_vocabulary, _D, _D_NEW, _NEW_EVENTS, trials=2000, seed=1)
    assert not result.violates(EPS), result


def test_audit_vocabulary_catches_values_present_only(monkeypatch):
    import dpsynth_core.synthesizers.finite as finite

    def present_only(keys, counts, size, *, epsilon, rho, draw_inactive, noise, label=""):
        noisy = np.asarray(counts) + noise.discrete_laplace(len(keys), 1 / epsilon)
        return ch.CatHistResult(list(keys), noisy, np.zeros(len(keys), bool), ch.threshold(size, rho, epsilon), 0.0)

    monkeypatch.setattr(finite, "cathist", present_only)
    result = audit(_vocabulary, _D, _D_NEW, _NEW_EVENTS, trials=300, seed=2)
    assert result.violates(EPS) and result.epsilon_lower_bound > 3, result


def test_audit_vocabulary_order_passes():
    result = audit(_vocabulary, _D_ORDER, _D_ORDER_PRIME, _order_events(), trials=600, seed=3)
    assert not result.violates(EPS), result


def test_audit_vocabulary_catches_frequency_order(monkeypatch):
    restore_frequency_order(monkeypatch)
    result = audit(_vocabulary, _D_ORDER, _D_ORDER_PRIME, _order_events(), trials=300, seed=4)
    assert result.violates(EPS) and result.epsilon_lower_bound > 3, result
