"""The command line: every shared dataset end to end, and one-line errors for bad input."""

import json
import subprocess
import sys

import pandas as pd
import pytest

from dpsynth_core.cli import main
from dpsynth_core.domain import TableDomain
from tests.conftest import DATASETS, ROOT, complete_domain, shared_path


def _domain_file(tmp_path, dataset):
    path = tmp_path / f"{dataset}.domain.json"
    path.write_text(json.dumps(complete_domain(dataset)))
    return path


@pytest.mark.parametrize("dataset", DATASETS)
def test_every_dataset_end_to_end(tmp_path, dataset, capsys):
    out, card = tmp_path / "out.csv", tmp_path / "card.json"
    status = main(["synth", str(shared_path(f"{dataset}.csv")), "--domain", str(_domain_file(tmp_path, dataset)),
                   "--epsilon", "1", "--seed", "3", "--out", str(out), "--card", str(card),
                   "--card-html", str(tmp_path / "card.html")])
    assert status == 0, capsys.readouterr().err
    synthetic = pd.read_csv(out, dtype=str, keep_default_na=False)
    domain = TableDomain.from_json(complete_domain(dataset))
    assert list(synthetic.columns) == list(domain.kept)
    assert len(synthetic) == json.loads(card.read_text())["rows"]["synthetic"]
    assert "3" != json.loads(card.read_text()).get("seed")


def test_methods_and_tau(capsys):
    assert main(["methods"]) == 0
    assert "cathist" in capsys.readouterr().out
    assert main(["tau", "--size", "171000", "--rho", "0.9", "--epsilon", "1"]) == 0
    text = capsys.readouterr().out
    assert "tau = 13.6066" in text and "expected made-up values = 0.1054" in text
    assert main(["tau", "--size", "1000000000000000", "--rho", "0.9", "--epsilon", "1"]) == 0


@pytest.mark.parametrize("case,message", [
    ("missing file", "file not found"),
    ("malformed", "not a well-formed CSV"),
    ("empty", "is empty"),
    ("binary", "binary"),
    ("domain names absent column", "lacks: ghost"),
    ("column not declared", "does not declare: income"),
    ("epsilon zero", "epsilon (0.0) must be"),
    ("rho one", "rho (1.0) must be in (0, 1)"),
    ("incomplete domain", "fnlwgt"),
    ("out folder missing", "folder does not exist"),
])
def test_bad_input_gives_one_line_and_non_zero_exit(tmp_path, case, message):
    data = shared_path("adult.csv")
    domain = complete_domain("adult")
    args = {"--epsilon": "1", "--rho": "0.9", "--out": str(tmp_path / "o.csv")}
    if case == "missing file":
        data = tmp_path / "nope.csv"
    elif case == "malformed":
        data = ROOT / "tests" / "fixtures" / "malformed.csv"
    elif case == "empty":
        data = tmp_path / "empty.csv"
        data.write_text("")
    elif case == "binary":
        data = tmp_path / "x.csv"
        data.write_bytes(b"\x00\x01\x02" * 10)
    elif case == "domain names absent column":
        domain["columns"]["ghost"] = {"type": "categorical", "values": ["a"]}
    elif case == "column not declared":
        del domain["columns"]["income"]
    elif case == "epsilon zero":
        args["--epsilon"] = "0"
    elif case == "rho one":
        args["--rho"] = "1"
    elif case == "incomplete domain":
        domain = json.loads(shared_path("adult.domain.json").read_text())
    elif case == "out folder missing":
        args["--out"] = str(tmp_path / "no" / "o.csv")
    dpath = tmp_path / "d.json"
    dpath.write_text(json.dumps(domain))
    argv = [sys.executable, "-m", "dpsynth_core", "synth", str(data), "--domain", str(dpath)]
    for key, value in args.items():
        argv += [key, value]
    done = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert message in lines[0]


def test_wrong_encoding_domain_file(tmp_path):
    bad = tmp_path / "d.json"
    bad.write_bytes('{"columns": {"é": 1}}'.encode("utf-16"))
    done = subprocess.run([sys.executable, "-m", "dpsynth_core", "synth", str(shared_path("ce.csv")),
                           "--domain", str(bad), "--epsilon", "1", "--out", str(tmp_path / "o.csv")],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 2 and "not UTF-8" in done.stderr and "Traceback" not in done.stderr
