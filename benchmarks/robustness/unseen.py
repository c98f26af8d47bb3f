"""Unseen tables through the three doors: tables of a checkout of Rdatasets that nobody tuned on, declared as a
non-expert would, released through the library, the command line and the app. Not a test: a hunt for crashes,
refusals longer than one line, released values outside the declaration, and slow releases.

    git clone --depth 1 https://github.com/vincentarelbundock/Rdatasets /tmp/Rdatasets
    python -m benchmarks.robustness.unseen --root /tmp/Rdatasets --seed 69 --count 40                  # 7 methods: 7 min
    python -m benchmarks.robustness.unseen --root /tmp/Rdatasets --doors cli --seed 70 --count 25      # 4 min
    python -m benchmarks.robustness.unseen --root /tmp/Rdatasets --doors app --seed 71 --count 40      # 3 min
    python -m benchmarks.robustness.unseen --root /tmp/Rdatasets --doors library --rows 5000 60000 --seed 83 --count 20
    python -m benchmarks.robustness.unseen --root /tmp/Rdatasets --columns 41 1000 --seed 99 --count 20   # wide tables
    python -m benchmarks.robustness.unseen --root /tmp/Rdatasets --doors cli --engines spark --seed 111 --count 12
    python -m benchmarks.robustness.unseen --root /tmp/Rdatasets --mistakes 0.4 --seed 114 --count 30  # wrong declarations
    python -m benchmarks.robustness.unseen --root /tmp/Rdatasets --doors files --seed 134 --count 200  # 5 formats: 2 min

The tables are drawn at ``--seed`` from every CSV of the checkout with 30 to 60,000 rows and 3 to 40 columns
(``--rows``, ``--columns``; a new seed draws tables nobody has looked at). Each is declared by
:func:`declare_loosely`, which stands in for a publisher who read the documentation and declared generously, as the
app invites: ranges rounded outward from the data (:func:`benchmarks.quality.rdatasets.documented_range`), three in
ten of them ten times wider; a small whole-number column half the time as codes, some with a code no record holds;
text of at most 30 values as categories, some with an "Unknown" no record holds; ISO dates by decades; any other text
as free text with a generator chosen at random (some of them too large to declare, which must be refused in one
line); ``missing`` sometimes declared, and R's ``NA`` sometimes declared a missing marker. The harness reads the
data to write these (no publisher's tool does). With ``--mistakes RATE`` each declared column is then made wrong with
that chance, as a publisher gets it wrong (:mod:`benchmarks.robustness.mistakes`).

The doors, each release at ``--epsilon`` (1 unless told; 0.05 and 20 reach the noise's two ends):

* ``library``: :func:`dpsynth_core.synthesize` on the table read from its CSV text, every method (``--methods``),
  half the time on a table with a column whose values repeat per person (:func:`person_column`, at most 3 rows each);
  every released value is checked against the declaration (:func:`outside_declaration`: numbers in range, whole
  numbers whole, categories declared, dates in range, no missing cell where none is declared);
* ``cli``: ``python -m dpsynth_core`` as a publisher runs it on the table's CSV file (``NA`` as R writes it):
  ``declare``, ``check-declaration``, half the time on a table with a column whose values repeat (a panel's firm, a
  trial's subject) ``check-persons`` on it, then ``synth`` (a method at random, in memory or through DuckDB, or as
  ``--cli-methods`` and ``--engines`` say, into a
  workspace's ledger, with its card, HTML card and rerun script; per person, bounded as the check suggests, where
  there is one), ``report`` (epsilon 0.1, recorded), ``compare``, ``ledger``, and every third table its rerun
  script; a crash is a traceback or an exit status other than 0 and 2, and a refusal must say ``error:`` once;
* ``files`` (only when asked for): the table written as a workbook (.xlsx by pandas, .xls by xlwt, .ods written
  here), a Parquet, a Stata, an SPSS and a SAS transport file by the formats' own writers (its dates as the format's
  dates, its true-or-false columns as the packages' 0 and 1), read back by the library and encoded over the
  declaration: ``differs`` where a column's codes are not those of the same records read from their CSV text
  (:func:`files_door`);
* ``app``: Streamlit's ``AppTest`` on ``app.py``: the table uploaded as a CSV, a workbook (.xlsx, .xls or .ods), a
  Parquet, a Stata, an SPSS or a SAS transport file, the declaration loaded on the Domain page (and kept as written;
  per person as in the library's, half the time), the Privacy page (and its check of rows per person, where there is
  a person), the Preview's draw (a method at random, and the method and epsilon the release was drawn with read back)
  and its four tabs, and the Release page with its downloads.

Results: one JSON line per run (door, table, method, epsilon, status, message, seconds, values outside) in
``benchmarks/results/unseen.jsonl``, and a summary per door. A status is ``ok``, ``refused`` (in one line),
``crash``, ``differs`` (the files door), or ``changed``: the app kept a loaded declaration otherwise than it was
written; a library or
command-line run that printed a Python warning (which a publisher's terminal shows) is counted ``warned``, its
message holding the warnings. Figures in
docs/benchmarks/robustness.md.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.common import ROOT, results_file
from benchmarks.quality.rdatasets import documented_range, shuffled_files, without_row_names
from benchmarks.robustness.mistakes import seeded_mistakes
from benchmarks.robustness.sheets import ods_bytes, xls_bytes

METHODS = ("marginals", "cathist", "copula", "bayesnet", "dirichlet", "deniability", "microagg")
#: The free-text generators a publisher may pick for a text column with many values.
GENERATORS = ("letters", "any", "word_pair", "english_word")
#: The command-line door's draws of a method and of an engine (``--cli-methods``, ``--engines``).
CLI_METHODS = ("marginals", "marginals", "cathist", "bayesnet", "copula")
CLI_ENGINES = ("pandas", "pandas", "duckdb")
#: Rows and columns of the tables drawn.
ROWS = (30, 60_000)
COLUMNS = (3, 40)
#: A release slower than this is listed.
SLOW_SECONDS = 20.0


def declare_loosely(frame: pd.DataFrame, rng: random.Random) -> dict:
    """A non-expert's declaration of ``frame`` (the module docstring says what it does; ``rng`` its choices)."""
    columns = {}
    for name in frame.columns:
        values = frame[name]
        present = values.dropna()
        if len(present) == 0:
            columns[name] = {"type": "drop"}
            continue
        if pd.api.types.is_bool_dtype(values):
            columns[name] = {"type": "categorical", "values": ["False", "True"]}
        elif pd.api.types.is_numeric_dtype(values):
            columns[name] = _number(present.astype(float), rng)
        else:
            columns[name] = _text(present.astype(str), rng)
        if columns[name]["type"] in ("integer", "float") and rng.random() < 0.3:
            columns[name]["missing"] = bool(values.isna().any())
    out = {"columns": columns}
    if rng.random() < 0.5:
        out["missing_values"] = {"markers": ["NA"]}
    return out


