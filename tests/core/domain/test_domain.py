"""Declared domains: the shared JSON files as they are, sizes, incomplete declarations, round trip."""

import json

import pytest

from dpsynth_core.domain import (
    CategoricalDomain,
    DateDomain,
    FloatDomain,
    IntegerDomain,
    TableDomain,
    TextDomain,
    as_table_domain,
    column_from_json,
    size_in_words,
)
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
    assert any("'name'" in p and "possible values are not declared" in p and "letters" in p for p in domain.problems())


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
    d = DateDomain(
        name="d",
        min=__import__("datetime").date(2013, 1, 15),
        max=__import__("datetime").date(2014, 3, 2),
        unit="month",
    )
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
    with pytest.raises(DomainError, match="does not declare: b") as raised:
        domain.check_matches(["a", "b"])
    assert "Unnamed" not in str(raised.value) and "capitals" not in str(raised.value)
    with pytest.raises(DomainError, match=r"lacks: a \(the data has 'A' for 'a': a name must match, capitals"):
        domain.check_matches(["A"])
    with pytest.raises(DomainError, match="'Unnamed: N' is column N [+] 1, whose header cell is empty"):
        domain.check_matches(["a", "Unnamed: 3"])  # a spreadsheet's trailing empty column
    with pytest.raises(DomainError, match="'a.1' is the second column the file's header names 'a': rename it"):
        domain.check_matches(["a", "a.1"])  # a header naming two columns alike (header_names.name_columns)
    with pytest.raises(DomainError) as raised:  # a name with a dot of its own is no second column
        domain.check_matches(["a", "v.1"])
    assert "second column" not in str(raised.value)
    with pytest.raises(DomainError, match=r"lacks: a\. The header names its first column only \('Sales 2024'\)"):
        domain.check_matches(["Sales 2024", "Unnamed: 1"])  # a title row read as the header


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


@pytest.mark.parametrize(
    "text, said",
    [
        ('{"columns": {"a": {"type": "drop"},}}', "line 1: a comma before '}', which JSON does not allow; remove it"),
        ('{"columns": {"a": {"type": "categorical",\n "values": [1, 2,\n]}}}', "line 3: a comma before ']'"),
        ("{'columns': {}}", "line 1: text in single quotes; JSON writes text and names in double quotes"),
        ('{"columns": {"a": ', "line 1: Expecting value"),  # cut short: the parser's own words
    ],
)
def test_a_declaration_typed_by_hand_is_told_its_usual_json_slips(text, said):
    from dpsynth_core.domain.declaration import parse_declaration

    with pytest.raises(DomainError, match="not valid JSON") as raised:
        parse_declaration(text.encode(), "d.json")
    assert said in str(raised.value)


def test_size_in_words():
    assert size_in_words(29_400_000_000) == "about 29 billion"
    assert size_in_words(171_000) == "about 171 thousand"
    assert size_in_words(5) == "5"
    assert size_in_words(2_500_000) == "about 2.5 million"


# --- the schema: one validation layer for the CLI, the API and the app --------------------------


def _problems(columns, **top) -> list[str]:
    with pytest.raises(DomainError) as caught:
        TableDomain.from_json({"columns": columns, **top})
    assert "\n" not in str(caught.value)
    return list(caught.value.problems)


