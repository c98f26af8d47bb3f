"""Every output of every command goes through one check (:func:`dpsynth_core.cli.outputs.check_outputs`).

The cases are built from the parser itself: every subcommand's every flag whose argparse ``type`` is
:func:`~dpsynth_core.cli.outputs.output_path` is aimed at the ledger of the named workspace, the default
workspace's ledger and its journal, each file the command reads, a device node and a FIFO made in a
temporary folder, an empty name, ``-`` and a folder. Each must be refused in one line with exit status 2,
before anything is recorded, with every ledger and input byte for byte as it was. A command added later
with an output flag is covered as soon as it has a base command line below (the test says so if not).
"""

from __future__ import annotations

import json
import os
import stat

import numpy as np
import pandas as pd
import pytest

from dpsynth_core.cli import main
from dpsynth_core.cli.outputs import FILE_KINDS, WRITES, output_path
from dpsynth_core.cli.parser import build_parser
from dpsynth_core.data.examples import example_csv, example_declaration
from dpsynth_core.workspace import FILE_NAME, Workspace


def _output_flags() -> dict[str, list[str]]:
    """Subcommand -> its output flags, read from the parser."""
    parser = build_parser()
    sub = next(a for a in parser._actions if a.choices and isinstance(a.choices, dict))
    found = {}
    for name, command in sub.choices.items():
        flags = [a.option_strings[0] for a in command._actions if a.type is output_path and a.option_strings]
        if flags:
            found[name] = flags
    return found


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A real table, its declaration, a release recorded by ``synth`` in a named workspace, its card,
    and a default workspace holding a spend of its own."""
    folder = tmp_path_factory.mktemp("outputs")
    real, domain = folder / "real.csv", folder / "domain.json"
    real.write_bytes(example_csv("adult").read_bytes())
    domain.write_text(json.dumps(example_declaration("adult")))
    synthetic, card, workspace = folder / "synthetic.csv", folder / "card.json", folder / "ws"
    argv = ["synth", str(real), "--domain", str(domain), "--epsilon", "0.5", "--method", "cathist"]
    assert main([*argv, "--out", str(synthetic), "--card", str(card), "--workspace", str(workspace)]) == 0
    default = folder / "default-ws"
    os.environ["DPSYNTH_WORKSPACE"] = str(default)
    try:
        assert main([*argv, "--out", str(folder / "other.csv")]) == 0
    finally:
        del os.environ["DPSYNTH_WORKSPACE"]
    return {
        "folder": folder,
        "real": real,
        "domain": domain,
        "synthetic": synthetic,
        "card": card,
        "workspace": workspace,
        "default": default,
    }


def _base_commands(f) -> dict[str, list[str]]:
    """A command line of each subcommand with outputs that would work as it is, output flags left out."""
    tables = [str(f["real"]), str(f["synthetic"]), "--domain", str(f["domain"])]
    return {
        "synth": ["synth", str(f["real"]), "--domain", str(f["domain"]), "--epsilon", "0.5", "--method", "cathist"]
        + ["--workspace", str(f["workspace"])],
        "compare": ["compare", *tables],
        "report": ["report", *tables, "--epsilon", "0.1", "--workspace", str(f["workspace"]), "--card", str(f["card"])],
        "declare": ["declare", str(f["real"])],
        "check-persons": ["check-persons", str(f["real"]), "--domain", str(f["domain"]), "--person", "fnlwgt"]
        + ["--max-rows-per-person", "2", "--workspace", str(f["workspace"])],
    }


def _fine_outputs(f, flags) -> list[str]:
    """Every output flag of a command pointed at a new, harmless name."""
    names = {"--out": "out.file", "--card": "card.out.json", "--card-html": "card.html", "--json": "figures.json"}
    names["--rerun-script"] = "rerun.py"
    argv = []
    for flag in flags:
        argv += [flag, str(f["folder"] / "fine" / names.get(flag, flag.strip("-") + ".out"))]
    return argv


def _targets(f, command: str) -> dict[str, str]:
    """Where a wrong output may point: every ledger, everything the command reads, devices, odd names."""
    folder = f["folder"]
    fifo = folder / "a-fifo"
    if not fifo.exists():
        os.mkfifo(fifo)
    targets = {
        "the named workspace's ledger": str(f["workspace"] / FILE_NAME),
        "the named workspace's journal": str(f["workspace"] / (FILE_NAME + "-wal")),
        "the default workspace's ledger": str(f["default"] / FILE_NAME),
        "the real table": str(f["real"]),
        "the declaration": str(f["domain"]),
        "a FIFO": str(fifo),
        "an empty name": "",
        "standard output": "-",
        "a folder": str(folder),
        "a workspace folder": str(f["workspace"]),
    }
    if command in ("compare", "report"):
        targets["the synthetic table"] = str(f["synthetic"])
    if command == "report":
        targets["the card it reads"] = str(f["card"])
    device = folder / "full"
    if os.geteuid() == 0:  # a character device like /dev/full, made here so that nothing of the system is at risk
        if not device.exists():
            os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 7))
        targets["a device"] = str(device)
    return targets


def _state(f) -> dict:
    """The bytes of every ledger and input, and each ledger's spends as it reads them."""
    paths = [f["real"], f["domain"], f["synthetic"], f["card"]]
    paths += [w / FILE_NAME for w in (f["workspace"], f["default"])]
    spends = {str(w): len(Workspace(w, read_only=True).ledger.spends()) for w in (f["workspace"], f["default"])}
    return {"bytes": {str(p): p.read_bytes() for p in paths}, "spends": spends}


