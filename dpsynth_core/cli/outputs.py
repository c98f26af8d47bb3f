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


def check_outputs(named, reads=(), workspaces=()) -> list[tuple[str, Path]]:
    """Every output of a command, checked before anything is read or recorded: the one door for
    every file any command writes.

    ``named``: (flag, value) pairs, None for an output not asked for; ``reads``: (label, path) pairs of
    what the command reads (inputs, the declaration, a card), none of which may be replaced;
    ``workspaces``: workspace folders whose ledger must not be replaced (any file named like a
    workspace's database is refused anyway). An output must be a new name in an existing, writable
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
    return targets


def check_targets(args) -> list[tuple[str, Path]]:
    """``synth``'s outputs (:func:`check_outputs`): the table, the cards and the rerun script (a Python
    script, so named ``.py``: ``x.sh`` would hold Python that ``bash x.sh`` cannot run)."""
    named = [
        ("--out", args.out),
        ("--card", args.card),
        ("--card-html", args.card_html),
        ("--rerun-script", getattr(args, "rerun_script", None)),
    ]
    reads = [("the input", args.input), ("--domain", args.domain)]
    targets = check_outputs(named, reads, ledger_folders(getattr(args, "workspace", None)))
    for flag, path in targets:
        if flag == "--rerun-script" and path.suffix.lower() != ".py":
            raise ParameterError(
                f"--rerun-script {path}: the rerun script is a Python script; name it with .py "
                f"({path.with_suffix('.py').name})"
            )
    return targets


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
