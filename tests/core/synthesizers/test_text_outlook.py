"""What free text will become, said before the draw (issue 20 point 5), checked against the mechanism itself."""

import numpy as np
import pytest

from dpsynth_core.privacy.cathist import cathist, draw_from_generator, draw_from_range, expected_made_up, threshold
from dpsynth_core.privacy.noise import NoiseSource, discrete_laplace_pmf, discrete_laplace_survival
from dpsynth_core.synthesizers import planning


def _noise(seed):
    return NoiseSource(False, np.random.default_rng(seed))


@pytest.mark.parametrize("eps,n,rho", [(0.05, 10**5, 0.9), (1.0, 10, 0.1), (0.5, 1000, 0.5), (2.0, 3, 0.1)])
def test_the_vectorised_keep_probability_is_the_exact_one(eps, n, rho):
    rule = threshold(n, rho, eps)
    counts = np.arange(0, 400)
    exact = [
        discrete_laplace_survival(rule.cut + 1 - c, eps) + rule.tie_keep * discrete_laplace_pmf(rule.cut - c, eps)
        for c in counts
    ]
    assert np.allclose(rule.keep_probability(counts), exact, rtol=1e-9, atol=1e-15)


@pytest.mark.parametrize("eps,n,rho", [(0.5, 1000, 0.5), (1.0, 50, 0.2)])
def test_made_up_values_and_their_weight_match_simulation(eps, n, rho):
    rule, noise, runs = threshold(n, rho, eps), _noise(0), 4000
    made, weight = np.zeros(runs), np.zeros(runs)
    for i in range(runs):
        result = cathist([], [], n, epsilon=eps, rho=rho, draw_inactive=draw_from_range(n), noise=noise)
        made[i], weight[i] = result.n_made_up, result.counts.sum()
    expected = expected_made_up(n, rho)
    assert made.mean() == pytest.approx(expected, abs=4 * made.std() / np.sqrt(runs))
    per_value = weight.sum() / made.sum()
    assert per_value == pytest.approx(rule.made_up_count(), rel=0.05)