def test_every_output_flag_of_every_command_is_known_to_this_test(files):
    flags = _output_flags()
    assert set(flags) == set(_base_commands(files)), "a command with outputs needs a base command line here"
    assert flags["compare"] == ["--json"]
    assert set(flags["report"]) == {"--out", "--pdf", "--json"}
    assert set(flags["synth"]) == {"--out", "--card", "--card-html", "--rerun-script"}
    assert flags["declare"] == ["--out"] and flags["check-persons"] == ["--out"]


def test_every_output_aimed_at_a_ledger_an_input_or_a_device_is_refused_in_one_line(files, capsys, monkeypatch):
    monkeypatch.setenv("DPSYNTH_WORKSPACE", str(files["default"]))
    (files["folder"] / "fine").mkdir(exist_ok=True)
    before = _state(files)
    base = _base_commands(files)
    failures = []
    for command, flags in _output_flags().items():
        for flag in flags:
            others = [f for f in flags if f != flag and (f != "--pdf")]
            for what, target in _targets(files, command).items():
                argv = [*base[command], *_fine_outputs(files, others), flag, target]
                status = main(argv)
                err = capsys.readouterr().err.strip()
                if status != 2 or len(err.splitlines()) != 1 or not err.startswith("error:"):
                    failures.append(f"{command} {flag} at {what}: exit {status}, {err!r}")
    assert failures == []
    assert _state(files) == before
    assert not any((files["folder"] / "fine").iterdir()), "a refused command wrote an output"


#: A name promising another kind of file than its flag writes, and the one line that refuses it.
_WRONG_KINDS = [
    (
        "synth",
        "--rerun-script",
        "rerun.sh",
        "--rerun-script rerun.sh: --rerun-script writes a Python script; name it rerun.py",
    ),
    (
        "synth",
        "--card",
        "card.html",
        "--card card.html: .html names an HTML page, but --card writes JSON; name it card.json (--card-html writes an "
        "HTML page)",
    ),
    (
        "report",
        "--out",
        "report.pdf",
        "--out report.pdf: .pdf names a PDF, but --out writes an HTML page; name it report.html (--pdf writes a PDF)",
    ),
    (
        "compare",
        "--json",
        "figures.HTM",
        "--json figures.HTM: .htm names an HTML page, but --json writes JSON; name it figures.json",
    ),
    (
        "declare",
        "--out",
        "start.py",
        "--out start.py: .py names a Python script, but --out writes JSON; name it start.json",
    ),
]