def _number(present: pd.Series, rng: random.Random) -> dict:
    if not np.isfinite(present).all():
        return {"type": "drop"}
    whole = bool((present == present.round()).all())
    low, high = documented_range(float(present.min()), float(present.max()))
    if rng.random() < 0.3:
        high = low + 10 * (high - low)
    if whole and present.nunique() <= 6 and rng.random() < 0.5:
        codes = sorted(int(v) for v in present.unique())
        return {"type": "categorical", "values": codes + ([codes[-1] + 1] if rng.random() < 0.3 else [])}
    if whole:
        return {"type": "integer", "min": int(low), "max": int(high)}
    column = {"type": "float", "min": float(low), "max": float(high)}
    if rng.random() < 0.3:
        column["decimals"] = 2
    return column


def _text(present: pd.Series, rng: random.Random) -> dict:
    if present.nunique() <= 30:  # as the documentation would list them: without a file's padding, blanks or repeats
        values = sorted({v.strip() for v in present.unique()} - {""})
        if values:
            unknown = ["Unknown"] if rng.random() < 0.3 and "Unknown" not in values else []
            return {"type": "categorical", "values": values + unknown}
    dates = pd.to_datetime(present, errors="coerce", format="ISO8601")
    if dates.notna().mean() > 0.95 and dates.min().year >= 1700:
        first, last = int(dates.min().year) // 10 * 10, (int(dates.max().year) // 10 + 1) * 10
        return {"type": "date", "min": f"{first}-01-01", "max": f"{min(last, 2200)}-12-31"}
    generator = rng.choice(GENERATORS)
    if generator == "letters":
        alphabet = "".join(sorted(set("".join(present.head(200)))))[:80] or "abc"
        return {
            "type": "text",
            "generator": "letters",
            "max_length": int(min(60, present.str.len().max() + 5)),
            "alphabet": alphabet,
        }
    if generator == "any":
        return {"type": "text", "generator": "any", "size": 10 ** rng.randint(2, 5)}
    return {"type": "text", "generator": generator}


#: The kinds whose released values the check reads (free text is the generator's, whatever the real cells were).
CHECKED_KINDS = ("integer", "float", "categorical", "date")


