"""What a person types into the Domain page's widgets, read in the core."""

import numpy as np

from dpsynth_core.domain import typed_values


def test_typed_text_is_parsed_in_the_core():
    assert typed_values.parse_values("1\n2\n 3 ") == [1, 2, 3]
    assert typed_values.parse_values("a, b,,c") == ["a", "b", "c"]
    assert typed_values.parse_values("01, 2") == ["01", "2"]  # a leading zero stays text
    assert typed_values.parse_numbers("17, 25;40 65", "integer") == ([17, 25, 40, 65], [])
    assert typed_values.parse_numbers("40, 99, forty", "integer") == ([40, 99], ["'forty' is not a whole number"])
    assert typed_values.parse_numbers("  ", "float") == (None, [])
    assert typed_values.parse_numbers("2020-01-01 2020-13-01", "date")[0] == ["2020-01-01"]
    assert typed_values.list_text([0.5, 1.0, 2]) == "0.5, 1, 2"


def test_category_values_shown_to_edit_read_back_as_the_same_values():
    lists = [["Adult, 1 Egg Stage"], ['"Quoted", said'], ["a, b", "c"], ["x"], [1, 2, 30], ["01", "2"], ["5'2\""]]
    for values in lists:
        assert typed_values.parse_values(typed_values.values_text(values)) == values, values
    assert typed_values.parse_values('"Adult, 1 Egg Stage", Chick') == ["Adult, 1 Egg Stage", "Chick"]  # typed so
    # codes declared as text stay text while the box is not edited (declared 1 and 2 would read a cell "01" as 1)
    assert typed_values.edited_values(typed_values.values_text(["1", " 2"]), ["1", " 2"]) == ["1", "2"]
    assert typed_values.edited_values("1\n2\n3", ["1", "2"]) == [1, 2, 3]


def test_numbers_shown_to_edit_read_back_as_the_same_numbers():
    """A loaded declaration's bin edges went through a text box written with six significant digits: 250000.25 came
    back 250000, and 1234567.5 as 1234570."""
    rng = np.random.default_rng(0)
    numbers = [*rng.normal(0, 1e6, 300), *(10.0 ** rng.uniform(-9, 12, 300)), 0.1, 250000.25, 1234567.5, -0.0]
    for kind in ("float", "integer"):
        values = numbers if kind == "float" else [int(v) for v in numbers if abs(v) < 1e15]
        read, unread = typed_values.parse_numbers(typed_values.list_text(values), kind)
        assert read == values and unread == [], kind
