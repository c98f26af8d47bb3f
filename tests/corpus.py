"""A generated corpus of hostile inputs for the CLI and the Python API.

Each :class:`Case` changes one thing of a small, valid release (a table, its complete
declaration and the default options): a malformed or oddly encoded CSV, a declaration with
a wrong JSON type or an absurd size, an extreme parameter, an output path that clashes with
an input, a device, a bad folder or glob of Parquet parts. Every case says what must happen: a one-line refusal (``"error"``), or a
release (``"ok"``) for inputs that are odd but legitimate. ``tests/core/test_corpus.py``
runs them all through the API and a representative part through the CLI.
"""

from __future__ import annotations

import codecs
import io
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

CITIES = ["Québec", "Montréal", "Trois-Rivières", "Gatineau", "Laval"]
HEADER = "city,age,income,day,code"


def good_rows(count: int = 300) -> list[str]:
    rng = np.random.default_rng(11)
    rows = []
    for _ in range(count):
        day = np.datetime64("2000-01-01") + int(rng.integers(0, 7000))
        rows.append(
            f"{CITIES[int(rng.integers(len(CITIES)))]},{int(rng.integers(0, 100))},"
            f"{rng.uniform(0, 200_000):.2f},{day},{int(rng.integers(0, 100_000)):05d}"
        )
    return rows


def good_csv(rows: list[str] | None = None, *, header: str = HEADER, end: str = "\n") -> bytes:
    lines = [header, *(good_rows() if rows is None else rows)]
    return (end.join(lines) + end).encode("utf-8")


def good_domain() -> dict:
    return {
        "dataset": "corpus",
        "columns": {
            "city": {"type": "categorical", "values": CITIES},
            "age": {"type": "integer", "min": 0, "max": 120},
            "income": {"type": "float", "min": 0, "max": 1_000_000, "bins": 20},
            "day": {"type": "date", "min": "2000-01-01", "max": "2020-12-31"},
            "code": {"type": "text", "generator": "digits", "length": 5},
        },
    }


def every_form(folder: Path) -> Path:
    """The same 300 records (:func:`good_csv`) written into ``folder`` as CSV (``a.csv``), shuffled with CRLF
    and a blank line (``b.csv``), TSV (``c.tsv``), typed Parquet (``d.parquet``) and Parquet parts
    (``parts/``), with their declaration (``d.json``)."""
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    (folder / "a.csv").write_bytes(good_csv())
    frame = pd.read_csv(folder / "a.csv", dtype=str, keep_default_na=False)
    shuffled = frame.sample(frac=1, random_state=3)
    (folder / "b.csv").write_bytes(shuffled.to_csv(index=False, lineterminator="\r\n").encode() + b"\r\n")
    shuffled.to_csv(folder / "c.tsv", sep="\t", index=False)
    typed = frame.assign(
        age=frame["age"].astype("int64"), income=frame["income"].astype(float), day=pd.to_datetime(frame["day"]).dt.date
    )
    pq.write_table(pa.Table.from_pandas(typed, preserve_index=False), folder / "d.parquet")
    (folder / "parts").mkdir()
    for i, part in enumerate((shuffled.iloc[:100], shuffled.iloc[100:])):
        pq.write_table(pa.Table.from_pandas(part, preserve_index=False), folder / "parts" / f"part-{i}.parquet")
    (folder / "d.json").write_text(json.dumps(good_domain()))
    return folder


def domain_with(column: str, spec: dict, **top) -> dict:
    spec_all = good_domain()
    spec_all["columns"][column] = spec
    spec_all.update(top)
    return spec_all


#: Tokens for paths that are not files written by the case.
MISSING, FOLDER, SAME_AS_DATA, SAME_AS_DOMAIN = "<missing>", "<folder>", "<data>", "<domain>"
#: The folder of a case's Parquet parts (``Case.parts``); in ``data`` and output paths.
PARTS = "<parts>"
#: The case's own folder, in option values (``--workspace <here>/ws``); an empty path.
HERE, EMPTY = "<here>", "<empty>"


