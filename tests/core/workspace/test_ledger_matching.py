"""The ledger finds the records when the file around them changed (dpsynth_core.workspace.matching):
every variant the release reads the same way finds the same lifetime budget, and each case that
docs/workspace.md names as not caught is not."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from dpsynth_core.cli import main
from dpsynth_core.workspace import Workspace


@pytest.fixture
def base(record_forms):
    """The 300 records of ``a.csv`` as the publisher's first file."""
    return pd.read_csv(record_forms / "a.csv", dtype=str, keep_default_na=False)


def _key(ws: Workspace, path) -> str:
    return ws.ledger.dataset_key(ws.ledger.records_key(path))


def _european(number: str) -> str:
    """A number as a spreadsheet in much of Europe saves it: dots between thousands, a decimal comma."""
    whole, _, part = f"{float(number):,.2f}".partition(".")
    return whole.replace(",", ".") + "," + part


def _french(number: str) -> str:
    """A number as French and Nordic spreadsheets save it: a no-break space between thousands, a decimal comma."""
    whole, _, part = f"{float(number):,.2f}".partition(".")
    return whole.replace(",", "\u00a0") + "," + part


VARIANTS = {
    "a French re-save: no-break spaces between thousands, a decimal comma": lambda f: f.assign(
        income=f["income"].map(_french)
    ),
    # a re-save in another spreadsheet's forms, with the two columns that kept their form dropped: the release
    # reads the same values (with the declaration's "written"), so only the column readings can find the ledger
    "a European re-save: dates day first with dots, a decimal comma, two columns dropped": lambda f: f.drop(
        columns=["city", "age"]
    ).assign(
        day=f["day"].str[8:] + "." + f["day"].str[5:7] + "." + f["day"].str[:4], income=f["income"].map(_european)
    ),
    "dates written year first with slashes": lambda f: f.assign(day=f["day"].str.replace("-", "/")),
    "dates with the month's name (Jan 05 2012)": lambda f: f.assign(
        day=pd.to_datetime(f["day"]).dt.strftime("%b %d %Y")
    ),
    "dates with a midnight time": lambda f: f.assign(day=f["day"] + " 00:00:00"),
    "dates in UTC with a T and a Z": lambda f: f.assign(day=f["day"] + "T00:00:00Z"),
    "a declared column removed from the file": lambda f: f.drop(columns=["code"]),
    "an undeclared constant column added": lambda f: f.assign(source="registry"),
    "a column renamed (with its declaration)": lambda f: f.rename(columns={"city": "town"}),
    "pandas' index column": lambda f: f.reset_index(names="Unnamed: 0"),
    "two changes at once, reordered and shuffled": lambda f: f.drop(columns=["code"])
    .rename(columns={"age": "age_years"})
    .sample(frac=1, random_state=5)[["income", "age_years", "day", "city"]],
}


@pytest.mark.parametrize("variant", VARIANTS)
def test_each_variant_of_the_file_finds_the_first_files_ledger(record_forms, base, variant, tmp_path):
    ws = Workspace(tmp_path / "ws")
    first = _key(ws, record_forms / "a.csv")
    changed = tmp_path / "changed.csv"
    VARIANTS[variant](base).to_csv(changed, index=False)
    assert ws.ledger.records_key(changed) != first  # other records: only the columns find the ledger
    assert _key(ws, changed) == first
    assert _key(ws, record_forms / "d.parquet") == first  # and the first file's other forms still do


def test_a_match_met_first_holds_the_ledger_for_the_original_seen_after(record_forms, base, tmp_path):
    ws = Workspace(tmp_path / "ws")
    renamed = tmp_path / "renamed.csv"
    base.rename(columns={"income": "salary"}).to_csv(renamed, index=False)
    first = _key(ws, renamed)
    assert _key(ws, record_forms / "a.csv") == first


