"""Encoding over a declared domain: the public out-of-domain rule, and decoding inside bins."""

import numpy as np
import pandas as pd
import pytest

from dpsynth_core.data.decoding import decode_codes
from dpsynth_core.data.encoding import changed_cells_report, encode_column, encode_table, numeric_values
from dpsynth_core.domain import FloatDomain, IntegerDomain, TableDomain, column_from_json
from dpsynth_core.errors import DomainError
from dpsynth_core.privacy.noise import make_noise_source
from tests.conftest import complete_domain, shared_path


def test_numbers_out_of_range_are_clamped_and_unreadable_become_missing():
    dom = column_from_json("age", {"type": "integer", "min": 17, "max": 90})
    col = encode_column(dom, pd.Series(["5", "17", "40.4", "95", "abc", ""]))
    assert list(col.codes) == [0, 0, 23, 73, 74, 74]  # 74 bins; code 74 = missing
    assert col.out_of_domain == 4 and col.missing == 2  # 5 and 95 clamped, 40.4 rounded, abc unreadable


def test_categories_outside_domain_become_missing_or_other():
    dom = column_from_json("c", {"type": "categorical", "values": ["a", "b", "other"]})
    assert list(encode_column(dom, pd.Series(["a", "z", " b "])).codes) == [0, 3, 1]
    dom_other = column_from_json("c", {"type": "categorical", "values": ["a", "b", "other"], "other": "other"})
    assert list(encode_column(dom_other, pd.Series(["a", "z"])).codes) == [0, 2]