def test_at_most_so_many_values_survive_whatever_the_spread():
    """The bound from the threshold and the row count holds for any spread of the records, and is reached
    by the spread it names (every value held by the best number of records)."""
    eps, n, rho, rows = 0.3, 10**5, 0.9, 3000
    rule, noise = threshold(n, rho, eps), _noise(1)
    bound = rule.most_values(rows)
    counts_range = np.arange(1, 300)
    best = int(counts_range[np.argmax(rule.keep_probability(counts_range) / counts_range)])
    zipf = np.bincount(np.random.default_rng(2).zipf(1.3, rows) % 2000)
    spreads = {"best": np.full(rows // best, best), "zipf": zipf[zipf > 0], "flat": np.full(rows // 5, 5)}
    for name, counts in spreads.items():
        survived = [
            len(
                cathist(
                    list(range(len(counts))),
                    counts,
                    n,
                    epsilon=eps,
                    rho=rho,
                    draw_inactive=draw_from_range(n),
                    noise=noise,
                ).keys
            )
            for _ in range(300)
        ]
        assert np.mean(survived) <= bound + 4 * np.std(survived) / np.sqrt(300) + 1, name
    assert np.mean(survived) < bound  # "flat": far from the bound
    assert rule.keep_probability(best) * (rows // best) == pytest.approx(bound, rel=0.05)


def test_the_plan_says_what_free_text_will_become_from_public_settings_only():
    declaration = {
        "columns": {
            "charge": {"type": "text", "generator": "any", "size": 1_000_000},
            "age": {"type": "integer", "min": 0, "max": 99, "bin_width": 10},
        }
    }
    plan = {r["column"]: r for r in planning.column_plan(declaration, 1.0, 0.9, expected_rows=1000)}
    row = plan["charge"]
    assert row["most_values"] == pytest.approx(threshold(row["domain_size"], 0.9, row["epsilon"]).most_values(1000))
    assert row["handed_out"] and planning.made_up_share(row, 0.5) < planning.made_up_share(
        {**row, "handed_out": False}, 0.5
    )
    words = " ".join(planning.text_outlook(row))
    assert "can come out" in words and "made-up" in words and "public list" in words and "given to" in words
    assert "prefix" in words  # the better choice for codes is offered
    assert planning.text_outlook(plan["age"]) == []
    table = planning.plan_table(list(plan.values()))
    assert table.loc[0, "values that can come out"] == f"{round(row['most_values']):,}"
    cathist_row = planning.column_plan(declaration, 1.0, 0.9, method="cathist", expected_rows=1000)[0]
    assert not cathist_row["handed_out"] and "given to" not in " ".join(planning.text_outlook(cathist_row))


def test_the_made_up_share_follows_the_mechanism_that_hands_rows_out():
    row = {"rows": 1000, "expected_made_up": 1.0, "made_up_count": 100.0, "handed_out": False}
    assert planning.made_up_share(row, 0.9) == pytest.approx(100 / (100 + 900))
    assert planning.made_up_share({**row, "handed_out": True}, 0.9) == pytest.approx(0.1 * 100 / 1000)
    assert planning.made_up_share({**row, "rows": None}, 0.9) is None


def test_the_default_method_gives_vocabularies_a_share_by_their_levels_and_says_what_it_costs():
    """Each text column's vocabulary gets 10% of the budget per CatHist level (prefix lengths count), at most
    30% for all together, from the declaration alone; the fit spends exactly what the charge projected, and
    the outlook states the share and the noise it adds to every other figure."""
    import pandas as pd

    from dpsynth_core.domain import TableDomain
    from dpsynth_core.synthesizers.finite import vocabulary_shares
    from dpsynth_core.synthesizers.marginals import MarginalsSynthesizer

    text = {"type": "text", "generator": "digits", "length": 3}
    spec = {
        "columns": {"a": text, "b": {**text, "prefixes": [1]}, "sex": {"type": "categorical", "values": ["f", "m"]}}
    }
    domain = TableDomain.from_json(spec)
    assert vocabulary_shares(domain) == pytest.approx({"a": 0.1, "b": 0.2})
    assert sum(vocabulary_shares(TableDomain.from_json({"columns": {c: text for c in "abcdef"}})).values()) == 0.3
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {"a": rng.choice(["101", "202"], 400), "b": rng.choice(["311", "322"], 400), "sex": rng.choice(["f", "m"], 400)}
    )
    for delta in (None, 0):  # zCDP (the default) and pure epsilon
        options = {} if delta is None else {"delta": delta}
        model = MarginalsSynthesizer(epsilon=1.0, random_state=1, **options).fit(frame, domain)
        charge = MarginalsSynthesizer.charge(domain, 1.0, **options)
        assert list(model.accountant_.events)[:3] == list(charge.events)[:3]  # row count, then the vocabularies
        vocabularies = {e.label: e.epsilon for e in model.accountant_.events if e.label.startswith("vocabulary")}
        ratio = vocabularies["vocabulary b (CatHist)"] / vocabularies["vocabulary a (CatHist)"]
        assert ratio == pytest.approx(2**0.5 if delta is None else 2)  # twice the share: eps^2/2 under zCDP
    plan = {r["column"]: r for r in planning.column_plan(spec, 1.0, 0.9, expected_rows=400)}
    assert plan["b"]["budget_share"] == pytest.approx(0.2) and plan["b"]["text_share"] == pytest.approx(0.3)
    words = " ".join(planning.text_outlook(plan["b"]))
    assert "chosen with 20% of the budget (all free-text columns together: 30%" in words
    assert f"{100 * (1 / 0.7**0.5 - 1):.0f}% more noise on every other figure" in words
    # codes are kept only under released prefixes: the full codes' made-up figure is a bound, the shortest's stands
    assert (
        "At most" in words
        and "made-up full codes" in words
        and "made-up prefixes of 1 character (the shortest" in words
    )
    assert "Expect" in " ".join(planning.text_outlook(plan["a"])) and "full codes" not in " ".join(
        planning.text_outlook(plan["a"])
    )


def test_the_plan_says_how_likely_a_made_up_value_is_all_that_comes_out_and_simulation_agrees():
    """The surname table of issue 36: 20 surnames of 129 to 167 records and 2 singletons (3,020 rows), declared
    "any string of up to 25 letters", under the default method at epsilon 1. No real value can come out at
    the vocabulary's epsilon; the plan says so, from public settings alone, with the chance (1 - rho) that
    a made-up value is then all the column holds. Over seeded runs of the mechanism the share of runs whose
    vocabulary is made-up values only lies in the plan's interval, up to a binomial bound (4 standard
    deviations of the share over ``runs``)."""
    from dpsynth_core.domain import TableDomain

    spec = {
        "columns": {
            "surname": {"type": "text", "generator": "letters", "max_length": 25, "missing": False},
            "age": {"type": "integer", "min": 0, "max": 99, "bin_width": 10},
        }
    }
    rows, rho = 3020, 0.9
    row = {r["column"]: r for r in planning.column_plan(spec, 1.0, rho, expected_rows=rows)}["surname"]
    counts = np.array([129, 167] + [152] * 4 + [151] * 14 + [1, 1])
    assert counts.sum() == rows and counts[:20].min() == 129 and counts[:20].max() == 167
    assert row["none_kept_below"] >= 167  # the what-if covers this table: no value above 167 records
    words = " ".join(planning.text_outlook(row))
    assert f"no value is held by more than {row['none_kept_below']:,} records" in words
    assert "with chance 10% (1 − ρ)" in words and f"placeholder '{row['placeholder']}'" in words
    rule = threshold(row["domain_size"], rho, row["epsilon"])
    low = rule.none_kept_chance(rows, 167) * row["made_up_alone"]  # no real value kept, at least one made up
    high = 1 - rho
    assert low > 0.99 * high  # the plan's interval is narrow here: the check below is sharp
    domain = TableDomain.from_json(spec).kept["surname"]
    names = [domain.label_at(10**6 + 7919 * i) for i in range(len(counts))]
    noise, runs, alone = _noise(36), 3000, 0
    for _ in range(runs):
        result = cathist(
            names,
            counts,
            domain.size,
            epsilon=row["epsilon"],
            rho=rho,
            draw_inactive=draw_from_generator(domain),
            noise=noise,
        )
        alone += bool(len(result.keys)) and bool(result.made_up.all())
    share, slack = alone / runs, 4 * np.sqrt(high * (1 - high) / runs)
    assert low - slack <= share <= high + slack


def _surname_table():
    """The surname table of issue 36: 20 names of 129-167 rows and 2 singletons, declared as any 25 letters."""
    import pandas as pd

    from dpsynth_core.domain import TableDomain

    spec = {
        "columns": {
            "surname": {"type": "text", "generator": "letters", "max_length": 25, "missing": False},
            "age": {"type": "integer", "min": 0, "max": 99, "bin_width": 10},
        }
    }
    domain = TableDomain.from_json(spec)
    counts = [129, 167] + [152] * 4 + [151] * 14 + [1, 1]
    names = [domain.kept["surname"].label_at(10**6 + 7919 * i) for i in range(len(counts))]
    frame = pd.DataFrame({"surname": np.repeat(names, counts), "age": np.random.default_rng(0).integers(0, 100, 3020)})
    return spec, domain, names, frame


def test_the_card_and_the_preview_say_when_a_made_up_value_or_the_placeholder_fills_a_column():
    """The surname table under the default method: every draw holds no real surname, and the card says which
    of the two cases it is, read from the synthetic output and public facts (the placeholder: the method's
    note; a made-up value: the dominance note), while the Preview's publisher-only line checks the real data."""
    from dpsynth_core.evaluation.summaries import dominant_values_in_data
    from dpsynth_core.release import synthesize

    spec, domain, names, frame = _surname_table()
    cases = set()
    for seed in range(60):  # a made-up value comes out in 1 - rho = 10% of draws: 60 seeds find one
        release = synthesize(frame, spec, epsilon=1.0, random_state=seed)
        notes, top = " ".join(release.card["notes"]), release.data["surname"].value_counts()
        assert top.index[0] not in names and top.iloc[0] >= 0.99 * len(release.data)
        if top.index[0] == "a":
            assert "placeholder 'a'" in notes and "One value" not in notes
            cases.add("placeholder")
        else:
            assert f"One value, '{top.index[0]}', fills" in notes and "made-up value (in no record)" in notes
            (said,) = dominant_values_in_data(frame, release.data, domain)
            assert "in none of your records: a made-up value" in said
            cases.add("made up")
        if len(cases) == 2:
            break
    assert cases == {"placeholder", "made up"}
    # a column whose commonest value is real and common is not flagged
    assert dominant_values_in_data(frame, frame, domain) == []


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_a_release_written_in_chunks_gets_the_same_dominance_note_as_one_held_in_memory(tmp_path, suffix):
    """The card of a release written to a file chunk by chunk counts its free-text values as they are drawn
    (:class:`~dpsynth_core.release.card.TextTally`): the same notes as the same seed's table in memory, and the
    note names the value that fills the file."""
    import pandas as pd

    from dpsynth_core.release import synthesize
    from dpsynth_core.release.dominance import TextTally
    from dpsynth_core.release.drawing import tally_parts

    spec, _, names, frame = _surname_table()
    seed = next(
        s for s in range(60) if synthesize(frame, spec, epsilon=1.0, random_state=s).data["surname"].iloc[0] != "a"
    )
    held = synthesize(frame, spec, epsilon=1.0, random_state=seed)
    out = tmp_path / f"release{suffix}"
    written = synthesize(frame, spec, epsilon=1.0, random_state=seed, out=out, chunk_rows=1000)
    assert written.data is None and written.card["notes"] == held.card["notes"]
    top = (pd.read_csv(out) if suffix == ".csv" else pd.read_parquet(out))["surname"].value_counts()
    assert top.index[0] not in names and f"One value, '{top.index[0]}', fills" in " ".join(written.card["notes"])
    if suffix == ".parquet":  # parts drawn on a cluster's workers are read back, a batch at a time
        tally = TextTally(["surname"])
        tally_parts(tally, out)
        assert tally.dominant("surname")[0] == top.index[0]