@pytest.mark.parametrize("command, flag, name, said", _WRONG_KINDS, ids=[f"{c} {f} {n}" for c, f, n, _ in _WRONG_KINDS])
def test_a_name_promising_another_kind_of_file_is_refused_before_any_work(
    files, capsys, monkeypatch, command, flag, name, said
):
    """``report --out report.pdf`` would write an HTML page named as a PDF after its figures spent budget, and
    ``--rerun-script rerun.sh`` Python that ``bash rerun.sh`` cannot run: each is refused in one line that names the
    right name (and the flag that writes what the name promised), and nothing is read, written or recorded."""
    monkeypatch.setenv("DPSYNTH_WORKSPACE", str(files["default"]))
    before = _state(files)
    out = files["folder"] / "refused"
    out.mkdir(exist_ok=True)
    others = [
        f for f in _output_flags()[command] if f != flag and f != "--pdf" and (command != "synth" or f == "--out")
    ]
    argv = [*_base_commands(files)[command], *_fine_outputs(files, others), flag, str(out / name)]
    assert main(argv) == 2
    assert capsys.readouterr().err.strip() == f"error: {said}"
    assert _state(files) == before and not any(out.iterdir())
    assert not (files["folder"] / "fine").exists() or not any((files["folder"] / "fine").iterdir())


