"""Encoding over a declared domain: the public out-of-domain rule, and decoding inside bins."""

import numpy as np
import pandas as pd

from dpsynth_core.domain import TableDomain, column_from_json
from dpsynth_core.encoding import decode_codes, encode_column, encode_table
from dpsynth_core.noise import make_noise_source
from tests.conftest import complete_domain, shared_path


def test_numbers_out_of_range_are_clamped_and_unreadable_become_missing():
    dom = column_from_json("age", {"type": "integer", "min": 17, "max": 90})
    col = encode_column(dom, pd.Series(["5", "17", "40.4", "95", "abc", ""]))
    assert list(col.codes) == [0, 0, 23, 73, 74, 74]  # 74 bins; code 74 = missing
    assert col.out_of_domain == 3 and col.missing == 2


def test_categories_outside_domain_become_missing_or_other():
    dom = column_from_json("c", {"type": "categorical", "values": ["a", "b", "other"]})
    assert list(encode_column(dom, pd.Series(["a", "z", " b "])).codes) == [0, 3, 1]
    dom_other = column_from_json("c", {"type": "categorical", "values": ["a", "b", "other"], "other": "other"})
    assert list(encode_column(dom_other, pd.Series(["a", "z"])).codes) == [0, 2]


def test_integer_codes_match_numeric_text():
    dom = column_from_json("race", {"type": "categorical", "values": [1, 2, 3]})
    assert list(encode_column(dom, pd.Series(["1", "2.0", "3", "4"])).codes) == [0, 1, 2, 3]


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
