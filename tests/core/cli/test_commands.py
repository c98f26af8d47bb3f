"""The small commands: ``methods`` lists the methods, ``tau`` answers or refuses in one line."""

import pytest

from dpsynth_core.cli import main


def test_methods_and_tau(capsys):
    assert main(["methods"]) == 0
    assert "cathist" in capsys.readouterr().out
    assert main(["tau", "--size", "171000", "--rho", "0.9", "--epsilon", "1"]) == 0
    text = capsys.readouterr().out
    assert "tau = 13.6066" in text and "expected made-up values = 0.1054" in text
    assert main(["tau", "--size", "1000000000000000", "--rho", "0.9", "--epsilon", "1"]) == 0
    capsys.readouterr()
    assert main(["tau", "--size", "100000", "--rho", "0.9", "--epsilon", "0.05", "--records", "10000"]) == 0
    text = capsys.readouterr().out
    assert "made-up value comes with a noisy count of about" in text and "at most about 3" in text
    assert main(["tau", "--size", "10", "--rho", "0.9", "--epsilon", "1", "--records", "many"]) == 2


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--epsilon", "1e-300"], "--epsilon ('1e-300') must be a number from 1e-09"),
        (["--epsilon", "1e-12"], "--epsilon ('1e-12') must be"),
        (["--rho", "1e-300"], "--rho ('1e-300') must be in (0, 1)"),
        (["--size", "0"], "domain size (0) must be"),
        (["--size", "1" * 5000], "domain size"),
    ],
)
def test_tau_refuses_what_would_hang_or_crash(argv, message, capsys):
    args = {"--size": "10", "--rho": "0.9", "--epsilon": "1"}
    args.update(dict(zip(argv[::2], argv[1::2])))
    assert main(["tau", *[x for pair in args.items() for x in pair]]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: {message}") and len(err.splitlines()) == 1


def test_a_statistical_office_round_trip_from_spss_to_spss_excel_stata_and_sas(tmp_path, capsys):
    """The CE survey as an SPSS file with its codebook: ``declare`` starts the declaration from the codebook
    (no record read), the publisher adds the ranges, ``synth`` writes the synthetic table back as SPSS (its
    value labels, variable labels and missing codes restored), Excel (the card's notes on a second sheet),
    Stata and SAS transport; the CSV, the SPSS file and the workbook of the same records find one ledger."""
    import json

    import openpyxl
    import pandas as pd
    import pyreadstat

    from tests.conftest import shared_path
    from tests.publisher_files import package_bytes, typed, xlsx_bytes

    table = typed(pd.read_csv(shared_path("ce.csv"), dtype=str))
    sav, workbook = tmp_path / "ce.sav", tmp_path / "ce.xlsx"
    sav.write_bytes(
        package_bytes(
            table,
            ".sav",
            variable_value_labels={"UrbanRural": {1: "Urban", 2: "Rural"}, "Race": {1: "White", 2: "Black", 9: "DK"}},
            column_labels={"UrbanRural": "Urban or rural"},
            missing_ranges={"Race": [9]},
            variable_format={"Income": "F8.0"},
        )
    )
    workbook.write_bytes(xlsx_bytes(table))
    started = tmp_path / "ce.domain.json"
    assert main(["declare", str(sav), "--out", str(started)]) == 0
    assert "still need their values or ranges" in capsys.readouterr().err
    spec = json.loads(started.read_text())
    spec["columns"]["Income"].update(min=0, max=500_000, bin_width=25_000)
    spec["columns"]["Expenditure"].update(min=0, max=100_000)
    spec["columns"]["Race"]["values"] += ["3", "4", "5", "6"]  # the public dictionary lists six groups
    unconfirmed = tmp_path / "unconfirmed.json"
    unconfirmed.write_text(json.dumps(spec))
    argv = ["synth", str(sav), "--domain", str(unconfirmed), "--epsilon", "0.5", "--no-ledger"]
    assert main([*argv, "--out", str(tmp_path / "never.sav")]) == 2
    assert "started from the file's codebook; check it against the documentation" in capsys.readouterr().err
    for entry in spec["notes"]["codebook"]["columns"].values():
        entry["confirmed"] = True  # checked against the documentation
    declared = tmp_path / "ce.complete.json"
    declared.write_text(json.dumps(spec))
    workspace = str(tmp_path / "ws")
    common = ["--domain", str(declared), "--epsilon", "0.5", "--workspace", workspace]
    outputs = ((sav, "synthetic.sav"), (workbook, "synthetic.xlsx"), (shared_path("ce.csv"), "s.dta"), (sav, "s.xpt"))
    for source, out in outputs:
        assert main(["synth", str(source), *common, "--out", str(tmp_path / out)]) == 0, capsys.readouterr().err
    capsys.readouterr()
    sas, sas_meta = pyreadstat.read_xport(tmp_path / "s.xpt")  # version 8: UrbanRural is longer than 8 characters
    assert (tmp_path / "s.xpt").read_bytes()[:80].startswith(b"HEADER RECORD*******LIBV8   HEADER RECORD")
    assert list(sas.columns) == ["UrbanRural", "Income", "Race", "Expenditure"] and len(sas) > 500
    assert sas_meta.column_names_to_labels["UrbanRural"] == "Urban or rural" and set(sas["UrbanRural"]) <= {1.0, 2.0}
    frame, meta = pyreadstat.read_sav(tmp_path / "synthetic.sav", user_missing=True)
    assert meta.variable_value_labels["UrbanRural"] == {1.0: "Urban", 2.0: "Rural"}
    assert meta.column_names_to_labels["UrbanRural"] == "Urban or rural"
    assert meta.missing_ranges == {"Race": [{"lo": 9.0, "hi": 9.0}]}
    assert set(frame["UrbanRural"].dropna()) <= {1.0, 2.0} and frame["Income"].dtype.kind == "f"
    book = openpyxl.load_workbook(tmp_path / "synthetic.xlsx", read_only=True)
    assert book.sheetnames == ["synthetic", "about this release"]
    about = {row[0]: row[1] for row in book["about this release"].iter_rows(values_only=True)}
    assert about["Guarantee"].startswith("epsilon 0.5") and "Column Race" in about
    assert isinstance(next(book["synthetic"].iter_rows(min_row=2, values_only=True))[1], (int, float))
    _, stata = pyreadstat.read_dta(tmp_path / "s.dta", metadataonly=True)
    assert stata.variable_value_labels["Race"] == {1: "White", 2: "Black"}  # the declared labels, 9 (missing) out
    from dpsynth_core.workspace import Workspace

    ledger = Workspace(workspace, read_only=True).ledger
    assert len(ledger.datasets()) == 1 and len(ledger.spends()) == 4  # one dataset, whatever its file


def test_declare_tells_a_qualtrics_export_and_starts_it_over_three_lines(tmp_path, capsys):
    """``declare`` on Qualtrics' own export says, from its names, that its next two lines are the questions and the
    import ids; with ``--header-rows 3`` the columns are named by code and question, its response fields start as
    Qualtrics documents them, and nothing is said of the header."""
    import json

    from dpsynth_core.data.formats import read_data
    from tests.conftest import shared_path
    from tests.publisher_files import qualtrics_export

    survey = tmp_path / "survey.csv"
    survey.write_bytes(qualtrics_export(read_data(shared_path("star_wars.csv"), header_rows=2)[0], "RespondentID"))
    assert main(["declare", str(survey), "--out", str(tmp_path / "one.json")]) == 0
    assert "note: The header names Qualtrics’ response fields" in capsys.readouterr().err
    assert main(["declare", str(survey), "--header-rows", "3", "--out", str(tmp_path / "three.json")]) == 0
    assert "Qualtrics" not in capsys.readouterr().err
    columns = json.loads((tmp_path / "three.json").read_text())["columns"]
    assert columns["ResponseId | Response ID"] == {"type": "drop"} and columns["Progress"]["max"] == 100
    assert (
        "Q5_14 | Please state whether you view the following characters favorably, unfavorably, or are "
        "unfamiliar with him/her. - Yoda" in columns
    )