def test_a_name_of_the_right_kind_in_any_case_or_of_no_known_kind_is_written(files, capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("DPSYNTH_WORKSPACE", str(files["default"]))
    argv = [*_base_commands(files)["synth"], "--out", str(tmp_path / "synthetic.csv"), "--rerun-script"]
    assert main([*argv, str(tmp_path / "rerun.PY"), "--card", str(tmp_path / "card.txt")]) == 0, capsys.readouterr()
    assert (tmp_path / "rerun.PY").read_text().startswith('"""Rerun of a dpsynth release')
    assert json.loads((tmp_path / "card.txt").read_text())["method"]["name"] == "cathist"


def test_every_output_flag_but_a_table_says_what_kind_of_file_it_writes():
    """The kinds come from one table (``WRITES``), checked against the parser: a new output flag needs its kind."""
    tables = {("synth", "--out")}
    kinds = {(command, flag) for command, flags in WRITES.items() for flag in flags}
    assert kinds == {(c, f) for c, flags in _output_flags().items() for f in flags} - tables
    assert {k for flags in WRITES.values() for k in flags.values()} <= set(FILE_KINDS)


def test_a_refused_report_records_nothing_and_a_good_one_records_once(files, capsys, monkeypatch):
    monkeypatch.setenv("DPSYNTH_WORKSPACE", str(files["default"]))
    base = _base_commands(files)["report"]
    spends = len(Workspace(files["workspace"], read_only=True).ledger.spends())
    assert main([*base, "--out", str(files["workspace"] / FILE_NAME)]) == 2
    assert len(Workspace(files["workspace"], read_only=True).ledger.spends()) == spends
    assert main([*base, "--out", str(files["folder"] / "report.html")]) == 0
    assert len(Workspace(files["workspace"], read_only=True).ledger.spends()) == spends + 1
    capsys.readouterr()


@pytest.mark.parametrize(
    "card, message",
    [("{", "is not a release card: it is not JSON"), ("[1, 2]", "lacks a card's method"), (None, "file not found")],
)
def test_a_card_that_is_not_a_card_is_refused_in_one_line(files, tmp_path, capsys, monkeypatch, card, message):
    monkeypatch.setenv("DPSYNTH_WORKSPACE", str(files["default"]))
    path = tmp_path / "not-a-card.json"
    if card is not None:
        path.write_text(card)
    base = [a if a != str(files["card"]) else str(path) for a in _base_commands(files)["report"]]
    before = _state(files)
    assert main([*base, "--out", str(tmp_path / "report.html")]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1
    assert _state(files) == before


def test_the_stated_maximum_epsilon_of_a_report_works(files, tmp_path, capsys, monkeypatch):
    from dpsynth_core import constraints

    monkeypatch.setenv("DPSYNTH_WORKSPACE", str(files["default"]))
    base = [a if a != "0.1" else f"{constraints.MECHANISM_EPSILON_MAX:g}" for a in _base_commands(files)["report"]]
    assert main([*base, "--out", str(tmp_path / "report.html")]) == 0, capsys.readouterr().err
    assert (tmp_path / "report.html").stat().st_size > 0


@pytest.mark.parametrize("records", ["²", "9" * 5000, "0", "-1", ""])
def test_tau_refuses_records_that_are_not_a_whole_number_in_one_line(records, capsys):
    assert main(["tau", "--size", "100", "--rho", "0.9", "--epsilon", "1", "--records", records]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: --records") and len(err.splitlines()) == 1


def test_a_report_under_an_address_space_limit_renders_without_charts_not_a_crash(files, tmp_path):
    """vl-convert's V8 aborts the process (exit 133, a C stack trace) when it cannot reserve its address
    space; the report then leaves its charts out, says so, and keeps every figure in its tables."""
    import resource
    import subprocess
    import sys

    from tests.conftest import ROOT

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (4_000_000 * 1024, resource.RLIM_INFINITY))

    out = tmp_path / "report.html"
    argv = [a if a != "0.1" else "0.5" for a in _base_commands(files)["report"]]
    env = {**os.environ, "DPSYNTH_WORKSPACE": str(files["default"]), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "dpsynth_core", *argv, "--out", str(out)],
        preexec_fn=limit,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-500:]
    page = out.read_text()
    assert "Chart left out" in page and "<svg" not in page


def test_sigterm_caught_inside_a_library_still_ends_as_terminated(monkeypatch, capsys, tmp_path):
    """A library may turn the interrupt into its own error (DuckDB raises its InterruptException inside a
    query): the run still ends as "terminated" with status 143, not as an internal error."""
    import signal

    from dpsynth_core.cli import synth

    def run_interrupted_inside_a_library(args):
        try:
            os.kill(os.getpid(), signal.SIGTERM)
        except KeyboardInterrupt:
            raise RuntimeError("INTERRUPT Error: Interrupted!") from None

    monkeypatch.setattr(synth, "run_synth", run_interrupted_inside_a_library)
    argv = ["synth", "in.csv", "--domain", "d.json", "--epsilon", "1", "--out", str(tmp_path / "o.csv")]
    assert main(argv) == 143
    assert capsys.readouterr().err.strip() == "error: terminated; nothing was written"
    monkeypatch.undo()
    assert main(["tau", "--size", "10", "--rho", "0.9", "--epsilon", "1"]) == 0  # the next run starts afresh


def test_sigterm_that_comes_while_a_finaliser_runs_still_ends_the_run(monkeypatch, capsys, tmp_path):
    """A SIGTERM that comes while the garbage collector runs a finaliser (a ``__del__``, a weakref's callback) was
    raised there, where Python prints an exception and goes on: the run went on to write its output and ended with
    0 (seen once in CI, Spark's run of ``test_sigterm_while_the_engine_holds_a_parquet_copy_leaves_nothing_behind``).
    It is raised again once the finaliser has returned."""
    import signal
    import time

    from dpsynth_core.cli import synth

    finished = []

    class Finalised:
        def __del__(self):
            os.kill(os.getpid(), signal.SIGTERM)  # the handler runs here, inside the finaliser

    def run_with_a_finaliser(args):
        Finalised()  # dropped at once: its __del__ runs now
        time.sleep(2)  # the rest of the run, which the termination must stop
        finished.append(True)

    monkeypatch.setattr(synth, "run_synth", run_with_a_finaliser)
    argv = ["synth", "in.csv", "--domain", "d.json", "--epsilon", "1", "--out", str(tmp_path / "o.csv")]
    handlers = signal.getsignal(signal.SIGALRM), signal.getsignal(signal.SIGTERM)
    assert main(argv) == 143 and finished == []
    assert capsys.readouterr().err.strip().endswith("error: terminated; nothing was written")
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)  # no alarm left armed
    assert (signal.getsignal(signal.SIGALRM), signal.getsignal(signal.SIGTERM)) == handlers  # both given back


