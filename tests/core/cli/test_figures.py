"""``compare`` and ``report`` from the command line give the app's own figures (issue 20, point 8)."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pandas as pd
import pytest

from dpsynth_core.cli import main
from dpsynth_core.data.examples import example_csv, example_declaration
from dpsynth_core.data.tables import read_table
from dpsynth_core.evaluation import metrics, report
from dpsynth_core.evaluation.values import value_summaries
from dpsynth_core.workspace import Workspace
from tests.conftest import run_cli_synth
from tests.every_kind import DOMAIN, real_table, released_form


@pytest.fixture(scope="module")
def adult(tmp_path_factory):
    """The bundled example, a release recorded in a workspace by ``synth``, and the files."""
    folder = tmp_path_factory.mktemp("figures")
    domain = folder / "adult.policy.json"
    domain.write_text(json.dumps(example_declaration("adult")))
    out, card = folder / "synthetic.csv", folder / "card.json"
    status = run_cli_synth(
        example_csv("adult"), domain, method="cathist", seed=4, out=out, card=card, workspace=folder / "ws"
    )
    assert status == 0
    return folder, domain, out, card


def test_compare_writes_the_previews_exact_figures(adult, capsys):
    folder, domain, out, _ = adult
    target = folder / "exact.json"
    assert main(["compare", str(example_csv("adult")), str(out), "--domain", str(domain), "--json", str(target)]) == 0
    assert "keep it to yourself" in capsys.readouterr().out
    written = json.loads(target.read_text())
    # the app reads the real upload as text and holds the release as the method returned it
    real = read_table(example_csv("adult"))[0]
    synthetic = read_table(out)[0]
    pairs = metrics.paired_codes(real, synthetic, example_declaration("adult"))
    assert written["one_way"] == pytest.approx(metrics.one_way_distances(pairs), abs=1e-12)
    matrix = metrics.two_way_distances(pairs)
    assert written["two_way"]["age,workclass"] == pytest.approx(matrix.loc["age", "workclass"], abs=1e-12)
    assert len(written["two_way"]) == len(pairs) * (len(pairs) - 1) // 2
    values = value_summaries(real, synthetic, example_declaration("adult"))
    assert written["values"]["capital-gain"]["max_cdf_gap"] == pytest.approx(values["capital-gain"]["max_cdf_gap"])


def test_compare_of_a_table_with_itself_and_with_its_release_is_zero(tmp_path):
    real, domain = tmp_path / "real.csv", tmp_path / "domain.json"
    real_table(0).to_csv(real, index=False)
    domain.write_text(json.dumps(DOMAIN))
    released = tmp_path / "released.csv"
    released_form(real_table(0), DOMAIN).to_csv(released, index=False)
    for other in (real, released):
        target = tmp_path / "exact.json"
        assert main(["compare", str(real), str(other), "--domain", str(domain), "--json", str(target)]) == 0
        written = json.loads(target.read_text())
        assert max(written["one_way"].values()) == pytest.approx(0, abs=1e-12)
        assert max(written["two_way"].values()) == pytest.approx(0, abs=1e-12)
        if other == real:  # a release draws new values inside the bins: only the bins are equal then
            assert all(v["max_cdf_gap"] == 0 and not v["shape"] for v in written["values"].values())


def test_compare_says_what_changed_shape_as_the_preview_does(tmp_path, capsys):
    """The Preview's plain sentences (a frequent value lost, rows beyond the real range) on standard output too,
    one a line, and none for a table compared with itself."""
    real, domain = tmp_path / "real.csv", tmp_path / "domain.json"
    pd.DataFrame({"n": [1, 2, 3, 4] * 25}).to_csv(real, index=False)
    domain.write_text(json.dumps({"columns": {"n": {"type": "integer", "min": 0, "max": 100}}}))
    wide = tmp_path / "wide.csv"
    pd.DataFrame({"n": [1, 2, 3, 4] * 24 + [5] * 4}).to_csv(wide, index=False)
    for other, said in ((real, []), (wide, ["n: 4.0% of the synthetic rows lie above the largest real value (4)"])):
        argv = ["compare", str(real), str(other), "--domain", str(domain), "--json", str(tmp_path / "exact.json")]
        assert main(argv) == 0
        lines = capsys.readouterr().out.splitlines()
        assert [line.removeprefix("values that changed shape: ") for line in lines[1:]] == said


def test_compare_reads_the_real_tables_header_line_past_a_title(tmp_path, capsys):
    """A real file with a title above its header, read with ``--header-row``: the same figures as the plain file."""
    real, titled, domain = tmp_path / "real.csv", tmp_path / "titled.csv", tmp_path / "domain.json"
    pd.DataFrame({"n": [1, 2, 3, 4] * 25}).to_csv(real, index=False)
    titled.write_text("Counts, 2026\n\n" + real.read_text())
    domain.write_text(json.dumps({"columns": {"n": {"type": "integer", "min": 0, "max": 100}}}))
    figures = []
    for path, extra in ((real, []), (titled, ["--header-row", "3"])):
        target = tmp_path / f"{path.stem}.json"
        assert main(["compare", str(path), str(real), "--domain", str(domain), "--json", str(target), *extra]) == 0
        figures.append(json.loads(target.read_text()))
    assert figures[0] == figures[1] and max(figures[1]["one_way"].values()) == 0
    assert main(["compare", str(titled), str(real), "--domain", str(domain), "--json", str(target)]) == 2
    assert "the domain declares column the data lacks: n" in capsys.readouterr().err  # the title read as header


def test_compare_reads_each_table_in_its_own_format(tmp_path):
    """The real table in any format synth reads, with its own reading flags (a spreadsheet's sheet, a CSV's delimiter);
    the synthetic one as synth wrote it, its format from its suffix: the same figures as two plain CSVs."""
    frame = pd.DataFrame({"n": [1, 2, 3, 4] * 25, "town": ["Oslo", "Rome", "Bonn", "Rome"] * 25})
    domain = tmp_path / "domain.json"
    declared = {
        "n": {"type": "integer", "min": 0, "max": 100},
        "town": {"type": "categorical", "values": ["Oslo", "Rome", "Bonn"]},
    }
    domain.write_text(json.dumps({"columns": declared}))
    plain, aligned, book = tmp_path / "real.csv", tmp_path / "real.data", tmp_path / "real.xlsx"
    frame.to_csv(plain, index=False)
    aligned.write_text(frame.to_string(index=False) + "\n")  # columns aligned with spaces
    with pd.ExcelWriter(book) as writer:
        frame.head(3).to_excel(writer, sheet_name="notes", index=False)
        frame.to_excel(writer, sheet_name="records", index=False)
    synthetic = tmp_path / "synthetic.parquet"
    frame.iloc[::-1].to_parquet(synthetic)
    figures = []
    typed = tmp_path / "real.parquet"
    frame.to_parquet(typed)
    tables = ((plain, []), (aligned, ["--delimiter", "spaces"]), (book, ["--sheet", "records"]), (typed, []))
    for real, extra in tables:
        target = tmp_path / f"{real.suffix[1:]}.json"
        argv = ["compare", str(real), str(synthetic), "--domain", str(domain), "--json", str(target), *extra]
        assert main(argv) == 0
        figures.append(json.loads(target.read_text()))
    assert figures[0] == figures[1] == figures[2] == figures[3] and max(figures[0]["one_way"].values()) == 0


def _report(folder, domain, synthetic, page, *extra) -> int:
    """``report`` of the bundled adult table against ``synthetic`` at epsilon 0.1, in the fixture's workspace."""
    ws, real = folder / "ws", example_csv("adult")
    argv = ["report", real, synthetic, "--domain", domain, "--epsilon", 0.1, "--workspace", ws, "--out", page, *extra]
    return main([str(arg) for arg in argv])