def test_a_declared_country_is_read_by_its_other_names_and_spellings():
    """A country column declared by the bundled list reads a country's other names and spellings as that country
    (a public rule of the cell alone): USA, United-States, South Korea, Cote d'Ivoire, Turkey; England (a part of
    a country, not a name of one) and a made-up name stay outside. A list of the publisher's own spelling reads
    the list's names as its own (United States where USA is declared), unless two declared values name one
    country. US states and their codes are read by their spellings (NEW YORK, ny) where a list of states is
    declared, and the bundled small lists' words in any capitals (R writes TRUE and FALSE: Victoria's half-hourly
    electricity demand, tsibbledata's vic_elec, declared by the true/false list, read every cell as missing; female
    is Female), and a list read so reads its other values in any capitals too; other categories are read exactly as declared (a list of first names' Jordan is not read as the
    country, nor jordan as Jordan)."""
    countries = column_from_json("c", {"type": "categorical", "list": "countries"})
    cells = pd.Series(["USA", "United-States", "south korea", "Cote d'Ivoire", "Turkey", "England", "Xanadu", ""])
    encoded = encode_column(countries, cells)
    read = [countries.values[c] if c < countries.bins else None for c in encoded.codes]
    assert read == ["United States"] * 2 + ["Korea, Republic of", "Côte d'Ivoire", "Türkiye", None, None, None]
    assert (encoded.out_of_domain, encoded.missing) == (2, 3)
    own = column_from_json("c", {"type": "categorical", "values": ["USA", "Mexico", "Other"], "other": "Other"})
    assert list(encode_column(own, pd.Series(["United States", "U.S.", "mexico", "Canada"])).codes) == [0, 0, 1, 2]
    twice = column_from_json("c", {"type": "categorical", "values": ["UK", "United Kingdom", "France"]})
    assert list(encode_column(twice, pd.Series(["Great Britain", "UK", "france"])).codes) == [3, 0, 2]
    sex = column_from_json("s", {"type": "categorical", "list": "sex"})
    assert list(encode_column(sex, pd.Series(["female", "Female", "MALE", "woman"])).codes) == [0, 0, 1, 2]
    truth = column_from_json("h", {"type": "categorical", "list": "true_false"})
    assert list(encode_column(truth, pd.Series(["TRUE", "FALSE", "true", "T"])).codes) == [0, 1, 0, 2]
    answers = column_from_json("a", {"type": "categorical", "values": ["Yes", "No", "Don't know"]})
    assert list(encode_column(answers, pd.Series(["YES", "no", "DON'T KNOW", "maybe"])).codes) == [0, 1, 2, 3]
    # and so are the list's other values (modeldata's cats: sex declared Male, Female and Unknown, written unknown,
    # was read as Unknown nowhere while male was Male); two of them spelled alike read neither
    cats = column_from_json("s", {"type": "categorical", "values": ["Male", "Female", "Unknown"]})
    assert list(encode_column(cats, pd.Series(["male", "UNKNOWN", "unknown ", "?"])).codes) == [0, 2, 2, 3]
    # a weekday or a month by its short name: modeldata's deliveries write Sat, Fri, ..., where the bundled list of
    # the days of the week (which the column's name, day, started) says Saturday: every cell was unread
    days = column_from_json("d", {"type": "categorical", "list": "weekdays"})
    cells = pd.Series(["Sat", "fri", "Thurs", "Sun", "Saturday", "Sa"])
    assert [days.values[c] if c < days.bins else None for c in encode_column(days, cells).codes] == [
        *("Saturday", "Friday", "Thursday", "Sunday", "Saturday", None)
    ]
    short = column_from_json("m", {"type": "categorical", "values": ["Jan", "Feb", "Mar", "Apr", "May", "Jun"]})
    assert list(encode_column(short, pd.Series(["January", "SEPT", "jun"])).codes) == [0, 6, 5]
    alike = column_from_json("a", {"type": "categorical", "values": ["Yes", "No", "n/a", "N A"]})
    assert list(encode_column(alike, pd.Series(["YES", "n/a", "N/A", "n a"])).codes) == [0, 2, 4, 4]
    # US states are read by their spellings too (a file in capitals), but a list of states is not read as countries
    states = column_from_json("s", {"type": "categorical", "list": "us_states"})
    cells = pd.Series(["Georgia", "georgia", "NEW YORK", "Washington, D.C.", "Ga"])
    codes = encode_column(states, cells).codes
    assert [states.values[c] if c < states.bins else None for c in codes] == [
        *("Georgia", "Georgia", "New York", "District of Columbia", None)
    ]
    codes = column_from_json("s", {"type": "categorical", "list": "us_state_codes"})
    assert [codes.values[c] for c in encode_column(codes, pd.Series(["ny", "Ny", "Tx"])).codes] == ["NY"] * 2 + ["TX"]
    # a list whose values are mostly neither is read as written, even where a value names a place
    names = column_from_json("n", {"type": "categorical", "values": ["Jordan", "Chad", "Emma", "Olivia", "Liam"]})
    assert list(encode_column(names, pd.Series(["jordan", "Jordan"])).codes) == [5, 0]
    # and so is a list of two of which one names a place: openintro's comics writes its publishers marvel and dc,
    # declared Marvel and DC: dc was read as DC, the District of Columbia's code, and marvel as no value
    publishers = column_from_json("p", {"type": "categorical", "values": ["Marvel", "DC"]})
    assert list(encode_column(publishers, pd.Series(["dc", "marvel", "DC", "Marvel"])).codes) == [2, 2, 1, 0]


def test_integer_codes_match_numeric_text():
    dom = column_from_json("race", {"type": "categorical", "values": [1, 2, 3]})
    assert list(encode_column(dom, pd.Series(["1", "2.0", "3", "4"])).codes) == [0, 1, 2, 3]
    # numbers no code can be (infinite, beyond 64 bits) are outside the list, without a cast warning
    # (the suite turns warnings into errors)
    hostile = pd.Series(["inf", "-inf", "1e30", "-9.3e18", "nan", "2"])
    assert list(encode_column(dom, hostile).codes) == [3, 3, 3, 3, 3, 1]


def test_column_without_missing_takes_first_value():
    dom = column_from_json("s", {"type": "categorical", "values": ["F", "M"], "missing": False})
    col = encode_column(dom, pd.Series(["", "M", "?"]))
    assert list(col.codes) == [0, 1, 0] and col.cells == 2


def test_missing_cell_exists_whether_or_not_data_has_missing():
    dom = column_from_json("s", {"type": "categorical", "values": ["F", "M"]})
    assert encode_column(dom, pd.Series(["F", "M"])).cells == encode_column(dom, pd.Series(["F", ""])).cells == 3


def test_text_domain_normalises_and_drops_out_of_domain():
    dom = column_from_json("zip", {"type": "text", "generator": "digits", "length": 5})
    col = encode_column(dom, pd.Series(["02139", "2139", "98105", ""]))
    assert list(col.labels) == ["02139", None, "98105", None] and col.out_of_domain == 1


