"""The person unit's cost told before and after (issue 36 point 5): a DP check of rows per person, recorded in
the ledger, the plan's words from it, and the card's sentence on what bounding did."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dpsynth_core import constraints
from dpsynth_core.domain import TableDomain
from dpsynth_core.privacy.accounting import person_relation
from dpsynth_core.privacy.noise import NoiseSource
from dpsynth_core.privacy.persons import bound_rows, bounding_plan_words, count_rows_per_person
from dpsynth_core.release import synthesize
from dpsynth_core.usecases.person_check import CHECK_LABEL, person_check
from dpsynth_core.workspace import BudgetExceeded, Workspace

SPEC = {
    "columns": {"pid": {"type": "drop"}, "c": {"type": "categorical", "values": ["a", "b", "c"]}},
    "person": {"column": "pid", "max_rows": 1, "name": "patient"},
}


def _encounters(seed: int = 0) -> pd.DataFrame:
    """Encounters of patients: most have one, some many (a geometric number of rows each, at most 12)."""
    rng = np.random.default_rng(seed)
    per_patient = np.minimum(rng.geometric(0.6, 3000), 12)
    pid = np.repeat(np.arange(len(per_patient)), per_patient).astype(str)
    return pd.DataFrame({"pid": pid, "c": rng.choice(list("abc"), len(pid))})


def test_the_histogram_is_the_truth_plus_noise_of_sensitivity_one():
    """At a very large epsilon the noise is 0 in every count (discrete Laplace: P(nonzero) ~ 2 e^-eps), so
    every figure is the truth: rows before bounding, rows kept (as bound_rows keeps them), rows dropped.
    Adding one person with 40 rows moves exactly one count, by one (the top one: 16 rows or more)."""
    frame, cap = _encounters(), constraints.PERSON_CHECK_CAP
    exact = count_rows_per_person(
        frame, "pid", epsilon=60.0, noise=NoiseSource(False, np.random.default_rng(1)), cap=cap
    )
    assert exact.rows_before() == len(frame) and exact.persons() == frame["pid"].nunique()
    for k in (1, 2, 5):
        kept = len(bound_rows(frame, "pid", k, np.random.default_rng(0)))
        assert exact.rows_kept(k) == kept and exact.dropped(k) == len(frame) - kept
    bigger = pd.concat([frame, pd.DataFrame({"pid": ["new"] * 40, "c": ["a"] * 40})])
    other = count_rows_per_person(
        bigger, "pid", epsilon=60.0, noise=NoiseSource(False, np.random.default_rng(1)), cap=cap
    )
    assert np.abs(np.subtract(other.noisy, exact.noisy)).sum() == 1 and other.noisy[-1] == exact.noisy[-1] + 1
    assert exact.suggested(0.9) == next(
        k for k in range(1, cap) if len(bound_rows(frame, "pid", k, np.random.default_rng(0))) >= 0.9 * len(frame)
    )


def test_the_check_is_recorded_per_person_before_it_reads_and_its_error_is_as_stated(tmp_path):
    frame, domain = _encounters(), TableDomain.from_json(SPEC)
    workspace = Workspace(tmp_path)
    person_check(workspace, "fp", frame, domain, 0.5, name="encounters")  # the secure source: guaranteed
    (spend,) = workspace.ledger.spends("fp")
    assert spend["purpose"] == "rows per person" and spend["neighbouring"] == person_relation("pid")
    assert spend["epsilon"] == pytest.approx(0.5)
    workspace.ledger.set_lifetime_budget("fp", 1.2)  # 0.5 per person counts 1.0 per record: 0.4 more would not fit
    with pytest.raises(BudgetExceeded):  # refused by the ledger, before the data is read
        person_check(workspace, "fp", None, domain, 0.2)
    check = person_check(None, "", frame, domain, 0.5, random_state=3)  # seeded, nothing recorded
    # one draw at a fixed seed: within 4 of its typical errors (Chebyshev: fails with probability < 1/16)
    assert abs(check.rows_before() - len(frame)) <= 4 * check.typical_error()
    words = " ".join(bounding_plan_words(check, 1, "patient", constraints.PERSON_CHECK_KEEP))
    assert "Keeping at most 1 row per patient drops about" in words and "recorded in the ledger" in words
    assert f"A bound of {check.suggested(constraints.PERSON_CHECK_KEEP)}" in words
    assert CHECK_LABEL.startswith("rows per person")


def test_the_card_says_what_bounding_did_in_dp_counts():
    frame = _encounters()
    check = count_rows_per_person(
        frame, "pid", epsilon=1.0, noise=NoiseSource(False, np.random.default_rng(2)), cap=constraints.PERSON_CHECK_CAP
    )
    told = synthesize(frame, SPEC, 1.0, random_state=0, person_check=check.as_dict()).card["notes"][0]
    assert told.startswith("At most 1 row of each patient was kept") and "bounded table's truth" in told
    assert f"at least about {check.rows_before():,.0f} rows before bounding" in told
    assert f"keeping at most 1 row per patient drops about {check.dropped(1):,.0f} rows" in told
    plain = synthesize(frame, SPEC, 1.0, random_state=0).card["notes"][0]
    assert "was not measured" in plain and "rows-per-person check" in plain
    assert not any(
        "At most" in n
        for n in synthesize(
            frame.drop(columns="pid"), {"columns": {"c": SPEC["columns"]["c"]}}, 1.0, random_state=0
        ).card["notes"]
    )


def test_a_person_called_by_the_publishers_word_is_counted_in_its_plural():
    """NLS Young Women (Stata's nlswork, 4,711 women over 15 waves), a person called "woman" on the Privacy page:
    the plan, the check and the card said "womans". Plurals are English now (women, people, families)."""
    frame = _encounters()
    check = count_rows_per_person(
        frame, "pid", epsilon=1.0, noise=NoiseSource(False, np.random.default_rng(2)), cap=constraints.PERSON_CHECK_CAP
    )
    words = " ".join(bounding_plan_words(check, 2, "woman", constraints.PERSON_CHECK_KEEP))
    assert "women hold at least" in words and "women with many rows" in words and "womans" not in words
    spec = {**SPEC, "person": {**SPEC["person"], "max_rows": 2, "name": "woman"}}
    told = synthesize(frame, spec, 1.0, random_state=0, person_check=check.as_dict()).card["notes"][0]
    assert told.startswith("At most 2 rows of each woman were kept") and "women with more rows weigh less" in told
    people = " ".join(bounding_plan_words(check, 2, "person", constraints.PERSON_CHECK_KEEP))
    assert "people hold at least" in people and "persons" not in people


def test_the_plan_and_the_card_say_when_the_check_cannot_tell_what_bounding_drops():
    """210 travellers with exactly 4 rows each (statsmodels' modechoice shape), bounded to 4: nothing is
    dropped. At epsilon 0.1 the estimate of rows dropped is noise of typical error 14.1 * sqrt(650) = 360 rows
    (the counts of 5-16 rows weigh 1-12 rows each), so it stands clear (two typical errors) in about 2.3% of
    checks: over 50 seeds the words say the check cannot tell in at least 44 (expected 48.9; fewer than 44
    has chance below 0.1%). On the 3,000 patients of _encounters at epsilon 1, bounding to 1 row drops
    about 1,900 of 4,900 rows with a typical error of 38: always told, with its error."""
    frame = pd.DataFrame({"pid": np.repeat(np.arange(210), 4).astype(str), "c": "a"})
    told = 0
    for seed in range(50):
        check = count_rows_per_person(
            frame, "pid", epsilon=0.1, noise=NoiseSource(False, np.random.default_rng(seed)), cap=16
        )
        assert check.dropped_error(4) == pytest.approx(check._count_std() * np.sqrt(650))
        words = " ".join(bounding_plan_words(check, 4, "traveller", constraints.PERSON_CHECK_KEEP))
        told += int("cannot tell whether it drops many rows or none" in words)
        assert ("cannot tell" in words) != check.tells_dropped(4)
    assert told >= 44, told
    clear = count_rows_per_person(
        _encounters(), "pid", epsilon=1.0, noise=NoiseSource(False, np.random.default_rng(0)), cap=16
    )
    words = " ".join(bounding_plan_words(clear, 1, "patient", constraints.PERSON_CHECK_KEEP))
    assert clear.tells_dropped(1) and "cannot tell" not in words and "give or take" in words
    card = synthesize(frame, SPEC | {"person": {"column": "pid", "max_rows": 4}}, 1.0, random_state=0,
                      person_check=check.as_dict()).card["notes"][0]  # fmt: skip
    assert "give or take" in card and "this check cannot tell whether it drops many rows or none" in card


def test_the_stated_error_of_rows_dropped_is_their_noise_deviation():
    """The 3,000 patients of _encounters at epsilon 1, bounded to 1 row: over 300 checks the rows-dropped
    figure's deviation around its truth matches ``dropped_error`` (the sample deviation of 300 draws of a
    weighted sum of discrete Laplace counts is within about 3 x 7% of the true one: asserted within 25%), and
    its mean is the truth within 4 standard errors (the noise has mean 0)."""
    frame = _encounters()
    per_person = frame.groupby("pid").size()
    truth = int((per_person - 1).sum())
    draws, stated = [], None
    for seed in range(300):
        check = count_rows_per_person(
            frame, "pid", epsilon=1.0, noise=NoiseSource(False, np.random.default_rng(seed)), cap=16
        )
        draws.append(check.dropped(1))
        stated = check.dropped_error(1)
    draws = np.asarray(draws)
    assert abs(draws.std() / stated - 1) < 0.25, (draws.std(), stated)
    assert abs(draws.mean() - truth) < 4 * stated / np.sqrt(300)


def test_rows_dropped_are_said_as_a_floor_when_persons_hold_more_rows_than_the_check_counts():
    """The check counts persons with 16 rows or more as 16 each, so when such persons stand clear of the noise
    the rows dropped (and the share) are a floor, and the plan and the card say "at least" (FiveThirtyEight's
    aging Congress file: 222 members served 16 to 30 Congresses; bounded to 10, the check said 2,714 rows
    dropped, give or take 13, against 3,287). Here 2,000 persons with 1 to 4 rows and 150 with 25: bounded to
    10, 2,250 rows are dropped and the check sees 900 of them. Over 20 seeds the floor holds within its noise
    (the truth at or above the figure less two typical errors) and is always said so; on _encounters (at most 12
    rows a patient) it never is."""
    rng = np.random.default_rng(0)
    per_person = np.concatenate([rng.integers(1, 5, 2000), np.full(150, 25)])
    frame = pd.DataFrame({"pid": np.repeat(np.arange(len(per_person)), per_person).astype(str), "c": "a"})
    truth = len(frame) - len(bound_rows(frame, "pid", 10, np.random.default_rng(0)))
    assert truth == 150 * 15
    for seed in range(20):
        check = count_rows_per_person(
            frame, "pid", epsilon=1.0, noise=NoiseSource(False, np.random.default_rng(seed)), cap=16
        )
        words = " ".join(bounding_plan_words(check, 10, "person", constraints.PERSON_CHECK_KEEP))
        assert check.past_cap(10) and not check.past_cap(16)
        assert truth >= check.dropped(10) - 2 * check.dropped_error(10)
        assert f"drops at least about {check.dropped(10):,.0f} rows" in words and "or more, give or take" in words
    spec = SPEC | {"person": {"column": "pid", "max_rows": 10}}
    card = synthesize(frame, spec, 1.0, random_state=0, person_check=check.as_dict()).card["notes"][0]
    assert f"drops at least about {check.dropped(10):,.0f} rows" in card and "counted as 16 each here" in card
    plain = count_rows_per_person(
        _encounters(), "pid", epsilon=1.0, noise=NoiseSource(False, np.random.default_rng(0)), cap=16
    )
    words = " ".join(bounding_plan_words(plain, 1, "patient", constraints.PERSON_CHECK_KEEP))
    assert not plain.past_cap(1) and "drops about" in words and "at least about" not in words


def test_a_check_whose_noise_drowns_the_rows_suggests_no_bound():
    """statsmodels' Grunfeld shape: 10 firms of 20 rows. At epsilon 0.1 the rows found (160, each firm counted as the
    cap's 16) carry a typical error of 14.1 * sqrt(1,496) = 547 rows, so a suggested bound would be the noise's: the
    words say the counts cannot tell, unless the rows stand three errors clear (a 2.7-deviation draw, chance 0.35%
    each: over 50 seeds 3 or more has chance below 0.1%). The 4,900 rows of _encounters at epsilon 1 (typical error
    52) always get a bound, as the command line's check words it too."""
    frame = pd.DataFrame({"pid": np.repeat(np.arange(10), 20).astype(str), "c": "a"})
    told = 0
    for seed in range(50):
        noise = NoiseSource(False, np.random.default_rng(seed))
        check = count_rows_per_person(frame, "pid", epsilon=0.1, noise=noise, cap=constraints.PERSON_CHECK_CAP)
        for planned in (None, 4):
            words = " ".join(bounding_plan_words(check, planned, "firm", constraints.PERSON_CHECK_KEEP))
            assert ("cannot tell how the rows lie over firms" in words) != check.tells_rows()
            assert ("A bound of" in words) == check.tells_rows()
        told += int(check.tells_rows())
    assert told <= 2, told
    noise = NoiseSource(False, np.random.default_rng(0))
    clear = count_rows_per_person(_encounters(), "pid", epsilon=1.0, noise=noise, cap=constraints.PERSON_CHECK_CAP)
    words = " ".join(bounding_plan_words(clear, None, "patient", constraints.PERSON_CHECK_KEEP))
    assert clear.tells_rows() and f"A bound of {clear.suggested(constraints.PERSON_CHECK_KEEP)}" in words


def test_rows_dropped_within_their_noise_of_none_are_said_as_their_bound_with_what_the_check_cannot_see():
    """nlswork's 4,711 women over at most 15 waves, bounded to 15, checked at epsilon 0.1: "drops about 0 rows,
    give or take 14: ... cannot tell whether it drops many rows or none", where the counts bound it below 0.1% of
    the rows among those they count one by one. The words now give that bound, and say what the counts cannot see
    (a few people with far more rows). 300 people of each of 1 to 15 rows (36,000 rows), 30 seeded checks: the
    rows dropped are the noisy count of people with 16 rows or more (none), discrete Laplace of scale 10, which
    stands two typical errors (28 rows) clear of none with chance about 3%: at least 25 of 30 checks give the bound
    (fewer has chance below 0.1%), and the others say the rows with their error; never "cannot tell". A bound of 1
    row drops thousands, told with its error."""
    rows = np.tile(np.arange(1, 16), 300)
    frame = pd.DataFrame({"pid": np.repeat(np.arange(rows.size), rows).astype(str)})
    bounded = 0
    for seed in range(30):
        check = count_rows_per_person(
            frame, "pid", epsilon=0.1, noise=NoiseSource(False, np.random.default_rng(seed)), cap=16
        )
        words = bounding_plan_words(check, 15, "woman", constraints.PERSON_CHECK_KEEP)[1]
        assert "cannot tell" not in words, words
        if "(at most about 0." in words:
            bounded += 1
            assert "which count a woman with 16 rows or more as 16); women with many more, if any, are too few" in words
        else:
            assert "%, give or take" in words, words
    assert bounded >= 25
    one = bounding_plan_words(check, 1, "woman", constraints.PERSON_CHECK_KEEP)[1]
    assert "drops about" in one and "at most about" not in one and "%, give or take" in one


def test_the_card_tells_rows_dropped_from_the_check_alone_not_against_the_releases_own_count():
    """Stata's nlswork walked in Chromium: 4,711 women, none interviewed more than 15 times, bounded to 15 with the
    check at ε = 0.1. The card took the check's rows before bounding (29,670, give or take 547; truly 28,534) less
    the release's own count of the rows kept (27,982: another measurement, at a person unit's per-row ε) and said
    "about 6% of the rows were dropped", where none were, and the check itself said 10 rows, give or take 14. Here
    1,500 persons with 1 to 15 rows each (none dropped): at ten seeds the card says what the check says, its figure
    with its own error, and gives the release's count apart."""
    rng = np.random.default_rng(4)
    per_person = rng.integers(1, 16, 1500)
    frame = pd.DataFrame({"pid": np.repeat(np.arange(1500), per_person).astype(str), "c": "a"})
    spec = SPEC | {"person": {"column": "pid", "max_rows": 15, "name": "woman"}}
    for seed in range(10):
        check = count_rows_per_person(
            frame, "pid", epsilon=0.1, noise=NoiseSource(False, np.random.default_rng(seed)), cap=16
        )
        release = synthesize(frame, spec, 1.0, random_state=seed, person_check=check.as_dict())
        card = release.card["notes"][0]
        said = f"keeping at most 15 rows per woman drops about {check.dropped(15):,.0f} rows"
        assert said in card and f"give or take {check.dropped_error(15):,.0f}" in card, card
        assert "were dropped" not in card and not check.tells_dropped(15)  # none dropped: never clear of the noise
        assert card.endswith(f"The release's own DP count of the rows kept: about {len(release.data):,}.")