def outside_declaration(data: pd.DataFrame, spec: dict) -> list[str]:
    """What of a released ``data`` lies outside its declaration ``spec``, by the library's own public rule
    (:func:`dpsynth_core.data.encoding.encode_column`: the cells it would clamp, round or read as missing or
    ``other``), and missing cells where none are declared: one line per finding (empty: nothing)."""
    from dpsynth_core.data.encoding import encode_column, missing_cells
    from dpsynth_core.domain import TableDomain

    domain = TableDomain.from_json(spec)
    markers = ("", *domain.missing_markers)
    found = []
    for name, column in domain.kept.items():
        if column.kind not in CHECKED_KINDS:
            continue
        if name not in data.columns:
            found.append(f"{name}: column missing")
            continue
        cells = data[name].astype("string")
        changed = encode_column(replace(column, missing=True), cells, markers).out_of_domain
        if changed:
            found.append(f"{name}: {changed:,} cells the declaration's rule would change (outside it)")
        if not column.missing and missing_cells(cells, markers):
            found.append(f"{name}: missing cells where none are declared")
    return found


def tables(root: Path, seed: int, count: int, rows: tuple = ROWS, columns: tuple = COLUMNS):
    """``count`` tables of the checkout ``root`` drawn at ``seed``, of ``rows`` rows and ``columns`` columns (fewest,
    most): (``PACKAGE/NAME``, frame, declaration)."""
    rng = random.Random(seed)
    drawn = 0
    for path in shuffled_files(root, seed):
        if drawn >= count:
            return
        try:
            frame = without_row_names(pd.read_csv(path, low_memory=False, nrows=rows[1] + 1))
        except (ValueError, UnicodeDecodeError, pd.errors.ParserError):
            continue
        if not (rows[0] <= len(frame) <= rows[1] and columns[0] <= frame.shape[1] <= columns[1]):
            continue
        spec = declare_loosely(frame, random.Random(rng.randrange(1 << 30)))
        if sum(c["type"] != "drop" for c in spec["columns"].values()) < 2:
            continue
        drawn += 1
        yield f"{path.parent.name}/{path.stem}", frame, spec