def test_report_spends_in_the_ledger_and_writes_the_apps_figures(adult, capsys):
    folder, domain, out, card = adult
    page, figures_json = folder / "report.html", folder / "figures.json"
    status = _report(folder, domain, out, page, "--json", figures_json, "--seed", 9, "--card", card)
    # a file written by synth is found by its card
    assert status == 0, capsys.readouterr().err
    written = json.loads(figures_json.read_text())
    workspace = Workspace(folder / "ws")
    fingerprint = workspace.ledger.dataset_key(workspace.ledger.records_key(read_table(example_csv("adult"))[0]))
    stored = workspace.releases.made_from(fingerprint)[0]
    recorded = workspace.releases.reports(stored.id)
    assert len(recorded) == 1 and recorded[0]["epsilon"] == pytest.approx(0.1)
    assert [s["purpose"] for s in workspace.ledger.spends(fingerprint)] == ["release", "report"]
    # the same figures as the Release page's call, on the same tables with the same noise
    real = read_table(example_csv("adult"))[0]
    synthetic = read_table(out)[0]  # synth wrote it to a file; the workspace keeps its header and card
    columns = list(synthetic.columns)
    figures = report.measure(
        real,
        synthetic,
        example_declaration("adult"),
        epsilon=0.1,
        pairs=report.default_pairs(stored.card, columns),
        chart_columns=columns[:4],
        random_state=9,
    )
    assert written["one_way"] == {
        k: {"estimate": v.value, "low": v.low, "high": v.high} for k, v in figures.one_way.items()
    }
    a, b = next(iter(figures.two_way)).split(" × ")
    assert written["two_way"][f"{a},{b}"]["estimate"] == figures.two_way[f"{a} × {b}"].value
    assert written["values"] == json.loads(json.dumps(figures.values))
    # how many figures the statements of change hold together over: the family their claims were widened for
    assert written["statements"] == {"figures": figures.statements, "confidence": 0.95}
    assert figures.statements == sum(len(found["values"]) + 2 for found in figures.values.values()) > 2
    assert "Quality report" in page.read_text()


