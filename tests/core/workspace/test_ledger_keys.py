"""Which ledger a table belongs to (dpsynth_core.workspace.ledger's keys): the ledger follows the
records (any file form, one key per workspace), named datasets share a budget, every limit change
is kept, a seeded run is not called private, and the ledger refuses devices and missing files."""

from __future__ import annotations

import json
import time

import pandas as pd
import pytest

from dpsynth_core import synthesize
from dpsynth_core.cli import main
from dpsynth_core.workspace import Workspace
from tests.conftest import ROOT, run_cli_synth
from tests.corpus import good_domain


def test_a_limit_holds_for_the_records_in_every_form_and_every_change_is_kept(record_forms, capsys):
    ws = str(record_forms / "ws")
    assert main(["ledger", str(record_forms / "a.csv"), "--workspace", ws, "--limit", "1.5"]) == 0

    def synth(name, epsilon, *extra):
        return main(
            [
                "synth",
                str(record_forms / name),
                "--domain",
                str(record_forms / "d.json"),
                "--epsilon",
                str(epsilon),
                "--out",
                str(record_forms / f"out-{name}-{epsilon}.csv"),
                "--workspace",
                ws,
                "--method",
                "cathist",
                *extra,
            ]
        )  # pure DP: the spends add up exactly

    assert synth("a.csv", 1) == 0
    for form in ("b.csv", "c.tsv", "d.parquet", "parts"):
        assert synth(form, 1) == 2
        assert "lifetime budget of ε = 1.5" in capsys.readouterr().err
    assert synth("parts", 0.5) == 0
    assert main(["ledger", str(record_forms / "d.parquet"), "--workspace", ws, "--limit", "none"]) == 0
    printed = capsys.readouterr().out
    assert "none -> ε = 1.5" in printed and "ε = 1.5 -> none" in printed and printed.count(" release ") == 2


def test_synth_records_in_the_default_workspace_unless_told_not_to(record_forms):
    default = Workspace()
    assert run_cli_synth(record_forms / "a.csv", record_forms / "d.json", out=record_forms / "o.csv") == 0
    assert (
        default.ledger.spending(
            default.ledger.dataset_key(default.ledger.records_key(record_forms / "d.parquet"))
        ).draws
        == 1
    )
    card = record_forms / "card.json"
    assert (
        run_cli_synth(
            record_forms / "a.csv", record_forms / "d.json", out=record_forms / "o2.csv", no_ledger=True, card=card
        )
        == 0
    )
    assert "in no budget ledger" in json.loads(card.read_text())["ledger"]
    assert len(default.ledger.spends()) == 1


def test_named_versions_share_one_budget_and_their_records_find_it(record_forms, capsys):
    ws = str(record_forms / "ws")
    frame = pd.read_csv(record_forms / "a.csv", dtype=str, keep_default_na=False)
    frame.iloc[:250].to_csv(record_forms / "v1.csv", index=False)
    base = [
        "--domain",
        str(record_forms / "d.json"),
        "--workspace",
        ws,
        "--method",
        "cathist",
    ]  # pure DP: spends add up
    assert (
        main(["synth", str(record_forms / "v1.csv"), *base, "--epsilon", "1", "--out", str(record_forms / "o1.csv")])
        == 0
    )
    assert main(["ledger", "--dataset", "monthly", "--workspace", ws, "--limit", "2.5"]) == 0
    # v1 joins the name with its earlier draw; v2 (more records) shares the budget
    assert (
        main(
            [
                "synth",
                str(record_forms / "v1.csv"),
                *base,
                "--dataset",
                "monthly",
                "--epsilon",
                "1",
                "--out",
                str(record_forms / "o2.csv"),
            ]
        )
        == 0
    )
    assert (
        main(
            [
                "synth",
                str(record_forms / "a.csv"),
                *base,
                "--dataset",
                "monthly",
                "--epsilon",
                "1",
                "--out",
                str(record_forms / "o3.csv"),
            ]
        )
        == 2
    )
    assert "over its lifetime budget of ε = 2.5" in capsys.readouterr().err
    # the records, without the name, find the named dataset; they cannot join another name
    assert (
        main(
            ["synth", str(record_forms / "d.parquet"), *base, "--epsilon", "0.6", "--out", str(record_forms / "o4.csv")]
        )
        == 2
    )
    assert (
        main(
            [
                "synth",
                str(record_forms / "v1.csv"),
                *base,
                "--dataset",
                "other",
                "--epsilon",
                "0.1",
                "--out",
                str(record_forms / "o5.csv"),
            ]
        )
        == 2
    )
    assert "already counted in the dataset 'monthly'" in capsys.readouterr().err


def test_a_seeded_run_says_it_is_not_private_before_writing_and_the_ledger_agrees(record_forms, capsys, monkeypatch):
    release = synthesize(pd.read_csv(record_forms / "a.csv", dtype=str), good_domain(), 1.0, random_state=5)
    guarantee = release.card["guarantee"]
    assert guarantee["epsilon"] is None and guarantee["seeded"] and "fixed random seed" in guarantee["plain_words"]
    assert synthesize(pd.read_csv(record_forms / "a.csv", dtype=str), good_domain(), 1.0).card["guarantee"][
        "epsilon"
    ] == pytest.approx(1)
    ws = str(record_forms / "ws")
    out = record_forms / "seeded.csv"
    from dpsynth_core import release as releases

    seen, real = [], releases.ReleaseSettings.run

    def drawing(self, *args, **kwargs):  # the note is out before anything is drawn or written
        seen.append(capsys.readouterr().err)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(releases.ReleaseSettings, "run", drawing)
    assert (
        main(
            [
                "synth",
                str(record_forms / "a.csv"),
                "--domain",
                str(record_forms / "d.json"),
                "--epsilon",
                "1",
                "--seed",
                "3",
                "--out",
                str(out),
                "--workspace",
                ws,
            ]
        )
        == 0
    )
    assert "not private" in seen[0] and out.exists()
    (spend,) = Workspace(ws).ledger.spends()
    assert spend["guaranteed"] is False and spend["epsilon"] is None


def test_the_app_never_seeds_a_release():
    """Every draw of the publisher's data in the app uses the secure source. (The k-anonymity page's
    demo, on the bundled example and never a release, is seeded so that it reads the same each time.)"""
    calls = []
    for page in [*(ROOT / "app_pages").glob("*.py"), *(ROOT / "app_support").glob("*.py")]:
        for call in page.read_text().split("synthesize(")[1:]:
            calls.append((page.name, call[: call.index(")\n") if ")\n" in call else 400]))
    releases = [(name, call) for name, call in calls if "example_declaration" not in call]
    assert releases and all("random_state" not in call and "seed" not in call for _, call in releases), releases


def test_ledger_refuses_devices_and_missing_files(tmp_path, capsys):
    for target in ("/dev/zero", str(tmp_path / "missing.csv"), str(tmp_path)):
        started = time.monotonic()
        assert main(["ledger", target, "--workspace", str(tmp_path / "ws")]) == 2
        assert time.monotonic() - started < 30 and "internal" not in capsys.readouterr().err