@pytest.mark.parametrize(
    "spec,expected",
    [
        ({"type": ["integer"]}, "column 'c': type (['integer']) must be one of categorical, integer"),
        ({"type": "categorical", "values": ["a"], "labels": ["x"]}, "column 'c': labels (['x']) must be an object"),
        (
            {"type": "categorical", "values": ["a"], "missing": "false"},
            "column 'c': missing ('false') must be true or false",
        ),
        ({"type": "integer", "min": 0, "max": 1e308}, "column 'c': max (1e+308) must be a whole number from -10^15"),
        ({"type": "float", "min": float("-inf"), "max": 1}, "column 'c': min (-inf) must be a finite number"),
        ({"type": "float", "min": 0, "max": float("nan")}, "column 'c': max (nan) must be a finite number"),
        ({"type": "float", "min": 0, "max": 1e308}, "column 'c': max (1e+308) must be a finite number from -10^15"),
        (
            {"type": "float", "min": 0, "max": 1, "bins": 10**9},
            "column 'c': bins (1000000000) must be a whole number from 1 to 2,000,000",
        ),
        ({"type": "categorical", "list": "planets"}, "column 'c': list ('planets') must be the name of a bundled"),
        ({"type": "text", "generator": "any", "size": 10**101}, "column 'c': size (about 10^101) must be"),
        (
            {"type": "text", "generator": "digits", "length": 5000},
            "column 'c': length (5000) must be a whole number from 1 to 100",
        ),
        ({"type": "text", "generator": "letters", "max_length": 10**30}, "column 'c': max_length (about 10^30)"),
        ({"type": "date", "min": "2020-02-30", "max": "2021-01-01"}, "column 'c': min ('2020-02-30') must be a date"),
        (
            {"type": "integer", "min": 0, "max": 9, "bin_widht": 2},
            "column 'c': unknown key 'bin_widht' for an integer column (known keys: type, missing, min, max, bin_width",
        ),
        (
            {"type": "categorical", "values": ["a", 1.5, True, ["b"]]},
            "column 'c': values must be a list of at most 2,000,000 values, each text of at most 1,000 characters or a "
            "whole number from -10^15 to 10^15; 3 items do not fit (first: values[1] = 1.5)",
        ),
        ({"type": "categorical", "values": ["a"], "list": "sex"}, "column 'c': give either 'values' or 'list'"),
        ("integer", "column 'c': the declaration must be a JSON object"),
        ({}, "column 'c': 'type' is required"),
    ],
)
def test_every_wrong_type_is_named_with_column_key_value_and_range(spec, expected):
    found = _problems({"c": spec})
    assert any(p.startswith(expected) for p in found), found
    with pytest.raises(DomainError, match="column 'c'"):
        column_from_json("c", spec)


@pytest.mark.parametrize(
    "top,expected",
    [
        ({"missing_values": ["?"]}, "missing_values (['?']) must be an object"),
        ({"missing_values": {"markers": "?"}}, "missing_values: markers ('?') must be a list"),
        ({"version": 2}, "unknown key 'version'"),
        (
            {"notes": {"a": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}},
            "the declaration is nested more than 32 levels deep",
        ),
    ],
)
def test_table_level_keys_are_checked_too(top, expected):
    assert expected in " ".join(_problems({"c": {"type": "drop"}}, **top))


def test_missing_false_as_text_is_never_read_as_true():
    with pytest.raises(DomainError, match="missing"):
        column_from_json("c", {"type": "categorical", "values": ["a"], "missing": "false"})
    assert column_from_json("c", {"type": "categorical", "values": ["a"], "missing": False}).missing is False


def test_several_problems_are_all_named():
    columns = {f"col{i}": {"type": "integer", "min": "zero"} for i in range(14)}
    found = _problems(columns)
    assert len(found) == 14
    with pytest.raises(DomainError) as caught:
        TableDomain.from_json({"columns": columns})
    message = str(caught.value)
    assert message.startswith("14 problems: ") and all(f"'col{i}'" in message for i in range(14))
    incomplete = TableDomain.from_json({"columns": {f"n{i}": {"type": "integer"} for i in range(7)}})
    with pytest.raises(DomainError) as caught:
        incomplete.validate()
    assert len(caught.value.problems) == 14 and "more problem" not in str(caught.value)


def test_the_same_problem_in_several_columns_is_said_once_naming_them():
    """A starting declaration (``dpsynth declare``) leaves every column free text with nothing declared: one
    sentence naming the ten columns, not the same sentence ten times; each problem is still kept apart."""
    started = TableDomain.from_json(
        {"columns": {f"c{i}": {"type": "text"} for i in range(10)} | {"n": {"type": "integer"}}}
    )
    with pytest.raises(DomainError) as caught:
        started.validate()
    message = str(caught.value)
    assert (
        message.count("its possible values are not declared yet") == 1 and "'c9', each: its possible values" in message
    )
    assert message.startswith("1") and "columns 'c0', 'c1', 'c2'" in message and "column 'n'" in message
    assert len(caught.value.problems) >= 11


def test_public_list_loads_its_values():
    column = column_from_json("state", {"type": "categorical", "list": "us_states"})
    assert len(column.values) == 51 and "Texas" in column.values and not column.problems()