NOT_CAUGHT = {
    "one record removed": lambda f: f.iloc[1:],
    "more than half of the columns changed": lambda f: f.assign(
        age=(f["age"].astype(int) + 1).astype(str), income=f["income"] + "1", day="2001-01-01", code="00000"
    ),
    "another table of as many rows sharing one column": lambda f: pd.DataFrame(
        {
            "city": f["city"],
            "score": np.random.default_rng(1).integers(0, 100, len(f)),
            "group": np.random.default_rng(2).choice(list("abc"), len(f)),
        }
    ),
}


@pytest.mark.parametrize("case", NOT_CAUGHT)
def test_the_cases_docs_name_as_not_caught_get_their_own_ledger(record_forms, base, case, tmp_path):
    ws = Workspace(tmp_path / "ws")
    first = _key(ws, record_forms / "a.csv")
    other = tmp_path / "other.csv"
    NOT_CAUGHT[case](base).to_csv(other, index=False)
    assert _key(ws, other) != first


def test_a_lifetime_budget_holds_across_a_renamed_column_and_a_dropped_one(record_forms, base, tmp_path, capsys):
    """End to end: the budget of 1.5 set on the first file refuses a second draw of 1 from the changed file."""
    ws = str(tmp_path / "ws")
    domain = json.loads((record_forms / "d.json").read_text())
    domain["columns"]["town"] = domain["columns"].pop("city")
    del domain["columns"]["code"]
    (tmp_path / "changed.json").write_text(json.dumps(domain))
    base.rename(columns={"city": "town"}).drop(columns=["code"]).to_csv(tmp_path / "changed.csv", index=False)

    def synth(data, declaration):
        out = ["--out", str(tmp_path / "o.csv"), "--workspace", ws, "--method", "cathist", "--epsilon", "1"]
        return main(["synth", str(data), "--domain", str(declaration), *out])

    assert main(["ledger", str(record_forms / "a.csv"), "--workspace", ws, "--limit", "1.5"]) == 0
    assert synth(record_forms / "a.csv", record_forms / "d.json") == 0
    assert synth(tmp_path / "changed.csv", tmp_path / "changed.json") == 2
    assert "lifetime budget of ε = 1.5" in capsys.readouterr().err


def test_naming_a_matched_file_names_the_ledger_it_matched(record_forms, base, tmp_path):
    ws = Workspace(tmp_path / "ws")
    first = _key(ws, record_forms / "a.csv")
    ws.ledger.set_lifetime_budget(first, 2.0)
    renamed = tmp_path / "renamed.csv"
    base.rename(columns={"city": "town"}).to_csv(renamed, index=False)
    named = ws.ledger.dataset_key(ws.ledger.records_key(renamed), "survey")
    assert _key(ws, record_forms / "a.csv") == named == _key(ws, renamed)
    assert ws.ledger.lifetime_budget(named) == 2.0  # the first file's limit followed it


def test_a_title_above_the_header_read_with_its_header_line_is_the_same_records(record_forms, tmp_path):
    """The same records with a title and a note above the header, read with the header's line named: the same
    records, so the same key (not a match by the columns); read from the first line instead, other records. An
    out-of-core engine reads the header's line so too, and a Parquet file, which names its own columns, is refused
    the flag before anything is read."""
    from dpsynth_core.domain import TableDomain
    from dpsynth_core.errors import ParameterError
    from dpsynth_core.release import prepare

    ws = Workspace(tmp_path / "ws")
    titled = tmp_path / "titled.csv"
    titled.write_bytes(b"Registry extract, 2026\nnotes: none\n" + (record_forms / "a.csv").read_bytes())
    plain = ws.ledger.records_key(record_forms / "a.csv")
    assert ws.ledger.records_key(titled, header_row=3) == plain != ws.ledger.records_key(titled)
    domain = TableDomain.from_json({"columns": {"income": {"type": "integer", "min": 0, "max": 10**6}}})
    assert prepare(titled, domain, 1.0, header_row=3, engine="duckdb").header_row == 3
    pd.read_csv(record_forms / "a.csv").to_parquet(tmp_path / "a.parquet")
    with pytest.raises(ParameterError, match="a header row, header lines and column names are chosen for CSV files"):
        prepare(tmp_path / "a.parquet", domain, 1.0, header_row=3, engine="duckdb")
