"""Parameter checks: the publisher's ranges (the app's) hold in the API, and messages name value and range."""

import math

import numpy as np
import pytest

from dpsynth_core import constraints, synthesize
from dpsynth_core.errors import ParameterError
from dpsynth_core.validation import (
    check_domain_size,
    check_epsilon,
    check_publisher_rho,
    check_rho,
    check_rows,
    check_seed,
    check_total_epsilon,
)


@pytest.mark.parametrize(
    "value", [0, -1, 0.009, 20.01, 1e308, math.inf, math.nan, "abc", None, True, [1], 1e-12, 1e-300]
)
def test_total_epsilon_is_the_apps_range(value):
    with pytest.raises(ParameterError, match=r"epsilon \(.*\) must be a number from 0.01 to 20"):
        check_total_epsilon(value)


def test_total_epsilon_accepts_its_range_and_text():
    assert check_total_epsilon(0.01) == 0.01 and check_total_epsilon("20") == 20.0 and check_total_epsilon(1) == 1.0


@pytest.mark.parametrize("value", [0, 1e-300, 1e-10, 2e6, math.inf])
def test_one_mechanism_epsilon_has_a_wider_range_but_one(value):
    with pytest.raises(ParameterError, match="from 1e-09 to 1e"):
        check_epsilon(value)
    assert check_epsilon(1e-9) == 1e-9 and check_epsilon(1e6) == 1e6


@pytest.mark.parametrize("value", [0, 1, 1e-300, 0.999, -0.5, math.nan, "x"])
def test_publisher_rho_range(value):
    with pytest.raises(ParameterError, match=r"rho \(.*\) must be"):
        check_publisher_rho(value)
    assert check_publisher_rho(0.01) == 0.01 and check_publisher_rho("0.99") == 0.99


def test_mechanism_rho_range():
    with pytest.raises(ParameterError, match="rho"):
        check_rho(1e-300)
    assert check_rho(0.999) == 0.999


@pytest.mark.parametrize(
    "value", [0, -5, 10**40, "10^40", 1.5, "x", True, constraints.MAX_SYNTHETIC_ROWS + 1, math.inf]
)
def test_rows(value):
    with pytest.raises(ParameterError, match=r"rows \(.*\) must be a whole number from 1 to 5,000,000"):
        check_rows(value)
    assert check_rows(None) is None and check_rows("12") == 12 and check_rows(np.int64(3)) == 3
    assert check_rows(5_000_000.0) == 5_000_000


@pytest.mark.parametrize("value", [-1, "-1", 2**128, 1.5, "seed", True])
def test_seed(value):
    with pytest.raises(ParameterError, match=r"seed \(.*\) must be a whole number from 0 to 2\^128 - 1"):
        check_seed(value)
    generator = np.random.default_rng(1)
    assert check_seed(None) is None and check_seed("7") == 7 and check_seed(generator) is generator


def test_domain_size_and_huge_values_in_messages():
    assert check_domain_size("1_000,000") == 1_000_000 and check_domain_size(10**300) == 10**300
    with pytest.raises(ParameterError, match=r"domain size \(about 10\^301\)"):
        check_domain_size(10**301)
    with pytest.raises(ParameterError, match="domain size"):
        check_domain_size("1" * 5000)  # a 5,000-digit text is refused without converting it


def test_synthesize_checks_every_parameter_before_reading(tmp_path):
    missing = tmp_path / "nope.csv"  # never read: the parameters are checked first
    for kwargs, message in [
        ({"epsilon": 1e-12}, "epsilon"),
        ({"epsilon": 25}, "epsilon"),
        ({"epsilon": 1, "rho": 1e-300}, "rho"),
        ({"epsilon": 1, "rows": 10**40}, "rows"),
        ({"epsilon": 1, "random_state": -1}, "seed"),
        ({"epsilon": 1, "method": "marginals", "groups": "a,b"}, "groups"),
        ({"epsilon": 1, "method": "nope"}, "method"),
    ]:
        epsilon = kwargs.pop("epsilon")
        with pytest.raises(ParameterError, match=message):
            synthesize(missing, {"columns": {"a": {"type": "drop"}}}, epsilon, **kwargs)


@pytest.mark.parametrize("typed", ["²", "１２", "٣", "1e3", "", " ", "-", "+", "9" * 5000])
def test_whole_numbers_are_ascii_digits_within_bounds(typed):
    from dpsynth_core.validation import check_whole

    with pytest.raises(ParameterError, match="--records"):
        check_whole(typed, "--records", 1, constraints.MAX_RECORDS)


def test_the_stated_bounds_of_a_whole_number_are_inside():
    from dpsynth_core.validation import check_whole

    assert check_whole("1", "n", 1, 10) == 1 and check_whole(" 10 ", "n", 1, 10) == 10
    with pytest.raises(ParameterError, match=r"n \('11'\) must be a whole number from 1 to 10"):
        check_whole("11", "n", 1, 10)


def test_ids_that_are_not_ids_are_refused_with_their_position():
    from dpsynth_core.validation import check_ids

    assert check_ids(["3", " 1"], "add") == [3, 1]
    for values, position in ((["1", "abc", "-3"], 2), (["0"], 1), (["2", "²"], 2), (["1", "2", "9" * 40], 3)):
        with pytest.raises(ParameterError, match=f"release {position} "):
            check_ids(values, "add", "release")
    with pytest.raises(ParameterError, match="at least one"):
        check_ids([], "add")