def test_country_code_lists_follow_the_country_names():
    """ISO 3166's three- and two-letter codes, in the order of the countries' names (the same 249, one code each):
    a file that writes PRT or PT declares its country by a list, not as free text."""
    from dpsynth_core.domain.public_lists import TITLES, public_list

    names, three, two = (public_list(n) for n in ("countries", "country_codes_3", "country_codes_2"))
    assert len(names) == len(set(three)) == len(set(two)) == 249
    code = dict(zip(names, zip(three, two)))
    assert (
        code["Portugal"] == ("PRT", "PT") and code["United States"] == ("USA", "US") and code["Aruba"] == ("ABW", "AW")
    )
    assert all(len(c) == 3 and c.isupper() for c in three) and all(len(c) == 2 and c.isupper() for c in two)
    column = column_from_json("country", {"type": "categorical", "list": "country_codes_3"})
    assert len(column.values) == 249 and not column.problems() and "ISO 3166 alpha-3" in TITLES["country_codes_3"]


def test_every_other_name_of_a_country_names_one_country_of_the_list():
    """The countries' other names (ISO 3166's official and common names, short names in wide use) each name a
    country of the bundled list, and no spelling of one country's name is another's: a cell reads as at most one
    country, whatever the order of the files."""
    from dpsynth_core.domain.public_lists import LISTS_DIR, country_names, public_list, spelling_key, us_state_names

    names = public_list("countries")
    assert len({spelling_key(n) for n in names}) == len(names) == 249  # every name its own spelling
    lines = [line.split("\t") for line in (LISTS_DIR / "country_aliases.txt").read_text("utf-8").splitlines()]
    others = [line for line in lines if not line[0].startswith("#")]
    assert len(others) >= 200 and all(len(line) == 2 and line[1] in names for line in others)
    by_key: dict = {}
    codes = [list(pair) for pair in zip(public_list("country_codes_3"), names, strict=True)]  # CAN, DOM, read too
    for other, name in others + [[n, n] for n in names] + codes:
        by_key.setdefault(spelling_key(other), set()).add(name)
    assert all(len(named) == 1 for named in by_key.values()), [k for k, v in by_key.items() if len(v) > 1]
    named = country_names()
    assert named[spelling_key("USA")] == named[spelling_key("United-States")] == "United States"
    assert named[spelling_key("Cote d'Ivoire")] == "Côte d'Ivoire" and named[spelling_key("Turkey")] == "Türkiye"
    assert named[spelling_key("south korea")] == "Korea, Republic of" and spelling_key("England") not in named
    assert named["can"] == "Canada" and named[spelling_key("D.R.")] == "Dominican Republic" and "ca" not in named
    states = us_state_names()  # the states' names and codes, each its own spelling, and the District's other names
    assert len(states) == 51 + 51 + 3 and states[spelling_key("NEW YORK")] == "New York" and states["ny"] == "NY"
    assert states[spelling_key("Washington, D.C.")] == "District of Columbia"


def test_huge_ranges_are_refused_before_allocating():
    import tracemalloc

    tracemalloc.start()
    wide = column_from_json("n", {"type": "integer", "min": 0, "max": 10**12, "bin_width": 1})
    thin = column_from_json("x", {"type": "float", "min": 0, "max": 1, "bin_width": 1e-300})
    dates = column_from_json("d", {"type": "date", "min": "0001-01-01", "max": "9999-12-31", "unit": "day"})
    found = wide.problems() + thin.problems() + dates.problems()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 5_000_000
    assert "1,000,000,000,001 bins is more than the 2,000,000" in found[0]
    assert "more than 10^18 bins" in found[1] and "3,652,059 bins" in found[2]
    table = {f"c{i}": {"type": "integer", "min": 0, "max": 1_999_998, "bin_width": 1} for i in range(11)}
    with pytest.raises(DomainError, match="22,000,000 bins in all, more than the 20,000,000"):
        TableDomain.from_json({"columns": table}).validate()


def test_dates_from_year_1_to_9999_load_with_their_bounds():
    import datetime as dt

    column = column_from_json("d", {"type": "date", "min": "0001-01-01", "max": "9999-12-31"})
    assert column.min == dt.date(1, 1, 1) and column.max == dt.date(9999, 12, 31) and not column.problems()
    assert (
        column.bins == 9999 and column.bin_labels()[:2] == ["0001", "0002"] and column.to_json()["min"] == "0001-01-01"
    )
    monthly = DateDomain(name="m", min=dt.date(2013, 1, 15), max=dt.date(2014, 3, 2), unit="month")
    assert monthly.bins == len(monthly.lows) == 15 and monthly.highs[-1] - monthly.lows[0] + 1 == monthly.size