def test_report_measures_the_columns_named_with_column_and_says_so(adult, tmp_path, capsys):
    """``--column`` (repeatable) names the columns a report measures; the default pairs and charts are kept among
    them, and the command says how many of the release's columns its report measures."""
    folder, domain, out, _ = adult
    shutil.copytree(folder / "ws", tmp_path / "ws")  # the fixture's own ledger stays as the other tests expect it
    figures_json = tmp_path / "figures.json"
    argv = ["report", example_csv("adult"), out, "--domain", domain, "--epsilon", 0.1, "--workspace", tmp_path / "ws"]
    argv += ["--out", tmp_path / "r.html", "--json", figures_json, "--column", "age", "--column", "sex"]
    assert main([str(arg) for arg in [*argv, "--column", "age", "--seed", 3]]) == 0, capsys.readouterr().err
    assert "; it measures 2 of the release's 14 columns)" in capsys.readouterr().out
    written = json.loads(figures_json.read_text())
    assert list(written["one_way"]) == ["age", "sex"] and list(written["values"]) == ["age"]
    assert set(written["two_way"]) <= {"age,sex"}
    assert "Across the 2 columns it measures (of the release's 14" in (tmp_path / "r.html").read_text()
    assert main([str(arg) for arg in [*argv[:-4], "--column", "height"]]) == 2
    assert "not in the release: height" in capsys.readouterr().err


def test_report_finds_the_workspace_as_synth_does(adult, tmp_path, monkeypatch, capsys):
    """Without --workspace, report records in $DPSYNTH_WORKSPACE, where synth recorded the release, and says so."""
    folder, domain, out, _ = adult
    shutil.copytree(folder / "ws", tmp_path / "ws")  # the fixture's own ledger stays as the other tests expect it
    monkeypatch.setenv("DPSYNTH_WORKSPACE", str(tmp_path / "ws"))
    argv = ["report", example_csv("adult"), out, "--domain", domain, "--epsilon", 0.1, "--out", tmp_path / "r.html"]
    assert main([str(arg) for arg in [*argv, "--seed", 3]]) == 0, capsys.readouterr().err
    assert f"as recorded in the ledger of {tmp_path / 'ws'}" in capsys.readouterr().out
    before = [s["purpose"] for s in Workspace(folder / "ws").ledger.spends()]
    assert [s["purpose"] for s in Workspace(tmp_path / "ws").ledger.spends()] == [*before, "report"]


def test_report_refuses_a_file_that_is_not_a_recorded_release(adult, tmp_path, capsys):
    folder, domain, out, _ = adult
    other = tmp_path / "other.csv"
    pd.read_csv(out, dtype=str, keep_default_na=False).head(50).to_csv(other, index=False)
    status = _report(folder, domain, other, tmp_path / "r.html")
    err = capsys.readouterr().err
    assert status == 2 and "not a release" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "r.html").exists()
    assert np.isclose(sum(s["purpose"] == "report" for s in Workspace(folder / "ws").ledger.spends()), 1)