def uploaded_cells(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` as the app and the command line read its CSV file: every cell text, a missing one written ``NA``
    as R writes it (the file the command-line door writes, the text the library door reads)."""
    return pd.read_csv(io.StringIO(frame.to_csv(index=False, na_rep="NA")), dtype=str, keep_default_na=False)


def library_door(
    name: str, frame: pd.DataFrame, spec: dict, methods, rng: random.Random, epsilon: float = 1.0
) -> list[dict]:
    """Every method of ``methods`` on the table read from its CSV text, as an upload is."""
    from dpsynth_core import synthesize
    from dpsynth_core.errors import DPSynthError

    person = person_column(frame, rng)
    spec = per_person(spec, person) if person is not None else spec
    cells, out = uploaded_cells(frame), []  # read once; each method gets its own copy
    for method in methods:
        start, outside, message = time.perf_counter(), [], ""
        try:
            with warnings.catch_warnings(record=True) as caught:  # a warning is printed to a publisher's terminal
                warnings.simplefilter("always")
                release = synthesize(cells.copy(), spec, epsilon, method=method, random_state=rng.randrange(1 << 30))
            status, outside = "ok", outside_declaration(release.data, spec)
            message = "; ".join(sorted({f"warning: {w.category.__name__}: {w.message}" for w in caught}))
        except DPSynthError as refused:
            status, message = "refused", str(refused)
        except Exception as error:  # noqa: BLE001 - what the hunt is for
            status, message = "crash", f"{type(error).__name__}: {error}"
        what = method + (":person" if person is not None else "")
        out.append(_record("library", name, frame, what, status, message, start, outside))
    return out


def per_person(spec: dict, column: str, max_rows: int = 3) -> dict:
    """``spec`` released per person identified by ``column`` (declared dropped: never released), at most
    ``max_rows`` rows each."""
    columns = {**spec["columns"], column: {"type": "drop"}}
    return {**spec, "columns": columns, "person": {"column": column, "max_rows": max_rows}}


def cli_door(
    folder: Path,
    name: str,
    frame: pd.DataFrame,
    spec: dict,
    index: int,
    rng: random.Random,
    epsilon: float = 1.0,
    methods: tuple = CLI_METHODS,
    engines: tuple = CLI_ENGINES,
) -> list[dict]:
    """The command line's commands on the table's CSV file, as a publisher runs them (the module docstring): a
    method drawn from ``methods`` through an engine drawn from ``engines`` (a name twice is drawn twice as often)."""
    stem = f"t{index}"
    frame.to_csv(folder / f"{stem}.csv", index=False, na_rep="NA")
    method = rng.choice(methods)
    engine = rng.choice(engines)
    person = person_column(frame, rng)
    if person is not None:  # the person's identifier is never released: declared dropped
        spec = {**spec, "columns": {**spec["columns"], person: {"type": "drop"}}}  # the bound: from its check
    (folder / f"{stem}.json").write_text(json.dumps(spec))
    data, domain = [f"{stem}.csv"], ["--domain", f"{stem}.json"]
    out = []

    def run(step: str, argv: list, what: str | None = None) -> str:
        start = time.perf_counter()
        command = [sys.executable, *argv] if step == "rerun" else [sys.executable, "-m", "dpsynth_core", *argv]
        done = subprocess.run(command, capture_output=True, text=True, cwd=folder, env=_library_env())
        status, message = cli_outcome(done.returncode, done.stderr)
        outside = []
        if step == "synth" and status == "ok":
            released = pd.read_csv(folder / f"{stem}.syn.csv", dtype=str, keep_default_na=False)
            outside = outside_declaration(released, spec)
        out.append(_record("cli", name, frame, what or step, status, message, start, outside))
        return status

    run("declare", ["declare", *data, "--out", f"{stem}.start.json"])
    run("check-declaration", ["check-declaration", *data, *domain])
    unit = []
    if person is not None:
        checked = [
            "--person",
            person,
            *f"--epsilon 0.1 --workspace ws --dataset {stem} --out {stem}.persons.json".split(),
        ]
        if run("check-persons", ["check-persons", *data, *domain, *checked]) == "ok":
            unit = ["--person", person, "--max-rows-per-person", str(_bound(folder / f"{stem}.persons.json"))]
            unit += ["--person-check", f"{stem}.persons.json"]
    stored = f"--workspace ws --dataset {stem} --out {stem}.syn.csv --card {stem}.card.json --engine {engine}"
    written = f"--card-html {stem}.card.html --rerun-script {stem}.rerun.py"
    synth = [
        "synth",
        *data,
        *domain,
        "--method",
        method,
        "--epsilon",
        str(epsilon),
        *stored.split(),
        *written.split(),
        *unit,
    ]
    what = f"synth:{method}:{engine}" + (":person" if unit else "")
    if run("synth", synth, what) != "ok":
        return out
    report = f"--workspace ws --epsilon 0.1 --out {stem}.report.html --card {stem}.card.json"
    run("report", ["report", *data, f"{stem}.syn.csv", *domain, *report.split()])
    run("compare", ["compare", *data, f"{stem}.syn.csv", *domain, "--json", f"{stem}.compare.json"])
    run("ledger", ["ledger", "--workspace", "ws"])
    if index % 3 == 0:  # the rerun script the card came with, run as an auditor would
        run("rerun", [f"{stem}.rerun.py", *data, *f"--declaration {stem}.json --out {stem}.again.csv".split()])
    return out


#: A column is a person's identifier to the command-line door when its filled cells repeat this many times on
#: average (a panel's firm, a trial's subject, a player's postseason games), with at least 5 of them.
PERSON_REPEATS = (1.5, 50.0)


def person_column(frame: pd.DataFrame, rng: random.Random) -> str | None:
    """Half the time, a column whose values repeat as a person's rows do (:data:`PERSON_REPEATS`), chosen at
    random among them; else (or when none does) None."""
    found = []
    for column in frame.columns:
        filled = frame[column].dropna()
        distinct = filled.nunique()
        if distinct >= 5 and PERSON_REPEATS[0] <= len(filled) / distinct <= PERSON_REPEATS[1]:
            found.append(column)
    return rng.choice(found) if found and rng.random() < 0.5 else None


def _bound(check: Path) -> int:
    """The bound the check suggests (rows per person keeping 90% of the rows), else 3 where it cannot tell."""
    from dpsynth_core.constraints import PERSON_CHECK_KEEP
    from dpsynth_core.privacy.persons import RowsPerPerson

    counts = RowsPerPerson.from_dict(json.loads(check.read_text())["check"])
    return counts.suggested(PERSON_CHECK_KEEP) if counts.tells_rows() else 3


def cli_outcome(returncode: int, stderr: str) -> tuple[str, str]:
    """A command's status and message: ``crash`` for a traceback, an exit status other than 0 (done) and 2 (refused),
    or a refusal that does not say ``error:`` (or a run that does); else ``refused`` with its ``error:`` line, or
    ``ok``."""
    errors = [line for line in stderr.splitlines() if line.startswith("error:")]
    if "Traceback" in stderr or returncode not in (0, 2) or (returncode == 2) != bool(errors):
        return "crash", stderr[-2000:]
    warned = [f"warning: {line.strip()}" for line in stderr.splitlines() if "Warning: " in line]  # Python's warnings
    return ("refused" if returncode == 2 else "ok"), " ".join(errors + warned)


def _library_env() -> dict:
    """The environment a command runs in: this checkout's library importable from any folder."""
    return {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}


#: The upload kinds of the app door, and how a table is written as each.
UPLOADS = ("csv", "csv", "xlsx", "xls", "ods", "parquet", "dta", "sav", "xpt")
#: The statistical packages' files, and the pyreadstat writer of each.
PACKAGE_WRITERS = {"dta": "write_dta", "sav": "write_sav", "xpt": "write_xport"}


def _upload_bytes(frame: pd.DataFrame, kind: str) -> bytes:
    if kind == "csv":
        return frame.to_csv(index=False, na_rep="NA").encode()
    if kind in SHEET_WRITERS:
        return SHEET_WRITERS[kind](frame)
    buffer = io.BytesIO()
    if kind == "xlsx":
        frame.to_excel(buffer, index=False)
    elif kind == "parquet":
        frame.to_parquet(buffer, index=False)
    else:
        import pyreadstat

        typed = frame.copy()
        for column in typed.columns:
            if typed[column].dtype == object:
                typed[column] = typed[column].astype(str).where(typed[column].notna(), "")
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / f"table.{kind}"
            extra = {"file_format_version": 8} if kind == "xpt" else {}  # version 8: names up to 32 characters
            getattr(pyreadstat, PACKAGE_WRITERS[kind])(typed, str(path), **extra)
            return path.read_bytes()
    return buffer.getvalue()


#: The spreadsheets written by :mod:`benchmarks.robustness.sheets` rather than by pandas.
SHEET_WRITERS = {"xls": xls_bytes, "ods": ods_bytes}


def app_door(name: str, frame: pd.DataFrame, spec: dict, rng: random.Random, epsilon: float = 1.0) -> list[dict]:
    """The app's walk in ``AppTest`` (the module docstring): upload, declaration, Privacy, Preview, Release."""
    from streamlit.testing.v1 import AppTest

    kind = rng.choice(UPLOADS)
    method = rng.choice(("marginals", "marginals", "cathist", "bayesnet", "copula", "dirichlet"))
    person = person_column(frame, rng)
    spec = per_person(spec, person) if person is not None else spec
    if kind in PACKAGE_WRITERS:  # the packages' names: letters, digits and underscores, a letter first, at most 32
        renamed = package_names(frame.columns)
        frame = frame.rename(columns=renamed)
        spec = {**spec, "columns": {renamed[c]: d for c, d in spec["columns"].items()}}
        if person is not None:
            spec["person"] = {**spec["person"], "column": renamed[person]}
    try:  # written before the clock starts: a workbook of 35,746 rows takes openpyxl 9 s to write
        raw = _upload_bytes(frame, kind)
    except Exception:  # noqa: BLE001 - the writer's limit (a control character in a workbook), not the app's
        kind, raw = "csv", _upload_bytes(frame, "csv")
    start, stage, message, status, checked = time.perf_counter(), "upload", "", "ok", ""
    try:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
        at = _page(at, "app_pages/1_Data.py")
        at.radio(key="data_source_choice").set_value("My own file").run()
        at.file_uploader(key="data_upload").upload(f"table.{kind}", raw, "text/csv").run()
        stage = "declaration"
        at = _page(at, "app_pages/2_Domain.py")
        at.file_uploader(key="domain_load").upload("declaration.json", json.dumps(spec).encode(), "application/json")
        at = _ran(at.run())
        refusal = [e.value for e in at.error if e.value.startswith("That declaration cannot be used")]
        version = at.session_state["declaration_version"]  # every column's editor open (drawn), as a publisher
        for index in range(min(len(frame.columns), 50)):  # checking each would open it (the page's first 50)
            at.session_state[f"domain_v{version}_{index}_open"] = True
        at = _ran(at.run())
        kept = at.session_state["declaration"]["columns"]
        changed = [c for c, d in spec["columns"].items() if _as_kept(kept.get(c) or {}) != _as_kept(d)]
        if refusal:  # a declaration the schema refuses (a range beyond 10^15), said in one line
            status, message = "refused", refusal[0]
        elif changed:  # the page kept the declaration as loaded, or said why not
            status, message = "changed", f"the loaded declaration changed on the Domain page: columns {changed[:5]}"
        stage = "privacy"
        at.session_state["epsilon"] = epsilon  # the slider starts there (one of its stops), the method's radio at it
        at.session_state["method"] = method
        at = _page(at, "app_pages/3_Privacy.py")
        if person is not None and any(b.key == "privacy_person_check" for b in at.button):
            stage = "rows per person"  # the Privacy page's check, on its own budget
            at = _ran(at.button(key="privacy_person_check").click().run())
            checked = "; rows per person checked"
        stage = "preview"
        at = _page(at, "app_pages/4_Preview.py")
        if status != "ok":
            pass
        elif not any(b.key == "preview_generate" for b in at.button):
            status, message = "refused", " ".join(e.value for e in at.error)
        else:
            at = _ran(at.button(key="preview_generate").click().run())
            if not any("Synthetic table ready" in s.value for s in at.success):
                status, message = "refused", " ".join(e.value for e in at.error)
            else:
                for tab in ("Fidelity", "Marginal distances", "Distinguishing game", "One column"):
                    stage = tab
                    at.session_state["preview_tab"] = tab
                    at = _ran(at.run())
                for column in at.selectbox(key="preview_column").options[:ONE_COLUMN_CHARTS]:  # each kind's charts
                    stage = f"One column: {column}"
                    at = _ran(at.selectbox(key="preview_column").set_value(column).run())
                drawn = at.session_state["releases"][at.session_state["current_release"]]["settings"]
                stage = "release"
                at = _page(at, "app_pages/5_Release.py")
                message = (
                    f"{len(at.download_button)} downloads, {drawn['method']} at epsilon {drawn['epsilon']:g}{checked}"
                )
    except Exception as error:  # noqa: BLE001 - what the hunt is for
        status, message = "crash", f"at {stage}: {type(error).__name__}: {error}"
    what = f"{kind}:{method}" + (":person" if person is not None else "")
    return [_record("app", name, frame, what, status, message, start, [])]


#: The app door charts this many of a release's columns on the Preview's One column tab, in the table's order.
ONE_COLUMN_CHARTS = 12


#: The workbooks among them, whose empty rows are skipped (:func:`dpsynth_core.data.workbooks.read_sheet`).
SHEET_KINDS = ("xlsx", "xls", "ods")
#: The files door's kinds: every file a publisher may upload besides a CSV.
FILE_KINDS = ("xlsx", "xls", "ods", "parquet", "dta", "sav", "xpt")


def files_door(name: str, frame: pd.DataFrame, spec: dict) -> list[dict]:
    """The table written as each of :data:`FILE_KINDS` by the formats' own writers, read back by the library's
    :func:`~dpsynth_core.data.formats.read_data` (the app's and the command line's reading) and encoded over the
    declaration: ``differs`` when a column's codes (its text, for free text) are not those of the same records read
    from their CSV text, with how many cells and the first one's two readings. A record with every value missing is
    an empty row in a sheet, skipped (and said, ``info["lines"]["empty rows"]``, unless it is the last: the sheet's
    end): the CSV's are set aside alike for a workbook. A table whose CSV text breaks a line (a line break in a
    cell: the CSV's one-line rule) is not compared."""
    import functools

    from dpsynth_core.data.encoding import encode_table
    from dpsynth_core.data.formats import read_data
    from dpsynth_core.domain import TableDomain
    from dpsynth_core.errors import DPSynthError

    @functools.cache
    def written(package: bool):
        """The table as written (a package's names and 0 and 1, its dates typed), its declaration, and its CSV text
        read: once for the workbooks and the Parquet, once for the packages."""
        table, declared = _as_written(frame, spec, package)
        domain = TableDomain.from_json(declared)
        as_text, read = read_data(table.to_csv(index=False).encode(), name="table.csv")  # missing: an empty cell
        return _dates_typed(table, declared), domain, as_text, read["lines"]["broken"]

    out = []
    for kind in FILE_KINDS:
        start, status, message = time.perf_counter(), "ok", ""
        try:
            typed, domain, as_text, broken = written(kind in PACKAGE_WRITERS)
            try:
                raw = _upload_bytes(typed, kind)
            except Exception:  # noqa: BLE001 - the writer's limit (a control character in a workbook), not the library's
                continue
            start = time.perf_counter()
            as_file, info = read_data(raw, name=f"table.{kind}")
            as_text = _fifteen_digits(as_text) if kind == "xlsx" else as_text  # what openpyxl stores
            empty = ~as_text.fillna("").ne("").any(axis=1)  # a record with every value missing: a sheet's empty row
            if kind in SHEET_KINDS and empty.any():  # skipped, and said unless after the last record (the sheet's end)
                said = info["lines"].get("empty rows", 0)
                as_text = as_text[~empty].reset_index(drop=True)
                message = f"{int(empty.sum())} record(s) with every value missing read as the sheet's empty rows ({said} said); "
            if broken:  # a line break in a cell: the CSV's documented one-line rule, not compared
                message = f"not compared: the CSV text breaks {broken} lines (a line break in a cell)"
            elif len(as_text) != len(as_file):
                status, message = "differs", f"{len(as_file)} records read, {len(as_text)} from the CSV text"
            else:
                encoded = encode_table(as_text, domain), encode_table(as_file, domain)
                found = "; ".join(_differences(*encoded, as_text, as_file))
                status, message = ("differs" if found else "ok"), message + found
        except DPSynthError as refused:
            status, message = "refused", str(refused)
        except Exception as error:  # noqa: BLE001 - what the hunt is for
            status, message = "crash", f"{type(error).__name__}: {error}"
        out.append(_record("files", name, frame, kind, status, message, start, []))
    return out


def _as_written(frame: pd.DataFrame, spec: dict, package: bool) -> tuple[pd.DataFrame, dict]:
    """The table and its declaration as a file holds them: for a package, names it allows (:func:`package_names`)
    and its true-or-false columns as 0 and 1 (the packages have no such kind: their writers store 0 and 1)."""
    if not package:
        return frame, spec
    renamed = package_names(frame.columns)
    table = frame.rename(columns=renamed)
    declared = {**spec, "columns": {renamed[c]: d for c, d in spec["columns"].items()}}
    for column in table.columns[[pd.api.types.is_bool_dtype(t) for t in table.dtypes]]:
        table[column] = table[column].astype(int)
        declared["columns"][column] = {"type": "categorical", "values": [0, 1]}
    return table, declared


def _dates_typed(table: pd.DataFrame, declared: dict) -> pd.DataFrame:
    """The table with its declared dates as the format's own dates (a workbook's date cell, Stata's %td), not text;
    a partial date (SDTM's 2013-08) holds no day to write, and is written empty."""
    typed = table.copy()
    for column, declared_as in declared["columns"].items():
        if declared_as["type"] == "date":
            texts = table[column].astype("string")
            typed[column] = pd.to_datetime(texts, errors="coerce", format="ISO8601").where(texts.str.len() >= 10)
    return typed


def _fifteen_digits(as_text: pd.DataFrame) -> pd.DataFrame:
    """The CSV text with each number of more than 15 significant digits written as openpyxl (pandas' xlsx writer)
    stores it, to 15 (Excel's precision): DAAG's bomregions2018 holds ``25.599999999999998``, which the workbook
    holds as ``25.6``, and the library reads as the workbook holds it.

    >>> _fifteen_digits(pd.DataFrame({"t": ["25.599999999999998", "0.1", "x", ""]}))["t"].tolist()
    ['25.6', '0.1', 'x', '']
    """
    out = as_text.copy()
    for column in out.columns:
        cells = out[column].astype("string")
        long = cells.str.fullmatch(r"-?[0-9]*\.[0-9]+").fillna(False) & (cells.str.count(r"[0-9]").fillna(0) > 15)
        if long.any():
            out[column] = out[column].astype(object)
            out.loc[long.to_numpy(bool), column] = [repr(float(f"{float(v):.15g}")) for v in cells[long]]
    return out


def _differences(text, file, as_text: pd.DataFrame, as_file: pd.DataFrame) -> list[str]:
    """Each column whose encoding from the file is not the CSV's: how many cells, and the first one's two cells."""
    found = []
    for column, read in text.columns.items():
        again = file.columns[column]
        first, second = (read.codes, again.codes) if read.codes is not None else (read.labels, again.labels)
        unequal = (
            np.asarray(first != second, dtype=bool)
            if read.codes is not None
            else np.array([a != b for a, b in zip(first, second, strict=True)], dtype=bool)
        )
        if unequal.any():
            row = int(np.flatnonzero(unequal)[0])
            cells = (as_text[column].iloc[row], as_file[column].iloc[row])
            found.append(f"{column}: {int(unequal.sum())} cells, first {cells[0]!r} read as {cells[1]!r}")
    return found


def package_names(columns) -> dict:
    """Each column's name as Stata, SPSS and SAS allow one (letters, digits and underscores, a letter first, at most
    32 characters), kept distinct.

    >>> package_names(["age", "1st visit", "a.b", "a_b"])
    {'age': 'age', '1st visit': 'v1st_visit', 'a.b': 'a_b', 'a_b': 'a_b_2'}
    """
    out, taken = {}, set()
    for column in columns:
        name = "".join(ch if ch.isascii() and ch.isalnum() else "_" for ch in str(column))
        name = (name if name[:1].isalpha() else "v" + name)[:30]
        unique, count = name, 1
        while unique.lower() in taken:
            count += 1
            unique = f"{name}_{count}"
        taken.add(unique.lower())
        out[column] = unique
    return out


def _as_kept(column: dict) -> dict:
    """A column's declaration as the Domain page keeps it: ``missing`` left out where it is the default (true), and
    categories without the spaces around them (cells are read so)."""
    out = {k: v for k, v in column.items() if not (k == "missing" and v is True)}
    if "values" in out:
        out["values"] = [v.strip() if isinstance(v, str) else v for v in out["values"]]
    return out


def _page(at, path: str):
    at.switch_page(path)
    return _ran(at.run())


def _ran(at):
    if at.exception:
        raise RuntimeError("; ".join(e.value for e in at.exception))
    return at


def _record(door, name, frame, what, status, message, start, outside) -> dict:
    return {
        "door": door,
        "table": name,
        "rows": int(frame.shape[0]),
        "columns": int(frame.shape[1]),
        "what": what,
        "status": status,
        "message": message[:2000],
        "seconds": round(time.perf_counter() - start, 2),
        "outside": outside,
    }


def summary(records: list[dict]) -> pd.DataFrame:
    """Per door: runs, released, refused in one line, crashes, releases with a value outside the declaration, runs
    that printed a Python warning, and the slowest run's seconds."""
    found = pd.DataFrame(records)
    if found.empty:
        return found
    found["outside_any"] = found["outside"].map(bool)
    found["warned"] = found["message"].str.contains("warning: ", regex=False)
    grouped = found.groupby("door", sort=False)
    return pd.DataFrame(
        {
            "tables": grouped["table"].nunique(),
            "runs": grouped.size(),
            "ok": grouped["status"].apply(lambda s: int((s == "ok").sum())),
            "refused": grouped["status"].apply(lambda s: int((s == "refused").sum())),
            "crash": grouped["status"].apply(lambda s: int((s == "crash").sum())),
            "changed": grouped["status"].apply(lambda s: int((s == "changed").sum())),
            "differs": grouped["status"].apply(lambda s: int((s == "differs").sum())),
            "outside": grouped["outside_any"].sum().astype(int),
            "warned": grouped["warned"].sum().astype(int),
            "slowest_s": grouped["seconds"].max(),
        }
    )


def main(argv=None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, required=True, help="a checkout of Rdatasets")
    parser.add_argument("--seed", type=int, default=69, help="which tables are drawn (a new seed: unseen ones)")
    parser.add_argument("--count", type=int, default=40)
    parser.add_argument("--rows", type=int, nargs=2, default=list(ROWS), metavar=("FEWEST", "MOST"), help="table sizes")
    parser.add_argument(
        "--columns", type=int, nargs=2, default=list(COLUMNS), metavar=("FEWEST", "MOST"), help="table widths"
    )
    parser.add_argument(
        "--doors", nargs="+", default=["library", "cli", "app"], choices=["library", "cli", "app", "files"]
    )
    parser.add_argument("--methods", nargs="+", default=list(METHODS), help="the library door's methods")
    parser.add_argument(
        "--cli-methods", nargs="+", default=list(CLI_METHODS), help="the command line's draw of a method (with repeats)"
    )
    parser.add_argument(
        "--engines",
        nargs="+",
        default=list(CLI_ENGINES),
        choices=["pandas", "duckdb", "spark"],
        help="the command line's draw of an engine (with repeats)",
    )
    parser.add_argument(
        "--mistakes",
        type=float,
        default=0.0,
        metavar="RATE",
        help="make each declared column wrong with this chance, as a publisher might (benchmarks.robustness.mistakes)",
    )
    parser.add_argument("--epsilon", type=float, default=1.0, help="every release's (the app's: a stop of its slider)")
    parser.add_argument("--out", default="unseen", help="results file name under benchmarks/results (replaced)")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    make_mistakes = seeded_mistakes(args.seed)
    records = []
    with tempfile.TemporaryDirectory(prefix="unseen") as scratch, results_file(args.out) as out:
        folder = Path(scratch)
        os.environ["DPSYNTH_WORKSPACE"] = str(folder / "app-workspace")  # the app door's, never the user's
        for index, (name, frame, spec) in enumerate(
            tables(args.root, args.seed, args.count, tuple(args.rows), tuple(args.columns)), start=1
        ):
            made = []
            if args.mistakes > 0:
                spec, made = make_mistakes(spec, frame, args.mistakes)
            found = []
            if "library" in args.doors:
                found += library_door(name, frame, spec, args.methods, rng, args.epsilon)
            if "cli" in args.doors:
                found += cli_door(
                    folder, name, frame, spec, index, rng, args.epsilon, tuple(args.cli_methods), tuple(args.engines)
                )
            if "app" in args.doors:
                found += app_door(name, frame, spec, rng, args.epsilon)
            if "files" in args.doors:
                found += files_door(name, frame, spec)
            if made:
                print(f"mistakes {name}: {'; '.join(made)}", flush=True)
            for record in found:
                record["epsilon"], record["mistakes"] = args.epsilon, made
                out.write(json.dumps(record) + "\n")
                flag = "" if record["status"] == "ok" and not record["outside"] else f" {record['status'].upper()}"
                print(
                    f"{record['door']:8s} {name:42s} {record['rows']:6d}x{record['columns']:<3d} "
                    f"{record['what']:22s} {record['seconds']:6.1f}s{flag} {record['message'][:120]} "
                    f"{'; '.join(record['outside'])}",
                    flush=True,
                )
            records += found
    table = summary(records)
    print(table.to_string())
    slow = [r for r in records if r["seconds"] > SLOW_SECONDS]
    print("slow:", [(r["door"], r["table"], r["what"], r["seconds"]) for r in slow])
    return table


if __name__ == "__main__":
    main()
