"""``synth``: every shared dataset end to end, one-line errors, and outputs that are all or nothing."""

import json
import os
import subprocess
import sys

import pandas as pd
import pytest

from dpsynth_core import cli
from dpsynth_core.data.examples import example_csv, example_declaration
from dpsynth_core.domain import TableDomain
from tests.conftest import DATASETS, ROOT, complete_domain, run_cli_synth, shared_path, synth_argv


def _domain_file(tmp_path, dataset):
    path = tmp_path / f"{dataset}.domain.json"
    path.write_text(json.dumps(complete_domain(dataset)))
    return path


@pytest.mark.parametrize("dataset", DATASETS)
def test_every_dataset_end_to_end(tmp_path, dataset, capsys):
    out, card = tmp_path / "out.csv", tmp_path / "card.json"
    status = run_cli_synth(
        shared_path(f"{dataset}.csv"),
        _domain_file(tmp_path, dataset),
        seed=3,
        out=out,
        card=card,
        card_html=tmp_path / "card.html",
    )
    assert status == 0, capsys.readouterr().err
    synthetic = pd.read_csv(out, dtype=str, keep_default_na=False)
    domain = TableDomain.from_json(complete_domain(dataset))
    assert list(synthetic.columns) == list(domain.kept)
    assert len(synthetic) == json.loads(card.read_text())["rows"]["synthetic"]
    assert "3" != json.loads(card.read_text()).get("seed")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [out.name, card.name, "card.html", f"{dataset}.domain.json"]
    )  # no stray file


@pytest.mark.parametrize("dataset", [*DATASETS, "adult (bundled)", "ce (bundled)"])
def test_every_example_with_min_max_only_numeric_columns_through_the_cli(tmp_path, dataset, capsys):
    """Every table with its numeric columns declared by their range alone: the bundled examples with
    the default app method, the shared tables with cathist (the engine takes minutes on compas's 53
    columns; the bins are fitted the same way before any method)."""
    method = "cathist"
    if dataset.endswith("(bundled)"):
        name, method = dataset.split()[0], "marginals"
        spec, data = example_declaration(name), example_csv(name)
        for column in spec["columns"].values():
            for key in ("bin_width", "edges", "bins", "unit"):
                column.pop(key, None)
    else:
        spec, data = complete_domain(dataset), shared_path(f"{dataset}.csv")
    domain_file, out, card = tmp_path / "d.json", tmp_path / "out.csv", tmp_path / "card.json"
    domain_file.write_text(json.dumps(spec))
    status = run_cli_synth(data, domain_file, method=method, seed=4, out=out, card=card)
    assert status == 0, capsys.readouterr().err
    domain = TableDomain.from_json(spec)
    adaptive = [n for n, c in domain.kept.items() if getattr(c, "adaptive", False)]
    fitted = json.loads(card.read_text())["adaptive_bins"]
    assert [b["column"] for b in fitted] == adaptive
    synthetic = pd.read_csv(out, dtype=str, keep_default_na=False)
    released = TableDomain.from_json(
        {
            **spec,
            "columns": {
                **spec["columns"],
                **{b["column"]: {**spec["columns"][b["column"]], "edges": b["edges"]} for b in fitted},
            },
        }
    )
    for name in adaptive:  # every value inside the declared range, integers whole, dates dates
        values = synthetic[name][synthetic[name] != ""]
        column = domain.columns[name]
        if column.kind == "date":
            assert pd.to_datetime(values, format="%Y-%m-%d").between(str(column.min), str(column.max)).all()
        else:
            numbers = values.astype(float)
            assert numbers.between(column.min, column.max).all(), name
            if column.kind == "integer":
                assert (numbers == numbers.round()).all(), name
    assert released.problems() == []