def parquet_part(rows: list[str], header: str = HEADER, types: dict | None = None) -> bytes:
    """A Parquet file of CSV records (text columns; ``types`` casts some, e.g. {"age": "int64"})."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    names = header.split(",")
    cells = [row.split(",") for row in rows]
    table = pa.table(
        {n: pa.array([c[i] for c in cells]).cast((types or {}).get(n, "string")) for i, n in enumerate(names)}
    )
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


@dataclass(frozen=True)
class Case:
    """One hostile input.

    Attributes:
        kind: csv, domain, parameters, paths, devices, parquet or files (spreadsheets, packages).
        name: what is hostile about it.
        expect: "error" (exit status 2, one line) or "ok" (a release).
        data: bytes for data.csv (or a function returning them), or a path or token.
        domain: a dict (written as JSON), bytes, or a path or token.
        options: CLI options as (flag, value) pairs; the API receives the same values.
        command: "synth" or "tau".
        api, cli: run through ``synthesize`` / through ``python -m dpsynth_core``.
        outputs: output flag -> file name or token (default: --out out.csv).
        existing: files present before the run (name -> bytes), which must survive a refusal.
        parts: files of the folder ``PARTS`` (name -> bytes; None: no such folder).
        data_name: the name ``data`` bytes are written under (its suffix says the format).
    """

    kind: str
    name: str
    expect: str
    data: object = None
    domain: object = None
    options: tuple = ()
    command: str = "synth"
    api: bool = True
    cli: bool = False
    outputs: dict = field(default_factory=lambda: {"--out": "out.csv"})
    existing: dict = field(default_factory=dict)
    parts: dict | None = None
    data_name: str = "data.csv"


def _csv_cases() -> list[Case]:
    rows = good_rows()
    bad = []

    def case(name, expect, data, **kw):
        bad.append(Case("csv", name, expect, data=data, **kw))

    def with_record(record: bytes, at: int = 1) -> bytes:
        lines = good_csv().split(b"\n")
        return b"\n".join(lines[: at + 1] + [record] + lines[at + 1 :])

    case("empty file", "error", b"", cli=True)
    case("only a byte-order mark", "error", codecs.BOM_UTF8)
    case("only blank lines", "error", b"\n\r\n\n\n")
    case("header only", "error", (HEADER + "\n").encode(), cli=True)
    case("header and blank lines", "error", (HEADER + "\n\n\n\r\n").encode())
    case("NUL in the header", "error", b"city,a\x00ge,income,day,code\n" + good_csv().split(b"\n", 1)[1], cli=True)
    case("control bytes in the header", "error", b"city,\x01\x02,income,day,code\n1,2,3,4,5\n")
    case("zip archive", "error", b"PK\x03\x04" + bytes(range(256)) * 4)
    case("old Excel file", "error", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(512), cli=True)
    case("gzip file", "error", b"\x1f\x8b\x08\x00" + bytes(range(256)))
    case("PDF document", "error", b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n")
    case("random binary", "error", np.random.default_rng(1).bytes(100_000))
    case("a 20 MB line without a line end", "error", b"x" * 20_000_000, cli=True)
    case("a 20 MB record", "ok", with_record(b"y" * 20_000_000, 5), cli=True)
    case("16,385 columns", "error", (",".join(f"c{i}" for i in range(16_385)) + "\n" + "1," * 16_384 + "1\n").encode())
    case("extra delimiters in a record", "ok", with_record(b"Laval,,,,,,,,,,,,,,3,4", 3), cli=True)
    case("missing fields in a record", "ok", with_record(b"Laval,3", 3))
    case("a delimiter ending a record", "ok", with_record(b"Laval,30,1.5,2001-01-01,00001,", 3))
    case("unbalanced quote in a record", "ok", with_record(b'"Laval,30,1.5,2001-01-01,00001', 2), cli=True)
    case("unbalanced quote in the header", "error", ('"city,age,income,day,code\n' + "\n".join(rows) + "\n").encode())
    case("closing quote then text", "ok", with_record(b'"Laval"x,30,1.5,2001-01-01,00001', 2))
    case("a quoted field over two lines", "ok", with_record(b'"Lav\nal",30,1.5,2001-01-01,00001', 2))
    case("a record of quotes", "ok", with_record(b'"' * 1001, 2))
    case("empty quoted fields", "ok", with_record(b'"","","","",""', 2))
    case("carriage returns only (classic Mac)", "ok", good_csv(end="\r"), cli=True)
    case("Windows line ends", "ok", good_csv(end="\r\n"))
    case(
        "mixed line ends", "ok", b"\r\n".join(good_csv().split(b"\n")[:100]) + b"\n" + good_csv().split(b"\n", 100)[100]
    )
    case("a lone carriage return in a field", "ok", with_record(b"Laval,3\r0,1.5,2001-01-01,00001", 2))
    case("a Windows-1252 record", "ok", with_record("Québec,40,1.5,2001-01-01,00001".encode("cp1252"), 2), cli=True)
    case("an undecodable byte", "ok", with_record(b"Qu\x81bec,40,1.5,2001-01-01,00001", 2))
    case("overlong UTF-8", "ok", with_record(b"Qu\xc0\xafbec,40,1.5,2001-01-01,00001", 2))
    case("UTF-8 surrogate bytes", "ok", with_record(b"Qu\xed\xa0\x80bec,40,1.5,2001-01-01,00001", 2))
    case("a NUL in a record", "ok", with_record(b"Qu\x00bec,40,1.5,2001-01-01,00001", 2))
    case("UTF-8 byte-order mark", "ok", codecs.BOM_UTF8 + good_csv())
    case("UTF-16 with a byte-order mark", "ok", good_csv().decode().encode("utf-16"), cli=True)
    case("UTF-16 without a byte-order mark", "error", good_csv().decode().encode("utf-16-le"))
    case("UTF-16 chosen for it", "ok", good_csv().decode().encode("utf-16-le"), options=(("--encoding", "utf-16"),))
    case("UTF-32 with a byte-order mark", "ok", good_csv().decode().encode("utf-32"))
    case("UTF-16 with an odd byte count", "ok", good_csv().decode().encode("utf-16") + b"\x41")
    case("Windows-1252 chosen for UTF-8", "ok", good_csv(), options=(("--encoding", "windows-1252"),))
    case("a whole Windows-1252 file", "ok", good_csv().decode().encode("cp1252"))
    case("duplicate header names", "error", good_csv(header="city,age,income,day,day"))
    case("an empty header name", "error", good_csv(header="city,,income,day,code"))
    case("a header of delimiters", "error", good_csv(header=",,,,"))
    case("a header of spaces", "error", good_csv(header="     "))
    case(
        "semicolons, read from the header",
        "ok",
        good_csv([r.replace(",", ";") for r in rows], header=HEADER.replace(",", ";")),
    )
    case(
        "semicolons, comma chosen",
        "error",
        good_csv([r.replace(",", ";") for r in rows], header=HEADER.replace(",", ";")),
        options=(("--delimiter", ","),),
    )
    case("tabs", "ok", good_csv([r.replace(",", "\t") for r in rows], header=HEADER.replace(",", "\t")))
    case("quoted header names", "ok", good_csv(header='"city","age","income","day","code"'))
    case("blank lines before the header", "ok", b"\n" * 10_000 + good_csv())
    case("every record broken", "ok", good_csv([r + ",extra" for r in rows]), cli=True)
    case("a record of 10,000 delimiters", "ok", with_record(b"," * 10_000, 2))
    case("an HTML page", "error", b"<!DOCTYPE html><html><body><table><tr><td>1</td></tr></table></body></html>\n")
    case("a JSON file", "error", json.dumps({"city": CITIES}).encode() + b"\n")
    case(
        "odd numbers",
        "ok",
        good_csv(
            [
                f"Laval,{v},{v},2001-01-01,00001"
                for v in ("1e5", "inf", "-inf", "nan", "-0", "0x10", "１２", "9" * 5000, "1,5")
            ]
        ),
    )
    case(
        "odd dates",
        "ok",
        good_csv(
            [
                f"Laval,1,1,{d},00001"
                for d in (
                    "0001-01-01",
                    "9999-12-31",
                    "10000-01-01",
                    "2020-02-30",
                    "2020-01-01T25:00",
                    "2020-01-01T00:00+05:00",
                    "-2020-01-01",
                    "1e9",
                )
            ]
        ),
    )
    case("a folder", "error", FOLDER, cli=True)
    case("a missing file", "error", MISSING)
    return bad


def _domain_cases() -> list[Case]:
    bad = []

    def case(name, expect, domain, **kw):
        bad.append(Case("domain", name, expect, domain=domain, **kw))

    wrong = {
        "a list for type": {"type": ["integer"]},
        "a number for type": {"type": 3},
        "an unknown type": {"type": "Integer"},
        "no type": {"min": 0},
        "a string for the column": "integer",
        "a list for the column": ["integer"],
        "null for the column": None,
        "a list for labels": {"type": "categorical", "values": CITIES, "labels": ["x"]},
        "numbers as labels": {"type": "categorical", "values": CITIES, "labels": {"Laval": 3}},
        "a string for values": {"type": "categorical", "values": "Québec,Laval"},
        "floats and lists in values": {"type": "categorical", "values": [1.5, [1], {"a": 1}, True]},
        "a string for missing": {"type": "categorical", "values": CITIES, "missing": "false"},
        "a number for missing": {"type": "categorical", "values": CITIES, "missing": 0},
        "an unknown public list": {"type": "categorical", "list": "planets"},
        "a list for list": {"type": "categorical", "list": ["us_states"]},
        "both values and list": {"type": "categorical", "values": CITIES, "list": "sex"},
        "no values": {"type": "categorical"},
        "empty values": {"type": "categorical", "values": []},
        "duplicate values": {"type": "categorical", "values": ["Laval", "Laval"]},
        "other outside values": {"type": "categorical", "values": CITIES, "other": "Paris"},
        "2,000,001 values": {"type": "categorical", "values": [f"v{i}" for i in range(2_000_001)]},
        "a 5,000 character value": {"type": "categorical", "values": ["x" * 5000]},
        "an unknown key": {"type": "integer", "min": 0, "max": 120, "bin_widht": 5},
    }
    for name, spec in wrong.items():
        case(
            name,
            "error",
            domain_with("city", spec),
            cli=name in ("a list for type", "a string for missing", "an unknown public list", "2,000,001 values"),
        )
    numbers = {
        "infinite bound": {"type": "float", "min": 0, "max": float("inf")},
        "NaN bound": {"type": "float", "min": float("nan"), "max": 1},
        "1e308 bound": {"type": "float", "min": 0, "max": 1e308},
        "1e308 integer bound": {"type": "integer", "min": 0, "max": 1e308},
        "a string bound": {"type": "integer", "min": "0", "max": 120},
        "a boolean bound": {"type": "integer", "min": False, "max": 120},
        "a fractional integer bound": {"type": "integer", "min": 0.5, "max": 120},
        "min above max": {"type": "integer", "min": 120, "max": 0},
        "a range of 10^12 with width 1": {"type": "integer", "min": 0, "max": 10**12, "bin_width": 1},
        "width 0": {"type": "integer", "min": 0, "max": 120, "bin_width": 0},
        "unsorted edges": {"type": "integer", "min": 0, "max": 120, "edges": [0, 50, 20]},
        "edges as text": {"type": "integer", "min": 0, "max": 120, "edges": ["0", "50"]},
        "edges past max": {"type": "integer", "min": 0, "max": 120, "edges": [0, 500]},
        "special as text": {"type": "integer", "min": 0, "max": 120, "special": ["x"]},
    }
    for name, spec in numbers.items():
        case(name, "error", domain_with("age", spec), cli=name in ("infinite bound", "a range of 10^12 with width 1"))
    floats = {
        "10^9 float bins": {"type": "float", "min": 0, "max": 1, "bins": 10**9},
        "a tiny float bin width": {"type": "float", "min": 0, "max": 1e6, "bin_width": 1e-300},
        "a negative float bin width": {"type": "float", "min": 0, "max": 1e6, "bin_width": -1},
        "equal float bounds": {"type": "float", "min": 5, "max": 5},
        "one float edge": {"type": "float", "min": 0, "max": 1e6, "edges": [0]},
    }
    for name, spec in floats.items():
        case(name, "error", domain_with("income", spec), cli=name == "10^9 float bins")
    dates = {
        "an impossible date": {"type": "date", "min": "2020-02-30", "max": "2021-01-01"},
        "a number for a date": {"type": "date", "min": 20200101, "max": "2021-01-01"},
        "an unknown unit": {"type": "date", "min": "2000-01-01", "max": "2020-12-31", "unit": "week"},
        "days from year 1 to 9999": {"type": "date", "min": "0001-01-01", "max": "9999-12-31", "unit": "day"},
        "dates in the wrong order": {"type": "date", "min": "2020-12-31", "max": "2000-01-01"},
    }
    for name, spec in dates.items():
        case(name, "error", domain_with("day", spec), cli=name == "days from year 1 to 9999")
    case(
        "years from 1 to 9999",
        "ok",
        domain_with("day", {"type": "date", "min": "0001-01-01", "max": "9999-12-31"}),
        cli=True,
    )
    texts = {
        "digits of length 5,000": {"type": "text", "generator": "digits", "length": 5000},
        "letters of length 10^30": {"type": "text", "generator": "letters", "max_length": 10**30},
        "a size of 10^101": {"type": "text", "generator": "any", "size": 10**101},
        "a domain of 10^300 values": {
            "type": "text",
            "generator": "letters",
            "max_length": 100,
            "alphabet": "".join(chr(0x4E00 + i) for i in range(1000)),
        },
        "an unknown generator": {"type": "text", "generator": "names"},
        "no generator": {"type": "text"},
        "an alphabet with repeats": {"type": "text", "generator": "letters", "max_length": 3, "alphabet": "aab"},
        "a list for the alphabet": {"type": "text", "generator": "letters", "max_length": 3, "alphabet": ["a"]},
        "a size as text": {"type": "text", "generator": "any", "size": "1000"},
    }
    for name, spec in texts.items():
        case(name, "error", domain_with("code", spec), cli=name == "digits of length 5,000")
    case("a size of 10^30", "ok", domain_with("code", {"type": "text", "generator": "any", "size": 10**30}), cli=True)
    top = {
        "a list for missing_values": {"missing_values": ["?"]},
        "a string for markers": {"missing_values": {"markers": "?"}},
        "101 markers": {"missing_values": {"markers": [str(i) for i in range(101)]}},
        "an unknown top-level key": {"version": 2},
        "a list for notes": {"notes": ["x"]},
        "deeply nested notes": {"notes": {"a": json.loads("[" * 40 + "]" * 40)}},
    }
    for name, extra in top.items():
        case(name, "error", {**good_domain(), **extra})
    case("a column the data lacks", "error", domain_with("ghost", {"type": "drop"}), cli=True)
    spec = good_domain()
    del spec["columns"]["code"]
    case("a column the declaration lacks", "error", spec)
    case("every column dropped", "error", {"columns": {c: {"type": "drop"} for c in good_domain()["columns"]}})
    case("no columns key", "error", {"dataset": "x"})
    case("a list for columns", "error", {"columns": []})
    case("a JSON array", "error", b"[1, 2, 3]")
    case("not JSON", "error", b"{columns: nope}", cli=True)
    case("an empty domain file", "error", b"")
    case("NaN in the JSON text", "error", json.dumps(good_domain()).replace("1000000", "NaN", 1).encode())
    case("Infinity in the JSON text", "error", json.dumps(good_domain()).replace("1000000", "Infinity", 1).encode())
    case("a key twice", "error", b'{"columns": {"city": {"type": "drop"}, "city": {"type": "drop"}}}')
    case("nested 100,000 levels", "error", b"[" * 100_000 + b"]" * 100_000, cli=True)
    case("a UTF-16 domain file", "error", json.dumps(good_domain()).encode("utf-16"))
    case("NUL bytes in the domain file", "error", b'{"columns": \x00}')
    case("a domain file with a BOM", "ok", codecs.BOM_UTF8 + json.dumps(good_domain()).encode())
    case("a domain folder", "error", FOLDER)
    case("a missing domain file", "error", MISSING)
    return bad


def _parameter_cases() -> list[Case]:
    bad = []

    def case(name, expect, options, **kw):
        bad.append(Case("parameters", name, expect, options=options, **kw))

    for value, expect in (
        ("0", "error"),
        ("-1", "error"),
        ("nan", "error"),
        ("inf", "error"),
        ("1e-12", "error"),
        ("1e-300", "error"),
        ("21", "error"),
        ("1e308", "error"),
        ("abc", "error"),
        ("", "error"),
        ("0.01", "ok"),
        ("20", "ok"),
    ):
        case(f"epsilon {value or 'empty'}", expect, (("--epsilon", value),), cli=value in ("1e-12", "1e-300", "nan"))
    for value, expect in (
        ("0", "error"),
        ("1", "error"),
        ("1e-300", "error"),
        ("nan", "error"),
        ("-0.5", "error"),
        ("0.9999", "error"),
        ("0.01", "ok"),
        ("0.99", "ok"),
    ):
        case(f"rho {value}", expect, (("--rho", value),), cli=value == "1e-300")
    # 5,000,001: over the cap of a table returned in memory (the API); the CLI writes in chunks, whose cap,
    # 10^9, is the same for every engine
    for value, expect in (
        ("0", "error"),
        ("-5", "error"),
        (str(10**40), "error"),
        ("5000001", "error"),
        ("1000000001", "error"),
        ("1.5", "error"),
        ("x", "error"),
        ("1", "ok"),
        ("20000", "ok"),
    ):
        case(
            f"rows {value if len(value) < 12 else f'of {len(value)} digits'}",
            expect,
            (("--rows", value),),
            cli=value in (str(10**40), "1000000001"),
        )
    for label, value, expect in (
        ("-1", "-1", "error"),
        ("2^128", str(2**128), "error"),
        ("x", "x", "error"),
        ("1.5", "1.5", "error"),
        ("2^128 - 1", str(2**128 - 1), "ok"),
    ):
        case(f"seed {label}", expect, (("--seed", value),), cli=value == "-1")
    case("an unknown method", "error", (("--method", "magic"),), cli=True)
    case("a group of unknown columns", "error", (("--method", "marginals"), ("--group", "x,y")))
    case("a group for the wrong method", "error", (("--method", "cathist"), ("--group", "city,age")))
    case("a group of four", "error", (("--method", "marginals"), ("--group", "city,age,income,day")))
    for value, expect in (("abc", "error"), ("0.5", "error"), ("-1e-9", "error"), ("nan", "error"), ("0", "ok")):
        case(f"delta {value}", expect, (("--method", "marginals"), ("--delta", value)), cli=value == "abc")
    case("delta for another method", "error", (("--method", "cathist"), ("--delta", "1e-7")))
    case("microagg", "ok", (("--method", "microagg"),), cli=True)
    case("an unknown encoding", "error", (("--encoding", "klingon"),))
    case("EBCDIC", "error", (("--encoding", "cp500"),))
    for value in ('"', ";;", "\n", "", "é", "a", "\x00"):
        case(f"delimiter {value!r}", "error", (("--delimiter", value),))
    tau = (("--size", "171000"), ("--rho", "0.9"), ("--epsilon", "1"))
    for flag, value, expect in (
        ("--size", "0", "error"),
        ("--size", "-1", "error"),
        ("--size", "abc", "error"),
        ("--size", "1" + "0" * 1000, "error"),
        ("--size", "1" + "0" * 30, "ok"),
        ("--epsilon", "1e-300", "error"),
        ("--epsilon", "1e-12", "error"),
        ("--epsilon", "0", "error"),
        ("--rho", "1e-300", "error"),
        ("--rho", "1", "error"),
        ("--epsilon", "1e-9", "ok"),
        ("--epsilon", "1e6", "ok"),
    ):
        options = tuple((f, value if f == flag else v) for f, v in tau)
        shown = value if len(value) < 12 else f"of {len(value)} digits"
        bad.append(
            Case(
                "parameters",
                f"tau {flag} {shown}",
                expect,
                options=options,
                command="tau",
                api=False,
                cli=True,
                outputs={},
            )
        )
    return bad


def _path_cases() -> list[Case]:
    previous = {"out.csv": b"the previous release\n", "card.json": b"{}\n"}

    def case(name, expect, outputs, **kw):
        return Case("paths", name, expect, outputs=outputs, api=False, cli=True, existing=previous, **kw)

    return [
        case("--out is the input", "error", {"--out": SAME_AS_DATA}),
        case("--out is the declaration", "error", {"--out": SAME_AS_DOMAIN}),
        case("--out is --card", "error", {"--out": "out.csv", "--card": "out.csv"}),
        case("--card is --card-html", "error", {"--out": "new.csv", "--card": "c.json", "--card-html": "c.json"}),
        case("--card is the input", "error", {"--out": "new.csv", "--card": SAME_AS_DATA}),
        case("--card-html is the declaration", "error", {"--out": "new.csv", "--card-html": SAME_AS_DOMAIN}),
        case("--out links to the input", "error", {"--out": "link-to-data.csv"}),
        case("--out is a hard link to the input", "error", {"--out": "hard-link.csv"}),
        case("--out is a folder", "error", {"--out": FOLDER}),
        case("--out is a device", "error", {"--out": "/dev/null"}),
        case("--out in a missing folder", "error", {"--out": "missing/out.csv"}),
        case("--out under a file", "error", {"--out": "data.csv/out.csv"}),
        case("--card in a missing folder", "error", {"--out": "out.csv", "--card": "missing/card.json"}),
        case(
            "refused after the paths: bad epsilon",
            "error",
            {"--out": "out.csv", "--card": "card.json"},
            options=(("--epsilon", "0"),),
        ),
        case(
            "refused after the paths: bad declaration",
            "error",
            {"--out": "out.csv", "--card": "card.json"},
            domain=b"{nope",
        ),
        case(
            "an existing output is replaced",
            "ok",
            {"--out": "out.csv", "--card": "card.json", "--card-html": "card.html"},
        ),
    ]


def _device_cases() -> list[Case]:
    return [
        Case("devices", "/dev/zero as the input", "error", data="/dev/zero", cli=True),
        Case("devices", "/dev/urandom as the input", "error", data="/dev/urandom", cli=True),
        Case("devices", "/dev/null as the input", "error", data="/dev/null", cli=True),
        Case("devices", "/dev/zero as the declaration", "error", domain="/dev/zero", cli=True),
        Case("devices", "/dev/null as the declaration", "error", domain="/dev/null"),
        Case("devices", "/dev/urandom as the declaration", "error", domain="/dev/urandom"),
    ]


def _parquet_cases() -> list[Case]:
    rows = good_rows()
    first, second = parquet_part(rows[:150]), parquet_part(rows[150:])
    spark_folder = {
        "part-00000.parquet": first,
        "part-00001.parquet": second,
        "_SUCCESS": b"",
        ".part-00000.parquet.crc": b"",
    }

    def case(name, expect, parts, data=PARTS, **kw):
        return Case("parquet", name, expect, data=data, parts=parts, **kw)

    return [
        case("a folder of Parquet parts", "ok", spark_folder, cli=True),
        case("a glob of Parquet parts", "ok", spark_folder, data=f"{PARTS}/part-*.parquet"),
        case("a glob matching nothing", "error", spark_folder, data=f"{PARTS}/nothing-*.parquet", cli=True),
        case("an empty folder", "error", {}, cli=True),
        case("a folder with a CSV file", "error", {"part-0.parquet": first, "notes.csv": good_csv()}, cli=True),
        case(
            "parts with different columns",
            "error",
            {"a.parquet": first, "b.parquet": parquet_part([r + ",1" for r in rows[150:]], HEADER + ",extra")},
            cli=True,
        ),
        case(
            "parts with different types",
            "error",
            {"a.parquet": first, "b.parquet": parquet_part(rows[150:], types={"age": "int64"})},
        ),
        case("a part that is not Parquet", "error", {"a.parquet": first, "b.parquet": b"PAR1 not really PAR1"}),
        case("a glob of CSV files", "error", {"a.csv": good_csv()}, data=f"{PARTS}/*.csv"),
        case("a recursive glob", "error", spark_folder, data=f"{PARTS}/**/*.parquet"),
        case(
            "a glob matching a folder",
            "error",
            {"a.parquet": first, "b.parquet/part-0.parquet": second},
            data=f"{PARTS}/*.parquet",
        ),
        case("a folder of folders", "error", {"year=2020/part-0.parquet": first}),
        case("a hidden Parquet part", "error", {"a.parquet": first, "_b.parquet": second}),
        case("the pandas engine on a folder", "error", spark_folder, options=(("--engine", "pandas"),)),
        case(
            "--out inside the input folder",
            "error",
            spark_folder,
            outputs={"--out": f"{PARTS}/out.parquet"},
            api=False,
            cli=True,
        ),
    ]


def parquet_file(column) -> bytes:
    """A Parquet file of the good records whose ``city`` column is replaced by ``column`` (an Arrow array)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    names, cells = HEADER.split(","), [row.split(",") for row in good_rows()]
    table = pa.table({n: pa.array([c[i] for c in cells]) for i, n in enumerate(names)})
    sink = io.BytesIO()
    pq.write_table(table.set_column(0, "city", column(len(cells))), sink)
    return sink.getvalue()