def test_a_release_made_by_synth_is_found_by_the_file_it_wrote(files, tmp_path, capsys, monkeypatch):
    """``synth --workspace --out F`` records F's digest: ``report`` finds the release by F alone; F with a
    row appended is not the release, with or without the release's --card."""
    monkeypatch.setenv("DPSYNTH_WORKSPACE", str(files["default"]))
    base = _base_commands(files)["report"]
    without_card = base[: base.index("--card")]
    assert main([*without_card, "--out", str(tmp_path / "report.html")]) == 0, capsys.readouterr().err
    changed = tmp_path / "changed.csv"
    lines = files["synthetic"].read_text().splitlines(keepends=True)
    changed.write_text("".join(lines) + lines[-1])
    before = _state(files)
    for argv in (without_card, base):
        argv = [a if a != str(files["synthetic"]) else str(changed) for a in argv]
        assert main([*argv, "--out", str(tmp_path / "report2.html")]) == 2
        err = capsys.readouterr().err
        assert "is not a release of this real table" in err and len(err.strip().splitlines()) == 1
    assert _state(files) == before and not (tmp_path / "report2.html").exists()


def test_a_card_of_another_release_is_refused(files, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("DPSYNTH_WORKSPACE", str(files["default"]))
    other_card = tmp_path / "other.card.json"
    argv = ["synth", str(files["real"]), "--domain", str(files["domain"]), "--epsilon", "0.5", "--method", "cathist"]
    argv += ["--workspace", str(files["workspace"]), "--out", str(tmp_path / "other.csv"), "--card", str(other_card)]
    assert main(argv) == 0
    base = [a if a != str(files["card"]) else str(other_card) for a in _base_commands(files)["report"]]
    assert main([*base, "--out", str(tmp_path / "report.html")]) == 2
    assert "--card is not the card of" in capsys.readouterr().err


def _in_process(argv, stdin: bytes | None, capsys, monkeypatch):
    """``dpsynth`` in this process with standard input holding ``stdin`` (not a terminal): (exit, out, err)."""
    import io

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(stdin or b""), encoding="utf-8"))
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def test_accounts_and_links_refuse_what_is_not_there_in_one_line(tmp_path, capsys, monkeypatch):
    def _cli(argv, stdin=None):  # in this process: the same main, quicker than a process each
        return _in_process(argv, stdin, capsys, monkeypatch)

    ws = ["--workspace", str(tmp_path / "ws")]
    assert _cli(["account", "add", "alice", *ws], b"correct horse battery\n")[0] == 0
    cases = [
        (["account", "add", "alice", *ws], b"another long password\n", "exists: to set a new password, say --replace"),
        (["account", "add", "bad name", *ws], b"correct horse battery\n", "an account name is"),
        (["account", "add", "bob", *ws], b"", "no password given"),
        (["account", "add", "bob", *ws], b"\xff\xfe not utf-8 at all\n", "not text in UTF-8"),
        (["account", "remove", "nobody", *ws], None, "there is no account 'nobody'"),
        (["account", "list", "--workspace", ""], None, "--workspace must name a folder"),
        (["review-link", "list", "--workspace", ""], None, "--workspace must name a folder"),
        (["review-link", "add", "1", "abc", "-3", *ws], None, "release number 2 ('abc') is not a release number"),
        (["review-link", "add", "²", *ws], None, "release number 1 ('²')"),
        (["review-link", "add", *ws], None, "needs at least one release number"),
        (["review-link", "revoke", *ws], None, "needs the id of a link"),
        (["review-link", "revoke", "0123456789ab", *ws], None, "there is no reviewer link 0123456789ab"),
        (["review-link", "revoke", "xyz", *ws], None, "is not a link id"),
    ]
    for argv, stdin, message in cases:
        status, out, err = _cli(argv, stdin)
        assert status == 2 and message in err and len(err.strip().splitlines()) == 1, (argv, status, out, err)
    assert _cli(["account", "add", "alice", "--replace", *ws], b"another long password\n")[0] == 0
    assert _cli(["account", "list", *ws])[1].split() == ["alice"]
    assert not (tmp_path / "ws" / "workspace.sqlite").with_name("x").exists()
    assert "\x1b" not in _cli(["account", "remove", "\x1b[2Jevil", *ws])[2]