def test_dates_parse_and_clamp():
    dom = column_from_json("d", {"type": "date", "min": "2013-01-01", "max": "2013-12-31", "unit": "month"})
    col = encode_column(dom, pd.Series(["2013-02-14", "2013-08-13 06:03:42", "2020-01-01", "nope"]))
    assert list(col.codes) == [1, 7, 11, 12]


def test_dates_are_read_year_first_with_any_one_separator():
    dom = column_from_json("d", {"type": "date", "min": "2012-01-01", "max": "2015-12-31", "unit": "day"})
    cells = [
        "2012/01/31",
        "2012.2.5",
        "2012-3-1",
        "2012/1/31 12:00",
        "2012-02-30",
        "01/02/2012",
        "2012/01-03",
        "20120101",
    ]
    col = encode_column(dom, pd.Series(cells))
    days = {c: int(code) for c, code in zip(cells, col.codes)}
    assert days["2012/01/31"] == days["2012/1/31 12:00"] == 30 and days["2012.2.5"] == 35 and days["2012-3-1"] == 60
    # no such day, day or month first (ambiguous), mixed separators, no separator: missing, counted as changed
    missing = dom.bins
    assert [days[c] for c in cells[4:]] == [missing] * 4 and col.out_of_domain == 4


def test_dates_written_day_or_month_first_are_read_as_declared():
    spec = {"type": "date", "min": "2012-01-01", "max": "2015-12-31", "unit": "day"}
    cells = pd.Series(["01/02/2012", "1.2.2012", "2012-01-05", "13/01/2012", "01/02/12"])
    by_day = encode_column(column_from_json("d", {**spec, "written": "day first"}), cells)
    by_month = encode_column(column_from_json("d", {**spec, "written": "month first"}), cells)
    missing = column_from_json("d", spec).bins
    # 1 February (day 31) or 2 January (day 1); year first is read either way; a 13th month is not; a two-digit
    # year is, in the one century the declared range allows (2012: 1912 and 1812 are outside it)
    assert list(by_day.codes) == [31, 31, 4, 12, 31] and by_day.out_of_domain == 0
    assert list(by_month.codes) == [1, 1, 4, missing, 1] and by_month.out_of_domain == 1
    assert column_from_json("d", {**spec, "written": "day first"}).to_json()["written"] == "day first"
    # a range over two centuries leaves a two-digit year unread (1912 or 2012?)
    wide = column_from_json("d", {**spec, "min": "1900-01-01", "written": "day first"})
    assert list(encode_column(wide, cells).codes)[-1] == wide.bins


def test_a_date_and_time_with_a_two_digit_year_is_read_by_the_declared_range():
    """Excel writes a date and time m/d/yy h:mm in a CSV (SurveyMonkey's export of FiveThirtyEight's masculinity
    survey: 5/10/18 4:01): declared month first, the declared range (2018) places the year; year first is read
    as before; a two-digit year outside the range's one century is not."""
    spec = {"type": "datetime", "min": "2018-05-01 00:00", "max": "2018-05-31 23:59", "unit": "minute"}
    cells = pd.Series(["5/10/18 4:01", "5/22/18 16:59", "2018-05-10 04:01", "5/10/19 4:01", "5/10/18 4:01 PM"])
    col = encode_column(column_from_json("d", {**spec, "written": "month first"}), cells)
    minutes = (9 * 24 + 4) * 60 + 1  # 10 May 04:01, from 1 May 00:00
    assert list(col.codes[[0, 2, 4]]) == [minutes, minutes, minutes + 12 * 60]
    assert col.codes[1] == (21 * 24 + 16) * 60 + 59
    assert col.out_of_domain == 1 and col.codes[3] == column_from_json("d", spec).bins  # 2019 is outside
    plain = encode_column(column_from_json("d", spec), cells)
    assert plain.out_of_domain == 4  # not declared month first: only the year-first cell is read