@pytest.mark.parametrize(
    "case,message",
    [
        ("missing file", "file not found"),
        ("empty", "is empty"),
        ("binary", "binary"),
        ("domain names absent column", "lacks: ghost"),
        ("column not declared", "does not declare: income"),
        ("epsilon zero", "epsilon ('0') must be a number from 0.01 to 20"),
        ("epsilon too large", "epsilon ('21') must be a number from 0.01 to 20"),
        ("rho one", "rho ('1') must be in (0, 1)"),
        ("rho tiny", "rho ('1e-300') must be in (0, 1)"),
        ("rows huge", "rows ('100000000000000000000000000000000000...) must be a whole number from 1"),
        ("rows over the cap", "rows ('1000000001') must be a whole number from 1 to 1,000,000,000"),
        ("seed negative", "seed ('-1') must be"),
        ("incomplete domain", "fnlwgt"),
        ("out folder missing", "folder does not exist"),
        ("unknown option", "unrecognized arguments"),
        ("bad encoding", "encoding ('klingon') is not a known"),
    ],
)
def test_bad_input_gives_one_line_and_exit_2(tmp_path, case, message, capsys):
    """In this process, through the command line's ``main`` (a process each cost 1.5 s of imports; the same
    refusals as real processes are tests/core/test_corpus.py's ``test_cli_as_real_processes``)."""
    data = shared_path("adult.csv")
    domain = complete_domain("adult")
    args = {"--epsilon": "1", "--rho": "0.9", "--out": str(tmp_path / "o.csv")}
    extra = []
    if case == "missing file":
        data = tmp_path / "nope.csv"
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
    elif case == "epsilon too large":
        args["--epsilon"] = "21"
    elif case == "rho one":
        args["--rho"] = "1"
    elif case == "rho tiny":
        args["--rho"] = "1e-300"
    elif case == "rows huge":
        args["--rows"] = str(10**40)
    elif case == "rows over the cap":
        args["--rows"] = "1000000001"  # the file cap, for every engine
    elif case == "seed negative":
        args["--seed"] = "-1"
    elif case == "incomplete domain":
        domain = json.loads(shared_path("adult.domain.json").read_text())
    elif case == "out folder missing":
        args["--out"] = str(tmp_path / "no" / "o.csv")
    elif case == "unknown option":
        extra = ["--colour", "blue"]
    elif case == "bad encoding":
        args["--encoding"] = "klingon"
    dpath = tmp_path / "d.json"
    dpath.write_text(json.dumps(domain))
    argv = ["synth", str(data), "--domain", str(dpath), *extra]
    for key, value in args.items():
        argv += [key, value]
    try:
        status = cli.main(argv)
    except SystemExit as exc:  # what the interpreter would exit with
        status = exc.code
    said = capsys.readouterr()
    assert status == 2 and not said.out
    lines = said.err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in said.err, said.err
    assert message in lines[0]
    assert not (tmp_path / "o.csv").exists()