def test_a_report_follows_its_releases_person_unit_and_a_seeded_report_guarantees_nothing(tmp_path, capsys):
    """``report`` reads the unit from the stored release, not from the declaration it is given: on a
    release per patient (K = 3) its noise is K times the per-record report's, its spend is recorded per
    person; with --seed it is recorded with no guarantee, says so on its page, and a lifetime budget refuses it."""
    rng = np.random.default_rng(2)
    frame = pd.DataFrame(
        {
            "pid": [f"P{i // 3}" for i in range(900)],
            "ward": rng.choice(["a", "b", "c"], 900),
            "age": rng.integers(0, 99, 900),
        }
    )
    data = tmp_path / "visits.csv"
    frame.to_csv(data, index=False)
    columns = {
        "pid": {"type": "drop"},
        "ward": {"type": "categorical", "values": ["a", "b", "c"]},
        "age": {"type": "integer", "min": 0, "max": 99, "bin_width": 10},
    }
    domain = tmp_path / "visits.domain.json"
    domain.write_text(json.dumps({"columns": columns}))
    margins = {}
    for unit, extra in (("person", ["--person", "pid", "--max-rows-per-person", "3"]), ("row", [])):
        ws, out = tmp_path / f"ws-{unit}", tmp_path / f"syn-{unit}.csv"
        argv = ["synth", str(data), "--domain", str(domain), "--epsilon", "1", "--method", "cathist"]
        assert main([*argv, *extra, "--workspace", str(ws), "--out", str(out)]) == 0
        figures = tmp_path / f"figures-{unit}.json"
        report = ["report", str(data), str(out), "--domain", str(domain), "--epsilon", "0.5", "--workspace", str(ws)]
        assert main([*report, "--out", str(tmp_path / f"r-{unit}.html"), "--json", str(figures)]) == 0
        margins[unit] = json.loads(figures.read_text())["rows"]["margin"]
        [_, spend] = Workspace(ws, read_only=True).ledger.spends()
        assert spend["purpose"] == "report" and spend["guaranteed"]
        assert ("add/remove one person" in spend["neighbouring"]) == (unit == "person")
    assert margins["person"] >= 2.5 * margins["row"]  # sensitivity K = 3: three times the scale
    ws = tmp_path / "ws-person"
    seeded = ["report", str(data), str(tmp_path / "syn-person.csv"), "--domain", str(domain), "--epsilon", "0.5"]
    seeded += ["--workspace", str(ws), "--seed", "7"]
    assert main([*seeded, "--out", str(tmp_path / "seeded.html")]) == 0
    assert not Workspace(ws, read_only=True).ledger.spends()[-1]["guaranteed"]
    assert "Not private" in (tmp_path / "seeded.html").read_text()
    capsys.readouterr()
    assert main(["ledger", str(data), "--workspace", str(ws), "--limit", "100"]) == 0
    assert main([*seeded, "--out", str(tmp_path / "seeded2.html")]) == 2
    assert "no differential-privacy guarantee" in capsys.readouterr().err


def _input_arguments() -> dict[str, list[str]]:
    """Subcommand -> the dests of its arguments typed ``input_path`` (read from the parser)."""
    from dpsynth_core.cli.outputs import input_path

    parser = build_parser()
    sub = next(a for a in parser._actions if a.choices and isinstance(a.choices, dict))
    return {
        name: [a.dest for a in command._actions if a.type is input_path]
        for name, command in sub.choices.items()
        if any(a.type is input_path for a in command._actions)
    }