def test_dates_with_the_months_name_are_always_read():
    """A month written by its English name has one reading, before the day or after it, in any case, with a weekday
    or a time after it; a name that is no month, a two-digit year and a day that does not exist are not read."""
    spec = {"type": "date", "min": "2012-01-01", "max": "2015-12-31", "unit": "day"}
    cells = pd.Series(
        [
            "Jan 5 2012",
            "January 5, 2012",
            "05JAN2012",  # SAS's DATE9.
            "5-jan-2012",
            "Thursday, 5th January 2012",
            "Sept. 5 2012 13:45",
            "Jnu 5 2012",
            "Jan 5 12",
            "Feb 30 2012",
        ]
    )
    col = encode_column(column_from_json("d", spec), cells)
    missing = column_from_json("d", spec).bins
    assert list(col.codes) == [4, 4, 4, 4, 4, 248, missing, missing, missing] and col.out_of_domain == 3


def test_dates_written_as_a_year_and_a_month_are_read_as_the_months_first_day():
    """DC's wikia file (FiveThirtyEight) writes a character's first appearance "1939, May"; files of monthly figures
    write 2012-01, 01/2012 or Jan 2012. Declared ``"written": "year and month"``, each is its month's first day
    (a whole date its month's, a year alone or a 13th month unread); the other forms never read them."""
    spec = {"type": "date", "min": "2012-01-01", "max": "2015-12-31", "unit": "month"}
    cells = pd.Series(["2012-01", "2012/3", "07/2012", "Sept. 2012", "2012, May", "2012-05-17", "2012", "2012-13"])
    col = encode_column(column_from_json("d", {**spec, "written": "year and month"}), cells)
    missing = column_from_json("d", spec).bins
    assert list(col.codes) == [0, 2, 6, 8, 4, 4, missing, missing] and col.out_of_domain == 2
    plain = encode_column(column_from_json("d", spec), cells)
    assert list(plain.codes).count(missing) == 7  # only the whole date is a date
    declared = column_from_json("d", {**spec, "written": "year and month"})
    assert declared.to_json()["written"] == "year and month"
    assert list(declared.texts(np.array([15340, 15371]))) == ["2012-01", "2012-02"]  # written back as months
    # Marvel's wikia file writes Excel's mmm-yy (Aug-62): the one century that puts the year inside the declared
    # range reads it; none when two centuries do (which one?)
    marvel = {"type": "date", "min": "1939-01-01", "max": "2013-12-31", "unit": "year", "written": "year and month"}
    short = pd.Series(["Aug-62", "Apr-13", "Mar-41", "Aug-1962"])
    assert list(encode_column(column_from_json("d", marvel), short).codes) == [23, 74, 2, 23]
    wide = column_from_json("d", {**marvel, "min": "1850-01-01"})
    assert list(encode_column(wide, short).codes) == [wide.bins, wide.bins, 91, 112]  # 1841 is before 1850


def test_dates_written_as_a_year_and_a_quarter_are_read_as_the_quarters_first_day():
    """fpp3's quarterly series write 1985 Q3 (official statistics: 2012-Q3, 2012Q3, Q3 2012). Declared ``"written":
    "year and quarter"``, each is its quarter's first day, in quarter bins, and written back as 2012-Q3; a fifth
    quarter, a month or a year alone is unread; no other reading reads a quarter."""
    spec = {"type": "date", "min": "2012-01-01", "max": "2015-12-31", "unit": "quarter"}
    cells = pd.Series(["2012 Q3", "2012-q1", "2013Q4", "Q2 2015", "Q3/2012", "2012 Q5", "2012-05", "2012"])
    declared = column_from_json("d", {**spec, "written": "year and quarter"})
    col = encode_column(declared, cells)
    missing = declared.bins
    assert declared.bins == 16 and declared.bin_labels()[:2] == ["2012-Q1", "2012-Q2"]
    assert list(col.codes) == [2, 0, 7, 13, 2, missing, missing, missing] and col.out_of_domain == 3
    for other in (None, "year and month", "day first"):
        plain = encode_column(column_from_json("d", {**spec, "written": other} if other else spec), cells[:5])
        assert list(plain.codes) == [missing] * 5, other
    assert declared.to_json()["written"] == "year and quarter"
    days = np.array([15340, 15431, 15522, 15614, 15706])  # 2012-01-01, -04-01, -07-01, -10-01, 2013-01-01
    assert list(declared.texts(days)) == ["2012-Q1", "2012-Q2", "2012-Q3", "2012-Q4", "2013-Q1"]
    assert list(declared.texts(days + 45)) == ["2012-Q1", "2012-Q2", "2012-Q3", "2012-Q4", "2013-Q1"]
    late = column_from_json("d", {**spec, "min": "2012-08-15"})  # the first bin starts at min, inside its quarter
    assert late.bins == 14 and late.bin_labels()[0] == "2012-Q3" and late.lows[0] == 15567


