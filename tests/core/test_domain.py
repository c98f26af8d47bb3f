"""Declared domains: the shared JSON files as they are, sizes, incomplete declarations, round trip."""

import json

import pytest

from dpsynth_core.domain import (CategoricalDomain, DateDomain, FloatDomain, IntegerDomain, TableDomain,
                                 TextDomain, as_table_domain, column_from_json, size_in_words)
from dpsynth_core.errors import DomainError
from tests.conftest import DATASETS, complete_domain, shared_path


@pytest.mark.parametrize("dataset", DATASETS)
def test_reads_every_shared_domain_file_as_it_is(dataset):
    domain = TableDomain.load(shared_path(f"{dataset}.domain.json"))
    spec = json.loads(shared_path(f"{dataset}.domain.json").read_text())
    assert list(domain.columns) == list(spec["columns"])


def test_missing_bound_is_named_not_filled():
    domain = TableDomain.load(shared_path("adult.domain.json"))
    problems = domain.problems()
    assert any("'fnlwgt'" in p and "maximum" in p for p in problems)
    assert any("'capital-loss'" in p for p in problems)
    with pytest.raises(DomainError, match="fnlwgt"):
        domain.validate()
    assert domain.columns["fnlwgt"].max is None


def test_text_without_generator_asks_for_one():
    domain = TableDomain.load(shared_path("compas.domain.json"))
    assert any("'name'" in p and "generator" in p for p in domain.problems())


@pytest.mark.parametrize("dataset", DATASETS)
def test_json_round_trip(dataset, tmp_path):
    domain = TableDomain.from_json(complete_domain(dataset))
    path = tmp_path / "d.json"
    domain.save(path)
    again = TableDomain.load(path)
    assert again.to_json() == domain.to_json()
    assert [c.describe() for c in again.columns.values()] == [c.describe() for c in domain.columns.values()]


def test_sizes_are_exact_integers():
    assert TextDomain(name="z", generator="digits", length=5).size == 100_000
    letters = TextDomain(name="s", generator="letters", max_length=12)
    assert letters.size == sum(26**k for k in range(1, 13)) and letters.size > 10**16
    pairs = TextDomain(name="p", generator="word_pair")
    words = TextDomain(name="w", generator="english_word").size
    assert pairs.size == words**2
    assert TextDomain(name="a", generator="any", declared_size=10**13).size == 10**13


def test_label_enumeration_is_a_bijection_on_small_domain():
    dom = TextDomain(name="s", generator="letters", max_length=3, alphabet="abc")
    labels = [dom.label_at(i) for i in range(dom.size)]
    assert len(set(labels)) == dom.size == 3 + 9 + 27
    assert dom.normalise(labels) == labels
    assert dom.normalise(["abcd", "x", None]) == [None, None, None]


def test_any_value_domain_hashes_to_public_pseudonyms():
    dom = TextDomain(name="n", generator="any", declared_size=1000)
    out = dom.normalise(["John Smith", "John Smith", "Jane Doe"])
    assert out[0] == out[1] and out[0].startswith("value-") and "John" not in out[0]
    assert dom.label_at(int(out[2].split("-")[1])) == out[2]


def test_integer_bins_default_from_declared_bounds_only():
    assert IntegerDomain(name="age", min=17, max=90).bins == 74  # one bin per value
    wide = IntegerDomain(name="gain", min=0, max=99_999)
    assert wide.width == 2000 and wide.bins == 50
    assert list(IntegerDomain(name="x", min=0, max=9, bin_width=4).highs) == [3, 7, 9]
    assert IntegerDomain(name="x", min=0, max=10, edges=(0, 5, 9)).bin_labels() == ["0-4", "5-8", "9-10"]


def test_float_and_date_bins():
    f = FloatDomain(name="bmi", min=0, max=80, bin_width=5)
    assert f.bins == 16 and f.all_edges[-1] == 80
    d = DateDomain(name="d", min=__import__("datetime").date(2013, 1, 15),
                   max=__import__("datetime").date(2014, 3, 2), unit="month")
    assert d.bins == 15 and d.bin_labels()[1] == "2013-02"


def test_validation_messages_name_the_column():
    with pytest.raises(DomainError, match="'x'.*type"):
        column_from_json("x", {"type": "blob"})
    with pytest.raises(DomainError, match="'x'.*min"):
        column_from_json("x", {"type": "integer", "min": "ten", "max": 3})
    assert "min (5) must be <= max (3)" in column_from_json("x", {"type": "integer", "min": 5, "max": 3}).problems()[0]
    assert CategoricalDomain(name="c", values=("a", "a")).problems()


def test_check_matches_names_both_directions():
    domain = TableDomain.from_json({"columns": {"a": {"type": "categorical", "values": [1]}}})
    with pytest.raises(DomainError, match="lacks: a"):
        domain.check_matches(["b", "a2"])
    with pytest.raises(DomainError, match="does not declare: b"):
        domain.check_matches(["a", "b"])


def test_as_table_domain_accepts_object_dict_and_path(tmp_path):
    spec = complete_domain("pums")
    path = tmp_path / "p.json"
    path.write_text(json.dumps(spec))
    for form in (spec, path, str(path), TableDomain.from_json(spec)):
        assert list(as_table_domain(form).columns) == list(spec["columns"])
    with pytest.raises(DomainError, match="not valid JSON"):
        bad = tmp_path / "bad.json"
        bad.write_text("{nope")
        as_table_domain(bad)


def test_size_in_words():
    assert size_in_words(29_400_000_000) == "about 29 billion"
    assert size_in_words(171_000) == "about 171 thousand"
    assert size_in_words(5) == "5"
    assert size_in_words(2_500_000) == "about 2.5 million"
