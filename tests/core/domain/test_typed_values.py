"""What a person types into the Domain page's widgets, read in the core."""

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
    lists = [["Adult, 1 Egg Stage"], ['"Quoted", said'], ["a, b", "c"], ["x"], [1, 2, 30], ["01", "2"], ['5\'2"']]
    for values in lists:
        assert typed_values.parse_values(typed_values.values_text(values)) == values, values
    assert typed_values.parse_values('"Adult, 1 Egg Stage", Chick') == ["Adult, 1 Egg Stage", "Chick"]  # typed so