def test_decoding_stays_inside_bins_and_keeps_types():
    noise = make_noise_source(0)
    dom = column_from_json("x", {"type": "integer", "min": 0, "max": 99, "bin_width": 10})
    values = decode_codes(dom, np.array([0, 3, 9, 10] * 100), noise)
    assert str(values.dtype) == "Int64"
    assert values[::4].between(0, 9).all() and values[1::4].between(30, 39).all() and values[3::4].isna().all()
    fdom = column_from_json("f", {"type": "float", "min": 0, "max": 1, "bins": 4})
    fv = decode_codes(fdom, np.array([2] * 50), noise)
    assert fv.between(0.5, 0.75).all()
    ddom = column_from_json("d", {"type": "date", "min": "2013-01-01", "max": "2013-12-31", "unit": "month"})
    dv = decode_codes(ddom, np.array([1] * 50), noise)
    assert dv.str.startswith("2013-02-").all()


def test_decimals_round_the_drawn_values_inside_the_range_and_keep_special_values_exact():
    """A real column's declared ``decimals`` (2 for cents) round the values drawn in their bins, never past the
    declared range, and leave a declared special value as it is, whatever its digits."""
    noise = make_noise_source(3)
    spec = {"type": "float", "min": 0, "max": 10, "bins": 4, "special": [2.125]}
    plain = decode_codes(column_from_json("f", spec), np.array([0, 1, 2, 3] * 250), noise)
    assert (plain * 100 != (plain * 100).round()).any()  # drawn values carry every digit
    cents = column_from_json("f", {**spec, "decimals": 2})
    assert cents.all_edges.tolist()[1:3] == [2.125, 2.125] and cents.bins == 6  # code 1: the special value's bin
    codes = np.array([0, 1, 2, 3, 4, 5, 6] * 250)  # each bin, and missing
    values = decode_codes(cents, codes, noise)
    drawn = values[(codes < 6) & (codes != 1)]
    assert ((drawn * 100 - (drawn * 100).round()).abs() < 1e-9).all() and drawn.between(0, 10).all()
    assert (values[codes == 1] == 2.125).all() and values[codes == 6].isna().all()
    inner = column_from_json("f", {"type": "float", "min": 0.05, "max": 0.95, "bins": 2, "decimals": 0})
    assert set(decode_codes(inner, np.array([0, 1] * 100), noise)) == {0.05, 0.95}  # 0 and 1, kept in the range
    assert cents.to_json()["decimals"] == 2 and "decimals" not in column_from_json("f", spec).to_json()
    assert cents.describe().endswith("; synthetic values rounded to 2 decimal places")  # the card's words


def test_integer_dtype_does_not_reveal_missing():
    noise = make_noise_source(1)
    dom = column_from_json("x", {"type": "integer", "min": 0, "max": 9})
    assert decode_codes(dom, np.array([1, 2]), noise).dtype == decode_codes(dom, np.array([1, 10]), noise).dtype


def test_adult_encodes_every_column():
    frame = pd.read_csv(shared_path("adult.csv"), dtype=str, keep_default_na=False)
    table = encode_table(frame, TableDomain.from_json(complete_domain("adult")))
    assert table.n_rows == 32_561
    assert table.columns["workclass"].missing == 1836  # the '?' cells, now empty
    assert table.report()["age"]["out_of_domain"] == 0


def test_breast_cancers_class_codes_read_as_declared_so_its_missing_cell_is_truly_empty():
    """Issue 36, point 3: a release once kept breast_cancer's empty "missing" class cell (15% of rows at one
    seed). The cell is empty in the data as the release reads it: the file's 2 and 4 (read as text or as numbers)
    are the declared codes, so no record goes to "missing" or out of the domain; the only missing cells are
    bare_nuclei's 16 '?' (the documentation's count). The rows came from the noise (three measurements at 2.3,
    2.6 and 3.2 deviations, 4.5 pooled), not from a coding mismatch."""
    declared = TableDomain.from_json(complete_domain("breast_cancer"))
    for frame in (
        pd.read_csv(shared_path("breast_cancer.csv"), dtype=str, keep_default_na=False),
        pd.read_csv(shared_path("breast_cancer.csv")),
    ):
        table = encode_table(frame, declared)
        assert table.columns["class"].missing == 0 and table.report()["class"]["out_of_domain"] == 0
        assert np.bincount(table.columns["class"].codes, minlength=3).tolist() == [458, 241, 0]
        assert {name: column.missing for name, column in table.columns.items() if column.missing} == {"bare_nuclei": 16}


