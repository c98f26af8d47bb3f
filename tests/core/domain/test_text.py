"""Weakly constrained text domains: the public enumeration and its exact inverse, pseudonyms."""

import numpy as np
import pandas as pd
import pytest

from dpsynth_core.data.encoding import encode_column
from dpsynth_core.domain import TableDomain, TextDomain
from dpsynth_core.errors import DomainError

GENERATORS = {
    "letters": TextDomain(name="t", generator="letters", max_length=4, alphabet="abc"),
    "letters_long": TextDomain(name="t", generator="letters", max_length=12),
    "english_word": TextDomain(name="t", generator="english_word"),
    "word_pair": TextDomain(name="t", generator="word_pair"),
    "digits": TextDomain(name="t", generator="digits", length=5),
    "any": TextDomain(name="t", generator="any", declared_size=17_000),
    "any_one": TextDomain(name="t", generator="any", declared_size=1),
}


@pytest.mark.parametrize("name", list(GENERATORS))
def test_index_of_is_the_exact_inverse_of_label_at(name):
    domain = GENERATORS[name]
    size = domain.size
    rng = np.random.default_rng(0)
    edges = [0, size - 1, min(1, size - 1), size // 2]
    picks = edges + [int(v) for v in rng.integers(0, size, 300)] if size < 2**62 else edges
    if size >= 2**62:  # letters of length 12 (9.9e16 values): Python ints
        picks += [int.from_bytes(rng.bytes(8), "big") % size for _ in range(300)]
    for index in picks:
        label = domain.label_at(index)
        assert domain.index_of(label) == index, (name, index, label)


def test_letters_enumeration_by_length_then_alphabet():
    domain = GENERATORS["letters"]
    labels = [domain.label_at(i) for i in range(domain.size)]
    assert labels[:4] == ["a", "b", "c", "aa"] and labels[-1] == "cccc"
    assert [domain.index_of(v) for v in labels] == list(range(domain.size))


@pytest.mark.parametrize(
    "name, label",
    [
        ("letters", "abd"),
        ("letters", ""),
        ("letters", "aaaaa"),
        ("english_word", "notaword-xyz"),
        ("word_pair", "cat"),
        ("digits", "1234"),
        ("digits", "12a45"),
        ("any", "value-17000"),
        ("any", "value-1"),
        ("any", "hello"),
        ("any", None),
    ],
)
def test_index_of_refuses_values_outside_the_domain(name, label):
    with pytest.raises(ValueError, match="not in the domain"):
        GENERATORS[name].index_of(label)


def test_index_of_follows_normalised_labels_for_every_generator():
    # Every value normalise() returns is a label of the domain, so it has a position.
    raw = {
        "letters": ["ab", "cab"],
        "english_word": ["Apple", "zebra"],
        "word_pair": ["big Cat", "red fox"],
        "digits": ["02139", "98105"],
        "any": ["Aggravated Assault", "Battery"],
    }
    for name, values in raw.items():
        domain = GENERATORS[name]
        for label in domain.normalise(values):
            assert domain.label_at(domain.index_of(label)) == label


def test_label_counts_are_in_public_order_not_frequency_order():
    domain = TextDomain(name="w", generator="english_word")
    frame = pd.Series(["zebra"] * 50 + ["apple"] * 3 + ["mango"] * 20 + [""] * 7)
    counts = encode_column(domain, frame).label_counts()
    assert list(counts.index) == ["apple", "mango", "zebra", None]
    assert list(counts) == [3, 20, 50, 7]
    without = encode_column(domain, frame).label_counts(include_missing=False)
    assert list(without.index) == ["apple", "mango", "zebra"]


# --- the 'any' generator: merges are reported to the publisher, never to the release -----


def test_any_generator_reports_values_merged_on_one_pseudonym():
    domain = TextDomain(name="code", generator="any", declared_size=23)
    raw = [f"code {i}" for i in range(17)]
    pseudonyms = domain.normalise(raw)
    merged = len(raw) - len(set(pseudonyms))
    assert merged > 0  # 17 values on 23 pseudonyms: collisions are expected (birthday problem)
    column = encode_column(domain, pd.Series(raw * 3 + [""]))
    assert column.merged == merged
    big = TextDomain(name="code", generator="any", declared_size=10**12)
    assert encode_column(big, pd.Series(raw)).merged == 0


def test_a_text_column_whose_kind_is_chosen_says_its_values_are_left_to_choose():
    """``"generator": ""`` (the Domain page's free text at "(choose one)"): what is left is which values, not a kind."""
    from dpsynth_core.domain.editing import column_status

    (chosen,), _ = column_status("problem", {"type": "text", "generator": ""})
    (untouched,), _ = column_status("problem", {"type": "text"})
    assert "choose which values are possible: any string of letters" in chosen and "kind" not in chosen
    assert "choose a kind" in untouched


def test_a_typed_range_of_characters_allows_each_character_in_it():
    """pharmaverse's ADSL writes causes of death in capitals and spaces (SUDDEN DEATH); typed "A-Z " as a regular
    expression writes it, the alphabet allowed A, Z, a hyphen and a space, and the release read none of its cells.
    Now a range of one case or of digits is written out (and the declaration saved so), a hyphen elsewhere is
    itself, and a character typed twice is still refused."""
    from dpsynth_core.domain import column_from_json

    causes = column_from_json("cause", {"type": "text", "generator": "letters", "max_length": 40, "alphabet": "A-Z "})
    assert causes.alphabet == "ABCDEFGHIJKLMNOPQRSTUVWXYZ " and not causes.problems()
    cells = pd.Series(["SUDDEN DEATH", "COMPLETED SUICIDE", "MYOCARDIAL INFARCTION", "sudden death"])
    assert encode_column(causes, cells).out_of_domain == 1  # the small letters only
    assert causes.to_json()["alphabet"] == "ABCDEFGHIJKLMNOPQRSTUVWXYZ "
    wide = column_from_json("w", {"type": "text", "generator": "letters", "max_length": 3, "alphabet": "a-c0-2 -'"})
    assert wide.alphabet == "abc012 -'" and wide.to_json()["alphabet"] == "abc012 -'"
    repeated = TextDomain(name="t", generator="letters", max_length=2, alphabet="a-cA-Ca")  # a twice: refused
    assert repeated.alphabet == "abcABCa"
    assert repeated.problems()[0].startswith("column 't': the allowed characters repeat 'a': type each allowed")
    typed = TextDomain(name="t", generator="letters", max_length=9, alphabet="letters (small and capital)")
    assert typed.problems() == [  # words typed where characters are asked, as a newcomer did in Chromium
        "column 't': the allowed characters repeat 'l', 'e', 't', 's', ' ' and 1 more: type each allowed character "
        "once (a-z stands for every small letter, A-Z every capital, 0-9 every digit), or choose one of the sets "
        "offered"
    ]


def test_a_text_domain_too_large_says_how_large_and_the_longest_length_that_fits():
    """A hunt's declaration of admiral's grading criteria, a definition as any string of up to 80 characters, was
    refused as "about 10^100 values, more than 10^100": the rounding hid the size, and no length was offered. The
    message now gives the size to two digits and the longest length within the limit, which the limit admits."""
    from dpsynth_core import constraints
    from dpsynth_core.domain import TableDomain

    spec = {"type": "text", "generator": "letters", "max_length": 80}
    [said] = TableDomain({"c": TextDomain("c", **{k: v for k, v in spec.items() if k != "type"})}).problems()
    assert "the domain has about 1.6 × 10^113 values, more than 10^100; declare a longest length of at most 70" in said
    alphabet = TextDomain("c", generator="letters", max_length=70).alphabet
    assert sum(len(alphabet) ** n for n in range(1, 71)) <= constraints.MAX_TEXT_DOMAIN_SIZE
    assert not TableDomain.from_json({"columns": {"c": {**spec, "max_length": 70}}}).problems()
    [said] = TableDomain.from_json({"columns": {"c": {**spec, "max_length": 71}}}).problems()
    assert "more than 10^100; declare a longest length of at most 70" in said


@pytest.mark.parametrize(
    "declared, unread",
    [
        ({"generator": "digits", "length": 5, "alphabet": "abcdef"}, "'alphabet'"),
        ({"generator": "any", "size": 100, "max_length": 12}, "'max_length'"),
        ({"generator": "english_word", "length": 5}, "'length'"),
        ({"generator": "letters", "max_length": 12, "size": 100}, "'size'"),
        ({"generator": "word_pair", "max_length": 3, "size": 9}, "'max_length' or 'size'"),
    ],
)
def test_a_key_its_generator_does_not_read_is_refused_in_one_line(declared, unread):
    """A key for another generator (a code of 5 digits given an alphabet, pseudonyms a longest length) went unread
    without a word, the publisher's intent lost; now it is refused naming the key and which generator reads what."""
    with pytest.raises(DomainError) as raised:
        TableDomain.from_json({"columns": {"code": {"type": "text", **declared}}}).validate()
    said = str(raised.value)
    assert f"the generator '{declared['generator']}' reads no {unread}: remove it" in said
    assert "'letters' reads max_length and alphabet, 'digits' length, 'any' size" in said
    kept = {k: v for k, v in declared.items() if k not in unread}
    TableDomain.from_json({"columns": {"code": {"type": "text", **kept}}}).validate()