def test_every_input_of_every_command_aimed_at_a_ledger_or_a_device_is_refused_in_one_line(files, capsys, monkeypatch):
    """Every argument a command reads (typed ``input_path`` in the parser), aimed at the named and the
    default workspace's ledger, a device, a folder and an empty name: one line, exit 2, every ledger and
    input as it was. (A FIFO is left out here: reading one waits for its writer, as ``cat`` does.)"""
    monkeypatch.setenv("DPSYNTH_WORKSPACE", str(files["default"]))
    inputs = _input_arguments()
    assert set(inputs) == {"synth", "compare", "report", "ledger", "declare", "check-persons", "check-declaration"}, (
        "a command reads files: give it a base line"
    )
    base = {**_base_commands(files), "ledger": ["ledger", str(files["real"]), "--workspace", str(files["workspace"])]}
    base["check-declaration"] = ["check-declaration", str(files["real"]), "--domain", str(files["domain"])]
    out = {"synth": ["--out", str(files["folder"] / "fine" / "o.csv")], "compare": ["--json", "x.json"]}
    out["report"] = ["--out", str(files["folder"] / "fine" / "r.html")]
    out["compare"] = ["--json", str(files["folder"] / "fine" / "c.json")]
    out["declare"] = ["--out", str(files["folder"] / "fine" / "d.json")]
    out["check-persons"] = ["--out", str(files["folder"] / "fine" / "p.json")]
    (files["folder"] / "fine").mkdir(exist_ok=True)
    targets = {
        "the named workspace's ledger": str(files["workspace"] / FILE_NAME),
        "the default workspace's ledger": str(files["default"] / FILE_NAME),
        "a folder": str(files["folder"] / "fine"),
        "an empty name": "",
    }
    if os.geteuid() == 0:
        device = files["folder"] / "zero"
        if not device.exists():
            os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 5))  # like /dev/zero, made here
        targets["a device"] = str(device)
    before = _state(files)
    failures = []
    positional = {
        "synth": ["input"],
        "compare": ["real", "synthetic"],
        "report": ["real", "synthetic"],
        "ledger": ["input"],
        "declare": ["input"],
        "check-persons": ["input"],
        "check-declaration": ["input"],
    }
    for command, dests in inputs.items():
        for dest in dests:
            for what, target in targets.items():
                argv = list(base[command]) + out.get(command, [])
                if dest in positional[command]:
                    argv[1 + positional[command].index(dest)] = target
                else:
                    flag = "--" + dest.replace("_", "-")
                    argv = argv[: argv.index(flag)] + argv[argv.index(flag) + 2 :] if flag in argv else argv
                    argv += [flag, target]
                status = main(argv)
                err = capsys.readouterr().err.strip()
                if status != 2 or len(err.splitlines()) != 1 or not err.startswith("error:"):
                    failures.append(f"{command} {dest} at {what}: exit {status}, {err[:200]!r}")
    assert failures == []
    assert _state(files) == before
    assert not any((files["folder"] / "fine").iterdir())


@pytest.mark.parametrize(
    "dest,bad_values,words",
    [
        ("header_row", ("0", "x", "-3"), "header row"),
        ("header_rows", ("-1", "x", "6"), "header rows"),
        ("names", ("a,,b", "a,a", ","), "column name"),
    ],
)
def test_every_commands_header_row_is_checked_by_the_one_check_in_one_line(
    files, capsys, monkeypatch, dest, bad_values, words
):
    """Every command with a ``--header-row``, ``--header-rows`` or ``--names`` (found from the parser) refuses one that
    is not a line or row number (a number of rows from 0, no header, to 5) or a list of distinct names, in one line
    naming it (:func:`dpsynth_core.validation.check_sheet`, :func:`~dpsynth_core.validation.check_header_rows`,
    :func:`~dpsynth_core.validation.check_names`), before anything is drawn or recorded."""
    monkeypatch.setenv("DPSYNTH_WORKSPACE", str(files["default"]))
    parser = build_parser()
    sub = next(a for a in parser._actions if a.choices and isinstance(a.choices, dict))
    taking = sorted(name for name, cmd in sub.choices.items() if any(a.dest == dest for a in cmd._actions))
    assert taking == ["check-declaration", "check-persons", "compare", "declare", "report", "synth"]
    flag = "--" + dest.replace("_", "-")
    base = _base_commands(files)
    base["check-declaration"] = ["check-declaration", str(files["real"]), "--domain", str(files["domain"])]
    out = {"synth": ["--out"], "compare": ["--json"], "report": ["--out"], "declare": ["--out"]}
    (files["folder"] / "fine").mkdir(exist_ok=True)
    before = _state(files)
    for command in taking:
        for bad in bad_values:
            argv = [*base[command], *_fine_outputs(files, out.get(command, [])), flag, bad]
            assert main(argv) == 2, (command, bad)
            err = capsys.readouterr().err.strip()
            assert err.count("\n") == 0 and words in err, (command, bad, err)
    assert _state(files) == before