def test_decoding_follows_the_pieces_inside_a_bin():
    # bin 0 = 1..39 made of pieces 1-19 (weight 1), 20-29 (0), 30-39 (3); bin 2 = 41..99 where all
    # the weight is on 50: values follow the weights (4,000 draws: the 25% share is within 0.03,
    # about 4 standard deviations)
    noise = make_noise_source(2)
    dom = IntegerDomain(
        name="h", min=1, max=99, edges=(1, 40, 41), spread=((1, 20, 30, 40, 41, 50, 51), (1, 0, 3, 5, 0, 6, 0))
    )
    first = decode_codes(dom, np.zeros(4000, dtype=int), noise).astype(int)
    assert not first.between(20, 29).any() and abs(first.between(1, 19).mean() - 0.25) < 0.03
    assert set(decode_codes(dom, np.full(100, 2), noise)) == {50}
    assert set(decode_codes(dom, np.full(10, 1), noise)) == {40}
    # a real special value sits in its zero-width bin and comes out exactly; a bin whose pieces
    # weigh nothing spreads uniformly
    fdom = FloatDomain(
        name="f", min=0, max=10, edges=(0.0, 5.0, 10.0), special=(5.0,), spread=((0.0, 1.0, 5.0, 7.0), (1, 3, 0, 0))
    )
    assert list(fdom.all_edges) == [0, 5, 5, 10]
    assert set(decode_codes(fdom, np.full(20, 1), noise)) == {5.0}
    tail = decode_codes(fdom, np.full(2000, 2), noise)
    assert tail.between(5, 10).all() and tail.lt(7).mean() > 0.3


def test_special_values_are_encoded_in_their_own_bins():
    idom = column_from_json("x", {"type": "integer", "min": -1, "max": 999, "bin_width": 100, "special": [-1, 999]})
    assert idom.bin_labels()[:2] == ["-1", "0-98"] and idom.bin_labels()[-1] == "999"
    codes = encode_column(idom, pd.Series(["-1", "-7", "0", "999", "1500"])).codes
    assert list(codes) == [0, 0, 1, idom.bins - 1, idom.bins - 1]
    fdom = column_from_json("f", {"type": "float", "min": 0, "max": 10, "bins": 2, "special": [0, 5]})
    codes = encode_column(fdom, pd.Series(["0", "-3", "0.01", "5", "5.0", "4.99", "5.5", "10"])).codes
    assert list(codes) == [0, 0, 1, 2, 2, 1, 3, 3]
    assert numeric_values(fdom, pd.Series(["-3", "", "x", "12"])).tolist() == [0.0, 10.0]


def test_short_columns_encode_as_pandas_does(monkeypatch):
    """A column of up to ``_SMALL`` rows is factorized in plain Python: the same codes, labels and
    counts as through pandas, for every kind, with whitespace, markers, None, NaN and pd.NA cells."""
    from dpsynth_core.data import encoding

    spec = {
        "cat": {"type": "categorical", "values": ["a", "b", "other"], "other": "other"},
        "codes": {"type": "categorical", "values": [0, 1, 12], "missing": False},
        "int": {"type": "integer", "min": 0, "max": 50},
        "float": {"type": "float", "min": -5, "max": 100},
        "date": {"type": "date", "min": "2000-01-01", "max": "2020-12-31"},
        "text": {"type": "text", "generator": "any", "size": 100},
    }
    pool = ["a", " a ", "b", "", " ", "NA", "1", "12.0", "-3", "1e3", "\t7\n", "2005-03-04", "2019-12-31 x", "é", "z"]
    rng = np.random.default_rng(5)
    cells = [None if r < 0.05 else np.nan if r < 0.1 else str(rng.choice(pool)) for r in rng.random(300)]
    columns = (pd.Series(cells, dtype=object), pd.Series(cells, dtype="str"), pd.Series(cells, dtype="string"))

    def encoded(column, domain):
        out = encode_column(domain, column, ("", "NA"))
        labels = None if out.labels is None else [v if isinstance(v, str) else None for v in out.labels]
        codes = None if out.codes is None else out.codes.tolist()
        return codes, labels, out.out_of_domain, out.missing, out.merged

    for name, declared in spec.items():
        domain = column_from_json(name, declared)
        short = [encoded(c, domain) for c in columns]
        with monkeypatch.context() as patch:
            patch.setattr(encoding, "_SMALL", 0)
            assert short == [encoded(c, domain) for c in columns], name