def test_json_text_is_parsed_strictly(tmp_path):
    path = tmp_path / "d.json"
    for text, message in [
        ('{"columns": {"x": {"type": "float", "min": NaN, "max": 1}}}', "NaN is not a JSON number"),
        ('{"columns": {"x": {"type": "float", "min": 0, "max": Infinity}}}', "Infinity is not a JSON number"),
        ('{"columns": {"x": {"type": "drop"}, "x": {"type": "drop"}}}', "'x' appears twice"),
        ("[" * 100_000 + "]" * 100_000, "nested more than 32 levels"),
        ('{"columns": ' + "[" * 40 + "]" * 40 + "}", "columns"),
    ]:
        path.write_text(text)
        with pytest.raises(DomainError, match=message):
            TableDomain.load(path)
    with pytest.raises(DomainError, match="folder"):
        TableDomain.load(tmp_path)
    with pytest.raises(DomainError, match="device"):
        TableDomain.load("/dev/zero")


def test_declaration_size_is_capped(tmp_path, monkeypatch):
    from dpsynth_core import constraints

    monkeypatch.setattr(constraints, "MAX_DECLARATION_BYTES", 100)
    path = tmp_path / "d.json"
    path.write_text(json.dumps({"columns": {f"c{i}": {"type": "drop"} for i in range(20)}}))
    with pytest.raises(DomainError, match="larger than"):
        TableDomain.load(path)


def test_a_person_column_declared_as_kept_is_refused_never_silently_dropped():
    from dpsynth_core.data.examples import example_declaration

    domain = TableDomain.from_json(example_declaration("adult"))
    kept = next(iter(domain.kept))  # declared with a kind, so it would be released
    with pytest.raises(DomainError, match=f"the person column '{kept}' is declared as a kept column"):
        domain.with_person_bound(kept, 3).validate()


def test_duplicate_categories_are_named():
    """A list pasted twice, or values that differ only by the spaces around them (which the Domain page reads
    alike): the refusal names the repeated values, not only that some are."""
    from dpsynth_core.domain.column import CategoricalDomain

    assert CategoricalDomain(name="t", values=("a", "b", "a", "c", "c", "c")).problems() == [
        "column 't': the declared values contain duplicates: 'a', 'c'"
    ]
    assert CategoricalDomain(name="t", values=(1, "1", 2)).problems() == [
        "column 't': the declared values contain duplicates: '1'"
    ]
    assert CategoricalDomain(name="t", values=("a", "a ")).problems() == []  # built directly, the object keeps both
    # read from a declaration, as the Domain page reads them: without the spaces around them, so alike
    padded = TableDomain.from_json({"columns": {"t": {"type": "categorical", "values": ["a", "a "]}}})
    assert padded.problems() == ["column 't': the declared values contain duplicates: 'a'"]
    for blank in ("", "  "):  # a cell so written is missing: a value that could never be read
        problems = TableDomain.from_json({"columns": {"t": {"type": "categorical", "values": ["a", blank]}}}).problems()
        assert problems == [
            "column 't': a declared value is empty or only spaces, which a cell is read as missing: leave it out "
            "(declare 'missing' instead)"
        ]


def test_declared_categories_are_read_without_the_spaces_around_them_as_cells_are():
    """insuranceData's AutoClaims pads its classes to three characters ("C1 ", "C11"): declared as written, "C1 "
    matched no cell (cells are read without the spaces around them), so 2,856 of its 6,773 records were read as
    missing, and a release that drew "C1 " wrote a value the reading rule then refused (the robustness benchmark)."""
    import pandas as pd

    from dpsynth_core import synthesize
    from dpsynth_core.data.encoding import encode_column

    spec = {
        "columns": {
            "CLASS": {
                "type": "categorical",
                "values": ["C1 ", "C11", " C2"],
                "labels": {"C1 ": "class one"},
                "other": " C2",
                "missing": False,
            }
        }
    }
    column = TableDomain.from_json(spec).columns["CLASS"]
    assert column.values == ("C1", "C11", "C2") and column.other == "C2" and column.labels == {"C1": "class one"}
    cells = pd.Series(["C1 ", "C11", "C1", " C2 "] * 50)
    encoded = encode_column(column, cells)
    assert encoded.out_of_domain == 0 and encoded.missing == 0
    for method in ("marginals", "dirichlet"):
        released = synthesize(pd.DataFrame({"CLASS": cells}), spec, 1.0, method=method, random_state=2).data["CLASS"]
        assert set(released) <= {"C1", "C11", "C2"}, method
