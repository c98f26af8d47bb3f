"""A Frictionless Table Schema (or a data package holding one) read as a starting declaration: public metadata."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from dpsynth_core import DomainError, TableDomain
from dpsynth_core.cli import main
from dpsynth_core.domain.declaration import parse_declaration
from tests.conftest import ROOT, run_script

#: The Palmer penguins' data dictionary written as a portal publishes one (types, ranges, codes, missing "NA").
PENGUINS_SCHEMA = {
    "name": "penguins",
    "missingValues": ["", "NA"],
    "fields": [
        {"name": "species", "type": "string", "constraints": {"enum": ["Adelie", "Chinstrap", "Gentoo"]}},
        {"name": "island", "type": "string", "constraints": {"enum": ["Biscoe", "Dream", "Torgersen"]}},
        {"name": "bill_length_mm", "type": "number", "constraints": {"minimum": 0, "maximum": 100}},
        {"name": "bill_depth_mm", "type": "number", "constraints": {"minimum": 0, "maximum": 50}},
        {"name": "flipper_length_mm", "type": "integer", "constraints": {"minimum": 0, "maximum": 500}},
        {"name": "body_mass_g", "type": "integer", "constraints": {"minimum": 0, "maximum": 10000}},
        {"name": "sex", "type": "string", "constraints": {"enum": ["female", "male"]}},
        {"name": "year", "type": "year", "constraints": {"minimum": 2007, "maximum": 2009, "required": True}},
    ],
}


def _parsed(spec) -> dict:
    return parse_declaration(json.dumps(spec).encode(), "schema.json")


def test_a_table_schema_is_the_declaration_it_describes():
    spec = _parsed(PENGUINS_SCHEMA)
    own = json.loads((ROOT / "benchmarks" / "datasets" / "penguins.domain.json").read_text())
    assert spec["columns"]["year"] == {**own["columns"]["year"], "missing": False}
    assert {n: c for n, c in spec["columns"].items() if n != "year"} == {
        n: c for n, c in own["columns"].items() if n != "year"
    }
    assert spec["missing_values"] == {"markers": ["", "NA"]} and spec["dataset"] == "penguins"
    assert TableDomain.from_json(spec).problems() == []


def test_every_field_type_and_hint_maps_and_a_bound_it_does_not_give_stays_to_declare():
    schema = {
        "primaryKey": ["id"],
        "fields": [
            {"name": "id", "type": "integer"},
            {"name": "pay", "type": "number", "decimalChar": ",", "constraints": {"minimum": 0}},
            {"name": "n", "type": "integer", "groupChar": ",", "constraints": {"minimum": 0, "maximum": 9}},
            {"name": "ok", "type": "boolean"},
            {"name": "yes", "type": "boolean", "trueValues": ["Y"], "falseValues": ["N"]},
            {"name": "day", "type": "date", "format": "%d/%m/%Y"},
            {
                "name": "at",
                "type": "datetime",
                "format": "%m/%d/%Y %H:%M",
                "constraints": {"minimum": "2019-01-01T00:00:00Z", "maximum": "2019-12-31T23:59:59"},
            },
            {"name": "clock", "type": "time"},
            {"name": "code", "type": "integer", "constraints": {"enum": [1, 2, 9]}},
            {"name": "where", "type": "geopoint"},
            {"name": "month", "type": "yearmonth", "constraints": {"minimum": "2019-01", "maximum": "2020-02"}},
            {"name": "note"},
            {"name": "seen", "type": "string", "format": "%Y-%m-%d"},  # a date kept as a string (datahub's covid-19)
            {"name": "logged", "type": "string", "format": "%d.%m.%Y %H:%M"},
            {"name": "mail", "type": "string", "format": "email"},
            {"name": "FTR", "type": "string", "description": "Full Time Result (H=Home Win, D=Draw, A=Away Win)"},
            {"name": "smoker", "type": "integer", "description": "Smokes: 1 = Yes; 2 = No"},
            {"name": "score", "type": "integer", "description": "0=none, 5=max", "constraints": {"maximum": 5}},
            {"name": "grade", "type": "integer", "description": "A=good, B=bad"},  # letters: not whole-number codes
        ],
    }
    columns = _parsed(schema)["columns"]
    assert columns == {
        "id": {"type": "drop"},
        "pay": {"type": "float", "min": 0, "written": "decimal comma"},
        "n": {"type": "integer", "min": 0, "max": 9, "written": "thousands comma"},
        "ok": {"type": "categorical", "values": ["true", "True", "TRUE", "1", "false", "False", "FALSE", "0"]},
        "yes": {"type": "categorical", "values": ["Y", "N"]},
        "day": {"type": "date", "written": "day first"},
        "at": {
            "type": "datetime",
            "min": "2019-01-01 00:00:00",
            "max": "2019-12-31 23:59:59",
            "written": "month first",
        },
        "clock": {"type": "time"},
        "code": {"type": "categorical", "values": [1, 2, 9]},
        "where": {"type": "text"},
        "month": {"type": "date", "written": "year and month", "min": "2019-01-01", "max": "2020-02-29"},
        "note": {"type": "text"},
        "seen": {"type": "date"},
        "logged": {"type": "datetime", "written": "day first"},
        "mail": {"type": "text"},
        "FTR": {
            "type": "categorical",
            "values": ["H", "D", "A"],
            "labels": {"H": "Home Win", "D": "Draw", "A": "Away Win"},
        },
        "smoker": {"type": "categorical", "values": ["1", "2"], "labels": {"1": "Yes", "2": "No"}},
        "score": {"type": "integer", "max": 5},  # bounded: a scale, whatever its description says
        "grade": {"type": "integer"},
    }
    problems = " ".join(TableDomain.from_json(_parsed(schema)).problems())
    assert "'pay': no public maximum" in problems and "'day'" in problems and "'note'" in problems


def test_a_data_package_with_one_schema_is_read_through_it_and_a_declaration_stays_itself():
    package = {"name": "pkg", "resources": [{"name": "penguins", "path": "p.csv", "schema": PENGUINS_SCHEMA}]}
    assert _parsed(package) == _parsed(PENGUINS_SCHEMA)
    own = {"columns": {"fields": {"type": "drop"}}}  # a declaration whose column is named "fields"
    assert _parsed(own) == own


#: A data package of three tables, as datahub's S&P 500 package is laid out: a list, the list with figures, a view.
PACKAGE = {
    "name": "companies",
    "resources": [
        {"name": "view", "path": "data/view.csv", "schema": {"fields": [{"name": "company"}, {"name": "pe"}]}},
        {"name": "list", "path": "data/list.csv", "schema": {"fields": [{"name": "Symbol"}, {"name": "Sector"}]}},
        {
            "name": "figures",
            "path": "data/figures.csv",
            "schema": {
                "fields": [
                    {"name": "Symbol"},
                    {"name": "Sector", "constraints": {"enum": ["Energy", "Utilities"]}},
                    {"name": "Price", "type": "number", "constraints": {"minimum": 0, "maximum": 5000}},
                ]
            },
        },
    ],
}


def _package(columns) -> dict:
    return parse_declaration(json.dumps(PACKAGE).encode(), "datapackage.json", columns)


def test_a_data_package_of_several_tables_is_read_through_the_one_whose_fields_name_the_columns():
    figures = _package(["Symbol", "Sector", "Price"])
    assert figures["columns"]["Price"] == {"type": "float", "min": 0, "max": 5000}
    assert figures["columns"]["Sector"] == {"type": "categorical", "values": ["Energy", "Utilities"]}
    assert list(_package(["company", "pe", "other"])["columns"]) == ["company", "pe"]
    # both the list and the figures name Symbol and Sector: the list, which has no field the table lacks
    assert list(_package(["Symbol", "Sector"])["columns"]) == ["Symbol", "Sector"]
    with pytest.raises(DomainError, match=r"^datapackage.json describes 3 tables \(view, list, figures\): none"):
        _package(["id", "when"])
    with pytest.raises(DomainError, match="load it as the table's data dictionary"):  # --domain: no columns to choose
        _package(None)
    twins = {"resources": [{"name": "a", "schema": PENGUINS_SCHEMA}, {"name": "b", "schema": PENGUINS_SCHEMA}]}
    assert parse_declaration(json.dumps(twins).encode(), "schema.json", ["species"]) == _parsed(PENGUINS_SCHEMA)
    unlike = {"fields": [{"name": "species"}, {"name": "island", "type": "integer"}]}
    twins["resources"][1]["schema"] = {**PENGUINS_SCHEMA, "fields": unlike["fields"] + PENGUINS_SCHEMA["fields"][2:]}
    with pytest.raises(DomainError, match=r"2 tables \(a, b\): which one describes this table cannot be told"):
        parse_declaration(json.dumps(twins).encode(), "p.json", ["species", "island"])
    apart = {"resources": [{"name": "a", "path": "a.csv", "schema": "schemas/a.json"}]}
    with pytest.raises(DomainError, match=r"in a separate file \(schemas/a.json\): load that file"):
        parse_declaration(json.dumps(apart).encode(), "datapackage.json", ["x"])


def test_declare_starts_from_the_data_packages_table_of_the_file(tmp_path, capsys):
    (tmp_path / "datapackage.json").write_text(json.dumps(PACKAGE))
    data = tmp_path / "figures.csv"
    data.write_text("Symbol,Sector,Price\nAAA,Energy,12.5\n")
    out = tmp_path / "figures.json"
    argv = ["declare", str(data), "--dictionary", str(tmp_path / "datapackage.json"), "--out", str(out)]
    assert main(argv) == 0
    assert json.loads(out.read_text())["columns"]["Price"] == {"type": "float", "min": 0, "max": 5000}
    assert main(["check-declaration", str(data), "--domain", str(tmp_path / "datapackage.json")]) == 2
    assert "describes 3 tables (view, list, figures)" in capsys.readouterr().err


def test_the_command_line_releases_from_a_table_schema(tmp_path, capsys):
    path = tmp_path / "penguins.schema.json"
    path.write_text(json.dumps(PENGUINS_SCHEMA))
    data = ROOT / "benchmarks" / "datasets" / "penguins.csv"
    assert main(["check-declaration", str(data), "--domain", str(path)]) == 0
    said = capsys.readouterr().out.strip()  # a schema's numbers give no decimal places: the check tells the file's
    assert said.endswith("every column of penguins.csv fits its declaration (8 kept)")
    assert "Column 'bill_length_mm': all 342 of its numbers have at most 1 decimal place." in said
    out = tmp_path / "synthetic.csv"
    argv = ["synth", str(data), "--domain", str(path), "--epsilon", "1", "--out", str(out), "--no-ledger"]
    assert main(argv) == 0
    synthetic = pd.read_csv(out, keep_default_na=False)
    assert list(synthetic.columns) == [f["name"] for f in PENGUINS_SCHEMA["fields"]]
    assert set(synthetic["species"]) <= {"Adelie", "Chinstrap", "Gentoo"} and (synthetic["year"] != "").all()


def test_a_file_read_without_its_header_line_is_told_the_names_its_package_or_declaration_gives(tmp_path, capsys):
    """A data package's table kept without a header line (its dialect's ``"header": false``), read so: its columns
    are column_1, column_2, ..., which no field names. The package's one table with as many fields is the one read, and
    it, a single schema and a declaration of as many columns each say to give their names to the file's fields, in
    order, printed ready for ``--names``; the file read under those names then takes the package's schema."""
    data = tmp_path / "figures.csv"
    data.write_text("AAA,Energy,12.5\nBBB,Utilities,40\n")
    package = tmp_path / "datapackage.json"
    package.write_text(json.dumps(PACKAGE))
    said = "if they are the file's fields in order, give them as its column names"
    numbered = ["column_1", "column_2", "column_3"]
    assert list(parse_declaration(package.read_bytes(), "datapackage.json", numbered)["columns"]) == [
        "Symbol",
        "Sector",
        "Price",
    ]  # the package's one table of three fields
    with pytest.raises(DomainError, match="none of them names this table's columns"):
        parse_declaration(package.read_bytes(), "datapackage.json", numbered[:1])  # one field: no table has one
    (tmp_path / "schema.json").write_text(json.dumps(PACKAGE["resources"][2]["schema"]))
    for dictionary in ("schema.json", "datapackage.json"):
        argv = ["declare", str(data), "--header-rows", "0", "--dictionary", str(tmp_path / dictionary), "--out"]
        assert main([*argv, str(tmp_path / f"{dictionary}.start.json")]) == 0
        err = capsys.readouterr().err
        assert "note: the table was read without a header line" in err and err.count("\n") == 2, err
        names = err.split("--names on the command line): ")[1].splitlines()[0]
        assert names == "Symbol,Sector,Price" and "does not hold" not in err
    assert (
        main(["declare", str(data), "--names", names, "--dictionary", str(package), "--out", str(tmp_path / "g.json")])
        == 0
    )
    assert json.loads((tmp_path / "g.json").read_text())["columns"]["Price"] == {"type": "float", "min": 0, "max": 5000}
    domain = TableDomain.from_json(json.loads((tmp_path / "g.json").read_text()))
    with pytest.raises(DomainError, match=f"the domain declares column.*{said}.*: Symbol,Sector,Price$"):
        domain.check_matches(["column_1", "column_2", "column_3"])
    with pytest.raises(DomainError) as other:  # two columns: not the file's fields
        domain.check_matches(["column_1", "column_2"])
    assert said not in str(other.value)