def test_the_tabled_search_of_pieces_is_numpy_s_searchsorted():
    """Decoding finds each value's piece through a table of cells of 1/1024 (data.decoding._search): the
    answers of ``np.searchsorted(..., side="right")``, on points and piece ends that fall on cell edges,
    on values of the array, and on pieces several to a cell."""
    from dpsynth_core.data.decoding import _search

    rng = np.random.default_rng(12)
    for _ in range(40):
        bins = int(rng.integers(1, 40))
        cumulative = np.sort(
            np.r_[
                rng.random(int(rng.integers(1, 3000))) * bins,
                np.arange(1, bins + 1),
                rng.integers(0, bins * 1024, 20) / 1024,
            ]
        )
        points = rng.integers(0, bins, 5000) + rng.random(5000)
        points[:50] = rng.integers(0, bins * 1024, 50) / 1024
        points[50:100] = cumulative[rng.integers(0, len(cumulative), 50)] % bins
        assert np.array_equal(_search(cumulative, points), np.searchsorted(cumulative, points, side="right"))


def test_a_real_column_keeps_its_point_masses_at_their_own_values():
    """A publisher who declares amounts as real numbers (adult's capital gain, 0-100,000; hours a week, 0-168)
    gets back the values many records share: PrivTree splits such a value's leaf down to 2**-24 of the range,
    and decoding places its records at the simplest number inside it (0, 40) instead of uniformly inside it
    (0.0000123, 39.9999989: before, no synthetic value was exactly 0 or 40). Real shares 91.7% and 46.7%; each
    leaf count's noise is a few records in 32,561 and the draw's binomial deviation 0.3%: asserted within 1%."""
    from dpsynth_core.domain.point_masses import shortest_decimal
    from dpsynth_core.release import synthesize

    frame = pd.read_csv("assets/examples/adult.csv", usecols=["age", "capital-gain", "hours-per-week"])
    spec = {
        "columns": {
            "age": {"type": "integer", "min": 0, "max": 120},
            "capital-gain": {"type": "float", "min": 0, "max": 100000},
            "hours-per-week": {"type": "float", "min": 0, "max": 168},
        }
    }
    synthetic = synthesize(frame, spec, 1.0, random_state=0).data
    gain, hours = synthetic["capital-gain"], synthetic["hours-per-week"]
    assert abs((gain == 0).mean() - (frame["capital-gain"] == 0).mean()) < 0.01
    assert abs((hours == 40).mean() - (frame["hours-per-week"] == 40).mean()) < 0.01
    assert shortest_decimal(39.99999, 40.00001) == 40.0 and shortest_decimal(-0.5e-9, 1e-9) == 0.0
    assert shortest_decimal(0.1234567, 0.1234568) == 0.1234567 and shortest_decimal(1.0, 1.0) is None


def test_numbers_with_thousands_commas_or_a_decimal_comma_are_read_as_declared():
    cells = pd.Series(["1,234.5", "1.234,5", "3,25", "2.5", "12", "1,23", ""])
    spec = {"type": "float", "min": 0, "max": 5000, "bins": 5000}

    def values(written=None):
        column = column_from_json("x", {**spec, **({"written": written} if written else {})})
        return [None if v is None else round(v, 4) for v in numeric_or_none(column, cells)]

    # plainly: only 2.5 and 12; 1,234 is a thousand and more or one and a bit, read only when declared
    assert values() == [None, None, None, 2.5, 12.0, None, None]
    assert values("thousands comma") == [1234.5, None, None, 2.5, 12.0, None, None]  # 1,23 groups no thousands
    assert values("decimal comma") == [None, 1234.5, 3.25, 2.5, 12.0, 1.23, None]
    whole = column_from_json("n", {"type": "integer", "min": 0, "max": 10**7, "written": "decimal comma"})
    assert numeric_values(whole, pd.Series(["12.000", "1.234.567", "7"])).tolist() == [12_000, 1_234_567, 7]
    # spaces between thousands (a space, a no-break space, a narrow one), as French spreadsheets save numbers
    spaced = pd.Series(["1 234,56", "12\u00a0345,00", "1\u202f234\u202f567", "12 34,5", "1 234.5"])
    wide = column_from_json("x", {"type": "float", "min": 0, "max": 10**7, "written": "decimal comma"})
    read = [None if v is None else round(v, 4) for v in numeric_or_none(wide, spaced)]
    assert read == [1234.56, 12345.0, 1234567.0, None, None]  # groups of three only, and a decimal comma
    assert whole.to_json()["written"] == "decimal comma"