def test_wrong_encoding_domain_file(tmp_path):
    bad = tmp_path / "d.json"
    bad.write_bytes('{"columns": {"é": 1}}'.encode("utf-16"))
    done = subprocess.run(
        [sys.executable, "-m", "dpsynth_core", *synth_argv(shared_path("ce.csv"), bad, out=tmp_path / "o.csv")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 2 and "not UTF-8" in done.stderr and "Traceback" not in done.stderr


def test_a_refused_run_exits_before_reading_anything_or_opening_a_workspace(tmp_path):
    """The core checks every setting once, before the input is read, an engine loads or a workspace
    is made; building the parser (and ``--help``) loads no method and no numerical library."""
    code = (
        "import sys; from dpsynth_core.cli.parser import build_parser; build_parser(); "
        "light = 'numpy' not in sys.modules; from dpsynth_core.cli import main; "
        f"status = main(['synth', 'x.csv', '--domain', 'd.json', '--epsilon', '0', '--out', 'o.csv', "
        f"'--workspace', {str(tmp_path / 'ws')!r}]); "
        "print(status, light, 'duckdb' in sys.modules, 'pyspark' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.stdout.split() == ["2", "True", "False", "False"], done.stderr
    assert "epsilon ('0')" in done.stderr and not (tmp_path / "ws").exists()


# --- outputs: checked before work, written all or nothing -------------------------------------


def _synth(tmp_path, **paths):
    domain = _domain_file(tmp_path, "ce")
    return run_cli_synth(paths.pop("input", shared_path("ce.csv")), paths.pop("domain", domain), seed=1, **paths)


def test_outputs_that_would_replace_an_input_or_each_other_are_refused(tmp_path, capsys):
    data = tmp_path / "ce.csv"
    data.write_bytes(shared_path("ce.csv").read_bytes())
    before = data.read_bytes()
    domain = _domain_file(tmp_path, "ce")
    domain_text = domain.read_text()
    link = tmp_path / "link.csv"
    link.symlink_to(data)
    cases = [
        ({"input": data, "out": data}, "--out ({}) is the same file as the input"),
        ({"input": data, "out": link}, "is the same file as the input"),
        ({"input": data, "out": domain}, "is the same file as --domain"),
        ({"input": data, "out": tmp_path / "o.csv", "card": tmp_path / "o.csv"}, "--out and --card name the same"),
        ({"input": data, "out": tmp_path / "o.csv", "card_html": domain}, "--card-html"),
        ({"input": data, "out": tmp_path}, "it is a folder"),
        ({"input": data, "out": "/dev/null"}, "not a regular file"),
        ({"input": data, "out": tmp_path / "o.csv", "card": tmp_path / "no" / "c.json"}, "folder does not exist"),
    ]
    for paths, message in cases:
        paths["domain"] = domain
        assert _synth(tmp_path, **paths) == 2
        err = capsys.readouterr().err.strip()
        assert message.format(paths.get("out")) in err and len(err.splitlines()) == 1, err
    assert data.read_bytes() == before and domain.read_text() == domain_text
    assert not (tmp_path / "o.csv").exists()


def test_a_failure_while_writing_leaves_every_file_as_it_was(tmp_path, monkeypatch, capsys):
    out, card = tmp_path / "out.csv", tmp_path / "card.json"
    out.write_text("the previous release\n")
    real_fdopen = os.fdopen
    calls = {"n": 0}

    def failing_fdopen(fd, mode="r", *args, **kwargs):
        handle = real_fdopen(fd, mode, *args, **kwargs)
        calls["n"] += 1
        if calls["n"] == 1:  # the card (the table went to its temporary file in chunks) hits a full disk
            original_write = handle.write

            def write(data):
                original_write(data[: len(data) // 2])
                raise OSError(28, "No space left on device")

            handle.write = write
        return handle

    monkeypatch.setattr(cli.os, "fdopen", failing_fdopen)
    assert _synth(tmp_path, out=out, card=card) == 2
    assert "No space left on device" in capsys.readouterr().err
    assert out.read_text() == "the previous release\n" and not card.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ce.domain.json", "out.csv"]  # no temporary file left


def test_outputs_replace_old_ones_with_usual_permissions(tmp_path, capsys):
    out = tmp_path / "out.csv"
    out.write_text("old\n")
    assert _synth(tmp_path, out=out) == 0
    assert out.read_text().startswith("UrbanRural,")
    mask = os.umask(0)
    os.umask(mask)
    assert (out.stat().st_mode & 0o777) == (0o666 & ~mask)


def test_microagg_and_deniability_report_what_they_did(tmp_path, capsys):
    assert _synth(tmp_path, out=tmp_path / "m.csv", method="microagg", rows=50) == 0
    out = capsys.readouterr().out
    assert "wrote 50 synthetic rows" in out and "no differential-privacy guarantee" in out
    assert _synth(tmp_path, out=tmp_path / "d.csv", method="deniability", rows=40) == 0
    captured = capsys.readouterr()
    written = len(pd.read_csv(tmp_path / "d.csv"))
    assert f"wrote {written:,} synthetic rows" in captured.out
    assert (written == 40) != ("you asked for 40 rows; the method released" in captured.err)


def test_reading_notes_go_to_stderr_only(tmp_path, capsys):
    data = tmp_path / "ce.csv"
    text = shared_path("ce.csv").read_bytes()
    header, first, rest = text.split(b"\n", 2)
    data.write_bytes(header + b"\n" + first + b"\n" + b'"broken,1\n' + rest)
    card = tmp_path / "card.json"
    assert _synth(tmp_path, input=data, out=tmp_path / "o.csv", card=card) == 0
    err = capsys.readouterr().err
    assert "1 of" in err and "broken quoting" in err
    assert "broken" not in card.read_text()


def test_the_note_on_changed_cells_says_how_dates_and_numbers_are_read(tmp_path, capsys):
    # A date column written day/month/year (13/05/2005), declared as a date: every cell became
    # missing, and the note said only "2000 cell(s) outside the declared domain were clamped or set
    # to missing", though every date was inside the declared range.
    data = tmp_path / "seen.csv"
    data.write_text("seen,n,colour\n13/05/2005,1,red\n02/11/2010,x,blue\n2020-01-01,2.5,red\n")
    domain = tmp_path / "d.json"
    domain.write_text(json.dumps({"columns": {
        "seen": {"type": "date", "min": "1990-01-01", "max": "2030-12-31", "unit": "year"},
        "n": {"type": "integer", "min": 0, "max": 9},
        "colour": {"type": "categorical", "values": ["red"]},
    }}))  # fmt: skip
    assert run_cli_synth(data, domain, out=tmp_path / "o.csv", no_ledger=True, rows=5) == 0
    err = capsys.readouterr().err
    # a whole-number column's fraction (2.5, a number declared as a count) is rounded, and said so
    assert (
        "column 'seen': 2 cells did not fit" in err
        and 'unless the column declares "written": "day first" or "month first"): missing' in err
    )
    assert "column 'n': 2 cells did not fit" in err and "not whole numbers: rounded" in err
    assert "column 'colour': 1 cell did not fit" in err and "not a declared value: missing" in err
    # two of three cells is most of the column: the note points to the check that says why before a release
    assert err.count("that is most of the column: check-declaration says why, before a release") == 2, err


def test_many_columns_with_changed_cells_are_said_a_note_a_rule(tmp_path, capsys):
    """A trial's file of 137 columns had 23 with a cell or two beyond the documented range, each said in a line of the
    rule's 200 words. From five columns on, a note a rule names them with their counts, the missing cells of columns
    declared without them in a note of their own, and the columns mostly changed in a third."""
    data = tmp_path / "wide.csv"
    data.write_text("a,b,c,d,e,f,g\n1,1,1,1,1,x,1\n12,11,10,1,1,y,\n3,3,99,99,99,z,\n")
    spec = {name: {"type": "integer", "min": 0, "max": 9} for name in "abcde"}
    spec["f"] = {"type": "categorical", "values": ["x", "y"]}
    spec["g"] = {"type": "integer", "min": 0, "max": 9, "missing": False}
    domain = tmp_path / "d.json"
    domain.write_text(json.dumps({"columns": spec}))
    assert run_cli_synth(data, domain, out=tmp_path / "o.csv", no_ledger=True, rows=5) == 0
    notes = [line for line in capsys.readouterr().err.splitlines() if "changed" in line or "first value" in line]
    assert notes == [
        "note: 5 columns hold cells that did not fit the declaration, changed by the public rule (outside the range: "
        "clamped to it; not whole numbers: rounded; not numbers: missing (read plainly, such as 1234.5 or $12.50, "
        "unless the column declares "
        "\"written\": \"thousands comma\", \"decimal comma\" or \"percent\")): 'a' 1 cell, 'b' 1, 'c' 2, 'd' 1, "
        "'e' 1",
        "note: 1 column holds cells that did not fit the declaration, changed by the public rule (not a declared "
        "value: missing, or the column's 'other' value if it has one): 'f' 1 cell",
        "note: 1 column declared without missing values holds missing cells, each read as its column's first value: "
        "'g' 2 cells",
        "note: most cells of 'c', 'g' were changed so: check-declaration says why, before a release",
    ], notes


def test_the_cards_notes_go_to_stderr(tmp_path, capsys):
    # 3 records at epsilon 0.1: the row count's noise is about 200 rows, so the card says so (and that
    # --rows costs nothing); with --rows it says nothing of the kind
    data = tmp_path / "few.csv"
    data.write_text("colour\nred\nblue\nred\n")
    domain = tmp_path / "d.json"
    domain.write_text(json.dumps({"columns": {"colour": {"type": "categorical", "values": ["red", "blue"]}}}))
    flags = {"epsilon": 0.1, "method": "cathist", "no_ledger": True}
    assert run_cli_synth(data, domain, **flags, out=tmp_path / "o.csv", seed=2) == 0
    err = capsys.readouterr().err
    assert "note: The table has 1 row: " in err and "±200 rows" in err and "--rows" in err, err
    assert run_cli_synth(data, domain, **flags, out=tmp_path / "p.csv", rows=3) == 0
    assert "The table has" not in capsys.readouterr().err


def test_a_file_without_a_header_line_is_declared_and_released_with_columns_named_by_position(tmp_path, capsys):
    """adult's records with no header line (as UCI's adult.data): ``declare`` says its names look like a record;
    with ``--header-rows 0`` it starts column_1, ..., ``synth`` releases every record under those names (no value
    of the first record as a name), the rerun script reads the file the same way, and DuckDB, reading it in chunks,
    draws the same release."""
    data = tmp_path / "adult.data"
    adult = pd.read_csv(shared_path("adult.csv"), dtype=str).head(2000)
    adult.to_csv(data, index=False, header=False)
    assert cli.main(["declare", str(data), "--out", str(tmp_path / "named.json")]) == 0
    assert "The header's names include numbers or dates ('39', '77516', '13', ...)" in capsys.readouterr().err
    started = tmp_path / "started.json"
    assert cli.main(["declare", str(data), "--header-rows", "0", "--out", str(started)]) == 0
    assert "include numbers or dates" not in capsys.readouterr().err
    spec = complete_domain("adult")
    spec["columns"] = {f"column_{i}": c for i, c in enumerate(spec["columns"].values(), start=1)}
    domain = tmp_path / "adult.domain.json"
    domain.write_text(json.dumps(spec))
    assert list(json.loads(started.read_text())["columns"]) == list(spec["columns"])
    out, script = tmp_path / "s.csv", tmp_path / "rerun.py"
    assert run_cli_synth(data, domain, no_ledger=True, out=out, header_rows=0, rerun_script=script) == 0
    synthetic = pd.read_csv(out, dtype=str)
    assert list(synthetic.columns) == list(spec["columns"]) and len(synthetic) > 1500
    assert '"header_rows": 0' in script.read_text() or "'header_rows': 0" in script.read_text()
    capsys.readouterr()
    for engine in ("pandas", "duckdb"):
        argv = synth_argv(data, domain, no_ledger=True, out=tmp_path / f"{engine}.csv", header_rows=0, seed=4)
        assert cli.main([*argv, "--engine", engine]) == 0
    assert (tmp_path / "duckdb.csv").read_bytes() == (tmp_path / "pandas.csv").read_bytes()
    # named as adult.names lists them: declared and released under those names, the declaration written from them
    names = ",".join(complete_domain("adult")["columns"])
    named = tmp_path / "named_start.json"
    assert cli.main(["declare", str(data), "--names", names, "--out", str(named)]) == 0
    assert list(json.loads(named.read_text())["columns"]) == names.split(",")
    (tmp_path / "adult.json").write_text(json.dumps(complete_domain("adult")))
    assert run_cli_synth(data, tmp_path / "adult.json", no_ledger=True, out=out, names=names) == 0
    assert list(pd.read_csv(out, dtype=str).columns) == names.split(",")
    capsys.readouterr()
    assert cli.main(["declare", str(data), "--names", names.rsplit(",", 1)[0], "--out", str(tmp_path / "x.json")]) == 2
    assert capsys.readouterr().err.strip() == (
        f"error: {data}: 14 column names are given, but its first record has 15 fields; give one name per field, "
        "in the file's order"
    )


def test_a_group_names_a_column_whose_name_holds_a_comma_in_double_quotes(tmp_path, capsys):
    """A survey export names a column by its question ("Income, annual"): ``--group`` is read as a CSV line, so the
    name goes in double quotes (it was split at its comma, an unknown column); the group is measured first."""
    frame = pd.DataFrame({"Income, annual": [10, 20, 30, 40] * 50, "age": [20, 30, 40, 50] * 50, "x": ["a", "b"] * 100})
    frame.to_csv(tmp_path / "t.csv", index=False)
    spec = {
        "columns": {
            "Income, annual": {"type": "integer", "min": 0, "max": 100},
            "age": {"type": "integer", "min": 0, "max": 100},
            "x": {"type": "categorical", "values": ["a", "b"]},
        }
    }
    (tmp_path / "t.json").write_text(json.dumps(spec))
    card = tmp_path / "card.json"
    status = run_cli_synth(
        tmp_path / "t.csv", tmp_path / "t.json", "--group", '"Income, annual", age', out=tmp_path / "o.csv", card=card
    )
    assert status == 0, capsys.readouterr().err
    measured = list(json.loads(card.read_text())["budget_split"])  # the group, before the rounds choose any pair
    assert measured.index("marginal Income, annual x age") < measured.index("choice of marginal, round 1")