def penguins_package_file(folder) -> tuple:
    """The penguins table as a Central European portal might keep it: semicolons, no header line, Windows-1250 (a name
    with a Polish letter, which the reader's automatic choice would read as Windows-1252: "Torgersên"), and its data
    package saying so in its dialect and encoding. Returns the file and the package."""
    frame = pd.read_csv(ROOT / "benchmarks" / "datasets" / "penguins.csv", dtype=str, keep_default_na=False)
    frame.loc[0, "island"] = "Torgersęn"
    data = folder / "penguins.csv"
    frame.to_csv(data, sep=";", header=False, index=False, encoding="windows-1250")
    schema = json.loads(json.dumps(PENGUINS_SCHEMA))
    schema["fields"][1]["constraints"]["enum"].append("Torgersęn")
    resource = {"name": "penguins", "path": "penguins.csv", "encoding": "windows-1250", "schema": schema}
    package = folder / "datapackage.json"
    package.write_text(json.dumps({"resources": [{**resource, "dialect": {"delimiter": ";", "header": False}}]}))
    return data, package


def test_a_data_packages_dialect_and_encoding_are_how_the_command_line_reads_its_file(tmp_path, capsys):
    """The package's dialect (a semicolon, no header line) and encoding go in the declaration's notes; check-declaration,
    declare, check-persons and synth read the file so (the header named by the package's fields) and say so; a flag
    given on the command line wins; the rerun script reads the package as its declaration and draws again."""
    data, package = penguins_package_file(tmp_path)
    notes = parse_declaration(package.read_bytes(), "datapackage.json")["notes"]
    names = [f["name"] for f in PENGUINS_SCHEMA["fields"]]
    assert notes == {"reading": {"delimiter": ";", "header_rows": 0, "names": names, "encoding": "windows-1250"}}
    told = "penguins.csv read as its documentation describes it: delimiter ';', no header line (its 8 fields named"
    assert main(["check-declaration", str(data), "--domain", str(package)]) == 0
    said = capsys.readouterr()
    assert told in said.err and "every column of penguins.csv fits its declaration (8 kept)" in said.out
    assert main(["declare", str(data), "--dictionary", str(package), "--out", str(tmp_path / "start.json")]) == 0
    started = json.loads((tmp_path / "start.json").read_text())
    assert list(started["columns"]) == names and started["notes"] == notes and told in capsys.readouterr().err
    out, script = tmp_path / "synthetic.csv", tmp_path / "rerun.py"
    argv = ["synth", str(data), "--domain", str(package), "--epsilon", "1", "--out", str(out)]
    assert main([*argv, "--workspace", str(tmp_path / "ws"), "--rerun-script", str(script)]) == 0
    assert told in capsys.readouterr().err
    synthetic = pd.read_csv(out, keep_default_na=False)
    islands = {"Biscoe", "Dream", "Torgersen", "Torgersęn", ""}  # "" a missing cell, which the release may hold
    assert list(synthetic.columns) == names and set(synthetic["island"]) <= islands
    done = run_script(script, "--workspace", tmp_path / "ws", "--out", tmp_path / "again.csv", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.startswith("release #2: "), done.stderr
    assert list(pd.read_csv(tmp_path / "again.csv").columns) == names
    from dpsynth_core import synthesize  # the library reads it so too

    assert list(synthesize(data, package, 1.0, random_state=1).data.columns) == names
    assert main(["compare", str(data), str(out), "--domain", str(package), "--json", str(tmp_path / "c.json")]) == 0
    assert told in capsys.readouterr().err  # the real table read as synth read it
    # the publisher's own flag wins: read with a comma, the file is one column the package does not declare
    assert main(["check-declaration", str(data), "--domain", str(package), "--delimiter", ","]) == 2
    err = capsys.readouterr().err
    assert "read as its documentation describes it: no header line" in err and "delimiter ';'" not in err


def test_a_utf8_file_whose_package_labels_it_windows_1250_is_read_as_utf8(tmp_path, capsys):
    """Portals mislabel files: the penguins package says Windows-1250, the file was saved as UTF-8 ("Torgersęn" as
    two UTF-8 bytes, which Windows-1250 would read as "TorgersÄ™n", a value the package does not declare). Each line
    that is valid UTF-8 is read so, and the label reads the others; the note says so."""
    data, package = penguins_package_file(tmp_path)
    data.write_bytes(data.read_bytes().decode("cp1250").encode("utf-8"))
    assert main(["check-declaration", str(data), "--domain", str(package)]) == 0
    said = capsys.readouterr()
    assert "each line that is not UTF-8 as Windows-1250" in said.err
    assert "every column of penguins.csv fits its declaration (8 kept)" in said.out
    # chosen outright, the label garbles it: the island no longer fits
    assert main(["check-declaration", str(data), "--domain", str(package), "--encoding", "cp1250"]) == 0
    assert "'island': 1 of its 344 filled cells is none of its declared values" in capsys.readouterr().out