def foreign_database() -> bytes:
    """Another program's SQLite database (its own table, its own user_version)."""
    import sqlite3

    conn = sqlite3.connect(":memory:")
    conn.executescript("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine'); PRAGMA user_version = 7;")
    raw = conn.serialize()
    conn.close()
    return raw


def _surface_cases() -> list[Case]:
    """The newer surfaces: single Parquet files, odd columns, workspaces and the ledger command."""
    import pyarrow as pa

    whole = parquet_part(good_rows())
    city = [c for c in CITIES for _ in range(60)][:300]
    columns = {
        "a list column": lambda n: pa.array([[x] for x in city[:n]]),
        "a struct column": lambda n: pa.array([{"name": x} for x in city[:n]]),
        "a map column": lambda n: pa.array([[(x, 1)] for x in city[:n]], pa.map_(pa.string(), pa.int64())),
        "a binary column that is not UTF-8": lambda n: pa.array([b"\xff" + x.encode() for x in city[:n]], pa.binary()),
    }
    reserved = good_csv(header="__dpsynth_w,age,income,day,code")
    spec = good_domain()
    spec["columns"] = {("__dpsynth_w" if k == "city" else k): v for k, v in spec["columns"].items()}
    ws = {"--workspace": f"{HERE}/ws"}

    def paths(name, expect, outputs, options=(), **kw):
        return Case("paths", name, expect, outputs=outputs, options=tuple(options), api=False, cli=True, **kw)

    def ledger(name, data, options=(), **kw):
        return Case(
            "devices",
            name,
            "error",
            data=data,
            options=tuple(options),
            command="ledger",
            api=False,
            cli=True,
            outputs={},
            **kw,
        )

    cases = [
        Case(
            "parquet",
            f"one Parquet file: {label}",
            "error",
            data=f"{PARTS}/t.parquet",
            parts={"t.parquet": content},
            cli=True,
        )
        for label, content in (
            ("truncated", whole[: len(whole) // 2]),
            ("empty", b""),
            ("a CSV named .parquet", good_csv()),
            ("damaged", whole[:60] + bytes(40) + whole[100:]),
        )
    ]
    cases += [
        Case(
            "parquet",
            f"a Parquet file with {label}",
            "error",
            data=f"{PARTS}/t.parquet",
            parts={"t.parquet": parquet_file(column)},
            cli=True,
        )
        for label, column in columns.items()
    ]
    cases += [
        Case("csv", "--encoding idna", "error", options=(("--encoding", "idna"),), cli=True),
        Case("csv", "a column named like an internal one", "error", data=reserved, domain=spec, cli=True),
        Case(
            "csv",
            "a column named like an internal one, DuckDB",
            "error",
            data=reserved,
            domain=spec,
            options=(("--engine", "duckdb"),),
        ),
        paths(
            "--card is the workspace's database",
            "error",
            {"--out": "new.csv", "--card": "ws/workspace.sqlite"},
            ws.items(),
        ),
        paths(
            "--card-html is the workspace's journal",
            "error",
            {"--out": "new.csv", "--card-html": "ws/workspace.sqlite-wal"},
            ws.items(),
        ),
        paths("--out is the workspace's database", "error", {"--out": "ws/workspace.sqlite"}, ws.items()),
        paths("--out is empty", "error", {"--out": EMPTY}),
        paths("--card is empty", "error", {"--out": "new.csv", "--card": EMPTY}),
        paths("--workspace is empty", "error", {"--out": "new.csv"}, [("--workspace", EMPTY)]),
        paths("--workspace is a file", "error", {"--out": "new.csv"}, [("--workspace", f"{HERE}/data.csv")]),
        paths("--workspace is a device", "error", {"--out": "new.csv"}, [("--workspace", "/dev/null")]),
        paths(
            "--workspace holds another program's database",
            "error",
            {"--out": "new.csv"},
            ws.items(),
            existing={"ws/workspace.sqlite": foreign_database()},
        ),
        paths(
            "--workspace holds a damaged database",
            "error",
            {"--out": "new.csv"},
            ws.items(),
            existing={"ws/workspace.sqlite": b"SQLite format 3\x00" + bytes(200)},
        ),
        paths(
            "--workspace is not a database",
            "error",
            {"--out": "new.csv"},
            ws.items(),
            existing={"ws/workspace.sqlite": b"my notes\n"},
        ),
        paths("--no-ledger with --workspace", "error", {"--out": "new.csv"}, [("--no-ledger", None), *ws.items()]),
        paths("--dataset with an empty name", "error", {"--out": "new.csv"}, [("--dataset", EMPTY)]),
        paths("--dataset with a line end", "error", {"--out": "new.csv"}, [("--dataset", "a\nb")]),
        paths("--no-ledger", "ok", {"--out": "new.csv", "--card": "card.json"}, [("--no-ledger", None)]),
        paths("a named dataset", "ok", {"--out": "new.csv"}, [("--dataset", "monthly extract")]),
        Case(
            "parquet",
            "--workspace inside the input folder",
            "error",
            data=PARTS,
            parts={"part-0.parquet": whole},
            options=(("--workspace", f"{PARTS}/ws"),),
            api=False,
            cli=True,
        ),
        ledger("ledger of /dev/zero", "/dev/zero", ws.items()),
        ledger("ledger --limit of /dev/zero", "/dev/zero", [("--limit", "1"), *ws.items()]),
        ledger("ledger of a missing file", MISSING, ws.items()),
        ledger(
            "ledger of another program's database",
            None,
            ws.items(),
            existing={"ws/workspace.sqlite": foreign_database()},
        ),
        ledger(
            "ledger --limit on another program's database",
            None,
            [("--dataset", "x"), ("--limit", "1"), *ws.items()],
            existing={"ws/workspace.sqlite": foreign_database()},
        ),
        ledger(
            "ledger of a damaged workspace",
            None,
            ws.items(),
            existing={"ws/workspace.sqlite": b"SQLite format 3\x00" + bytes(200)},
        ),
        ledger("ledger --limit that is not a number", None, [("--dataset", "x"), ("--limit", "lots"), *ws.items()]),
    ]
    return cases


def build_cases() -> list[Case]:
    """The whole corpus, in a fixed order."""
    return (
        _csv_cases()
        + _domain_cases()
        + _parameter_cases()
        + _path_cases()
        + _device_cases()
        + _parquet_cases()
        + _surface_cases()
        + _file_cases()
    )


def _file_cases() -> list[Case]:
    """Spreadsheets and statistical packages' files, good and hostile (:mod:`tests.publisher_files`)."""
    from tests.publisher_files import file_cases

    def case(name, expect, data, data_name, **kw):
        return Case("files", name, expect, data=data, data_name=data_name, **kw)

    return file_cases(case, good_csv, good_domain)


DEFAULT_OPTIONS = (("--epsilon", "1"), ("--seed", "0"))


def prepare(case: Case, folder: Path, shared: Path) -> dict:
    """Write a case's files into ``folder``; return its paths and the options to use."""
    folder.mkdir(parents=True, exist_ok=True)

    def place(value, name: str, default: Path) -> str:
        if callable(value):  # bytes written when the case runs (tests/publisher_files.py)
            value = value()
        if value is None:
            return str(default)
        if value == MISSING:
            return str(folder / f"missing-{name}")
        if value == FOLDER:
            (folder / f"folder-{name}").mkdir(exist_ok=True)
            return str(folder / f"folder-{name}")
        if isinstance(value, str):
            return value
        path = folder / name
        path.write_bytes(value if isinstance(value, bytes) else json.dumps(value).encode())
        return str(path)

    if case.parts is not None:
        (folder / "parts").mkdir(exist_ok=True)
        for name, content in case.parts.items():
            (folder / "parts" / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / "parts" / name).write_bytes(content)
    if isinstance(case.data, str) and case.data.startswith(PARTS):
        data = case.data.replace(PARTS, str(folder / "parts"), 1)
    else:
        data = place(case.data, case.data_name, folder / "data.csv")
    if case.data is None:
        Path(data).write_bytes((shared / "good.csv").read_bytes())
    domain = place(case.domain, "domain.json", shared / "good.json")
    for name, content in case.existing.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(content)
    if case.kind == "paths":
        (folder / "link-to-data.csv").symlink_to(data)
        (folder / "hard-link.csv").hardlink_to(data)
    outputs = {}
    for flag, target in case.outputs.items():
        outputs[flag] = {SAME_AS_DATA: data, SAME_AS_DOMAIN: domain}.get(target) or (
            place(target, f"out-{flag}", folder)
            if target == FOLDER
            else target.replace(PARTS, str(folder / "parts"), 1)
            if target.startswith(PARTS)
            else ""
            if target == EMPTY
            else target
            if target.startswith("/")
            else str(folder / target)
        )
    options = dict(DEFAULT_OPTIONS) if case.command == "synth" else {}
    options.update(
        {
            flag: value
            if value is None
            else value.replace(HERE, str(folder)).replace(PARTS, str(folder / "parts")).replace(EMPTY, "")
            for flag, value in case.options
        }
    )
    return {"data": data, "domain": domain, "outputs": outputs, "options": options}


def cli_argv(case: Case, paths: dict) -> list[str]:
    if case.command == "tau":
        return ["tau", *[x for pair in paths["options"].items() for x in pair]]
    if case.command == "ledger":  # the ledger of the case's data (or of the --dataset named)
        chosen = [] if case.data is None else [paths["data"]]
        return ["ledger", *chosen, *[x for pair in paths["options"].items() for x in pair]]
    argv = ["synth", paths["data"], "--domain", paths["domain"]]
    for flag, value in paths["options"].items():
        argv += [flag] if value is None else [flag, value]
    for flag, value in paths["outputs"].items():
        argv += [flag, value]
    return argv


def _typed(value: str):
    """The value a Python user would pass: a number when it reads as one, else the text."""
    for cast in (int, float):
        try:
            return cast(value)
        except ValueError:
            continue
    return value


def api_kwargs(paths: dict) -> dict:
    names = {
        "--epsilon": "epsilon",
        "--rho": "rho",
        "--rows": "rows",
        "--seed": "random_state",
        "--delta": "delta",
        "--method": "method",
        "--encoding": "encoding",
        "--delimiter": "delimiter",
        "--engine": "engine",
        "--sheet": "sheet",
    }
    out = {}
    for flag, value in paths["options"].items():
        if flag == "--group":
            out["groups"] = [tuple(value.split(","))]
        elif flag in ("--encoding", "--delimiter", "--method", "--engine", "--sheet"):
            out[names[flag]] = value
        else:
            out[names[flag]] = _typed(value)
    return out


def run_api(data, domain, kwargs: dict) -> tuple[str, str]:
    """One case through the Python API: ``("ok", rows)`` or ``("error", the refusal's message)``."""
    from dpsynth_core import synthesize
    from dpsynth_core.errors import DPSynthError

    try:
        release = synthesize(data, domain, **kwargs)
    except DPSynthError as exc:
        return "error", str(exc)
    return "ok", f"{len(release.data)} rows"


def write_shared(shared: Path) -> None:
    shared.mkdir(parents=True, exist_ok=True)
    (shared / "good.csv").write_bytes(good_csv())
    (shared / "good.json").write_text(json.dumps(good_domain()))
