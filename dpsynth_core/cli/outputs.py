"""The command line's outputs: checked before any work, written whole or not at all.

:func:`check_outputs` is the one check every command's outputs pass: before anything is read or
recorded it refuses an empty name, ``-``, a folder or a device, one of the files the command reads,
another output, and a workspace's database (or its journal); :func:`write_all` writes every file
beside its final name and renames them all into place only once all are complete.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path

from ..errors import ParameterError


def same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and os.path.samefile(a, b))
    except OSError:
        return False


def output_path(value: str) -> str:
    """The argparse ``type`` of every flag that names a file a command writes: it marks the flag as an
    output, so the tests built from the parser find every output of every command (the value is
    checked later, with the others, by :func:`check_outputs`)."""
    return value


def input_path(value: str) -> str:
    """The argparse ``type`` of every argument that names a file a command reads: it marks it as an input,
    so the tests built from the parser aim every input of every command at ledgers and devices too."""
    return value


#: The help of every command's ``--domain`` that reads one declaration.
DOMAIN_HELP = "the domain declaration (JSON), or a Table Schema, a REDCap dictionary (CSV) or a DDI codebook (XML)"


#: The names a workspace's ledger database takes on disk (the database, its WAL and journal files).
_LEDGER_ENDINGS = ("", "-wal", "-shm", "-journal")

#: The kinds of file the commands write beside their tables, by the suffixes that name each. An output flag that
#: writes one kind refuses a name with another kind's suffix (``report --out report.pdf`` would hold an HTML page,
#: after its figures had spent budget), pointing to the flag that writes that kind; a script takes only its own.
FILE_KINDS = {"an HTML page": (".html", ".htm"), "a PDF": (".pdf",), "JSON": (".json",), "a Python script": (".py",)}
_ONLY_ITS_OWN = {"a Python script"}  # ``rerun.sh`` would hold Python that ``bash rerun.sh`` cannot run


def check_outputs(named, reads=(), workspaces=(), writes=None) -> list[tuple[str, Path]]:
    """Every output of a command, checked before anything is read or recorded: the one door for
    every file any command writes.

    ``named``: (flag, value) pairs, None for an output not asked for; ``reads``: (label, path) pairs of
    what the command reads (inputs, the declaration, a card), none of which may be replaced;
    ``workspaces``: workspace folders whose ledger must not be replaced (any file named like a
    workspace's database is refused anyway); ``writes``: the kind of file (:data:`FILE_KINDS`) each flag
    writes, whose name may not promise another kind. An output must be a new name in an existing, writable
    folder or an existing regular file; ``-`` (standard output) is refused by every command alike.
    """
    from ..workspace import FILE_NAME

    targets = []
    for flag, value in named:
        if value is None:
            continue
        if not str(value).strip():
            raise ParameterError(f"{flag} must name a file")
        if str(value).strip() == "-":
            raise ParameterError(f"{flag} -: standard output is not supported; name a file")
        targets.append((flag, Path(value)))
    ledgers = [Path(w).expanduser() / (FILE_NAME + end) for w in workspaces for end in _LEDGER_ENDINGS]
    for flag, path in targets:
        if path.name in {FILE_NAME + end for end in _LEDGER_ENDINGS} or any(same_file(path, db) for db in ledgers):
            raise ParameterError(f"{flag} ({path}) is a workspace's database: it would replace the budget ledger")
        folder = path.resolve().parent
        if not folder.is_dir():
            raise ParameterError(f"cannot write {path} ({flag}): its folder does not exist")
        if not os.access(folder, os.W_OK | os.X_OK):
            raise ParameterError(f"cannot write {path} ({flag}): its folder is not writable")
        if path.exists() or path.is_symlink():
            mode = path.stat().st_mode if path.exists() else 0
            if stat.S_ISDIR(mode):
                raise ParameterError(f"cannot write {path} ({flag}): it is a folder")
            if not stat.S_ISREG(mode):
                raise ParameterError(f"cannot write {path} ({flag}): it is not a regular file")
        for label, source in reads:
            if source is not None and same_file(path, Path(source)):
                raise ParameterError(f"{flag} ({path}) is the same file as {label}: it would be replaced")
    for i, (flag, path) in enumerate(targets):
        for other, second in targets[i + 1 :]:
            if same_file(path, second):
                raise ParameterError(f"{flag} and {other} name the same file ({path})")
    for flag, path in targets:
        _check_kind(flag, path, writes or {})
    return targets


def _check_kind(flag: str, path: Path, writes: dict) -> None:
    """Refuse a name whose suffix promises another kind of file than ``flag`` writes (:data:`FILE_KINDS`)."""
    kind = writes.get(flag)
    if kind is None:
        return
    suffix = path.suffix.lower()
    promised = next((k for k, suffixes in FILE_KINDS.items() if suffix in suffixes), None)
    if promised == kind or (promised is None and kind not in _ONLY_ITS_OWN):
        return
    better = path.with_suffix(FILE_KINDS[kind][0]).name if path.suffix else path.name + FILE_KINDS[kind][0]
    if promised is None:
        raise ParameterError(f"{flag} {path.name}: {flag} writes {kind}; name it {better}")
    instead = next((f for f, k in writes.items() if k == promised), None)
    also = f" ({instead} writes {promised})" if instead else ""
    raise ParameterError(
        f"{flag} {path.name}: {suffix} names {promised}, but {flag} writes {kind}; name it {better}{also}"
    )


#: What each command's output flags write (:data:`FILE_KINDS`); a table (``synth --out``) is named by its format.
WRITES = {
    "synth": {"--card": "JSON", "--card-html": "an HTML page", "--rerun-script": "a Python script"},
    "report": {"--out": "an HTML page", "--pdf": "a PDF", "--json": "JSON"},
    "compare": {"--json": "JSON"},
    "declare": {"--out": "JSON"},
    "check-persons": {"--out": "JSON"},
}


def check_targets(args) -> list[tuple[str, Path]]:
    """``synth``'s outputs (:func:`check_outputs`): the table, the cards and the rerun script."""
    named = [
        ("--out", args.out),
        ("--card", args.card),
        ("--card-html", args.card_html),
        ("--rerun-script", getattr(args, "rerun_script", None)),
    ]
    reads = [("the input", args.input), ("--domain", args.domain)]
    return check_outputs(named, reads, ledger_folders(getattr(args, "workspace", None)), WRITES["synth"])


def ledger_folders(workspace: str | None) -> list:
    """The workspace folders whose ledger a command's outputs must not replace: the default one and ``--workspace``."""
    from ..workspace import default_folder

    return [default_folder(), *([workspace] if workspace and workspace.strip() else [])]


def write_all(files: list[tuple[Path, bytes]], ready: tuple = ()) -> None:
    """Write every file to a temporary file beside it, then rename them all into place.

    ``ready``: (temporary file, final path) pairs already written (a table written in chunks).
    Nothing is renamed until every temporary file is complete, so a failure (a full disk, a
    folder that refuses the file) leaves every existing file as it was and no stray file.
    """
    mask = os.umask(0)
    os.umask(mask)
    written: list[tuple[str, Path]] = list(ready)
    try:
        for path, content in files:
            fd, temporary = tempfile.mkstemp(dir=path.resolve().parent, prefix=f".{path.name}.", suffix=".tmp")
            written.append((temporary, path))
            with os.fdopen(fd, "wb") as handle:
                handle.write(content)
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(temporary, 0o666 & ~mask)
        for temporary, path in written:
            os.replace(temporary, path)
    except BaseException:
        for temporary, _ in written:
            discard(temporary)
        raise


def discard(temporary) -> None:
    """Remove a temporary output: a file, or the folder of parts Spark wrote."""
    if Path(temporary).is_dir():
        shutil.rmtree(temporary, ignore_errors=True)
    else:
        Path(temporary).unlink(missing_ok=True)


def check_outside_input(targets: list, pattern: str, parts: list) -> None:
    """No output inside an input folder or matching an input glob: the next run would read it."""
    folder = Path(pattern).resolve() if Path(pattern).is_dir() else None
    for flag, path in targets:
        where = path.resolve()
        if any(same_file(path, part) for part in parts):
            raise ParameterError(f"{flag} ({path}) is one of the input's files: it would be replaced")
        if folder is not None and folder in where.parents:
            raise ParameterError(
                f"{flag} ({path}) is inside the input folder {pattern}: write it elsewhere "
                "(a later run would read it as part of the table)"
            )
        if folder is None and where.match(str(Path(pattern).resolve())):
            raise ParameterError(
                f"{flag} ({path}) matches the input glob {pattern!r}: write it elsewhere "
                "(a later run would read it as part of the table)"
            )


def check_apart_from_workspace(database: Path, data: str) -> None:
    """The workspace may not sit inside the input folder: its database would become part of the table.
    (Outputs naming the database are refused by :func:`check_outputs`.)"""
    source = Path(data)
    if source.is_dir():
        inside = source.resolve()
        if database.parent.resolve() == inside or inside in database.parent.resolve().parents:
            raise ParameterError(
                f"the workspace {database.parent} is inside the input folder {data}: choose another workspace folder"
            )