def test_a_currency_sign_is_set_aside_and_a_percent_sign_read_as_declared():
    """A spreadsheet saved as CSV writes its formatted cells: $1,234.50, 12 €, 97%. A currency sign before or
    after the number (after a minus too), or a common currency's code (USD 5), has one reading and is always set
    aside; 97% is 97 or the fraction 0.97,
    so it is read, as 97, only where the column declares ``written: percent`` (its range then in percent)."""
    money = pd.Series(["$1,234.50", "-$3", "$-2.5", "12 €", "£7", "¥100", "$", "USD 5", "", "5 EUR", "USDT 5"])
    spec = {"type": "float", "min": -10, "max": 5000, "bins": 100}
    plain = column_from_json("m", spec)
    assert numeric_or_none(plain, money) == [None, -3.0, -2.5, 12.0, 7.0, 100.0, None, 5.0, None, 5.0, None]
    grouped = column_from_json("m", {**spec, "written": "thousands comma"})
    assert numeric_or_none(grouped, money)[0] == 1234.5
    euro = column_from_json("m", {**spec, "written": "decimal comma"})
    assert numeric_or_none(euro, pd.Series(["1.234,50 €", "-12,5 €"])) == [1234.5, -10.0]  # clamped to the range
    shares = pd.Series(["97%", "12.5 %", "3", "0%", "%", "97 percent"])
    share = {"type": "float", "min": 0, "max": 100, "bins": 10}
    assert numeric_or_none(column_from_json("s", share), shares) == [None, None, 3.0, None, None, None]
    percent = column_from_json("s", {**share, "written": "percent"})
    assert numeric_or_none(percent, shares) == [97.0, 12.5, 3.0, 0.0, None, None]
    assert percent.to_json()["written"] == "percent"
    with pytest.raises(DomainError, match="written"):
        column_from_json("d", {"type": "date", "min": "2012-01-01", "max": "2012-12-31", "written": "percent"})


def numeric_or_none(column, cells):
    """Each cell's value by the public rule, None where it becomes missing (cells kept in order)."""
    encoded = encode_column(column, cells)
    read = iter(numeric_values(column, cells).tolist())
    return [None if code == column.bins else next(read) for code in encoded.codes]


@pytest.mark.parametrize(
    "column",
    [
        {"type": "integer", "min": 0, "max": 120},
        {"type": "float", "min": 0, "max": 120},
        {"type": "categorical", "values": ["34", "51", "29"]},
        {"type": "text", "generator": "english_word"},
    ],
    ids=["integer", "float", "categorical", "text"],
)
def test_a_missing_cell_where_none_is_declared_is_a_cell_the_rule_changes(column):
    """It takes the column's first value (the rule), so it is counted among the changed cells the Preview and the
    command line show; with missing values declared it is a missing cell, unchanged."""
    cells = pd.Series(["34", "", "51", "NA", "", "29", "abc"])
    required = encode_column(column_from_json("age", {**column, "missing": False}), cells, ("", "NA"))
    allowed = encode_column(column_from_json("age", column), cells, ("", "NA"))
    assert required.out_of_domain == allowed.out_of_domain + 3 and required.missing == 0
    assert allowed.missing == 3 + allowed.out_of_domain  # the 3 missing cells, and those the rule read as missing
    assert (required.empty, allowed.empty) == (3, 0)  # of the changed cells, the missing ones, told apart
    report = changed_cells_report({"age": required, "other": allowed})
    assert report["age"]["read_as_first"] == 3 and "read_as_first" not in report["other"]
