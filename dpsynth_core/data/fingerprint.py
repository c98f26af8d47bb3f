"""The ledger's key for a table: a fingerprint of its file or files."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path


def fingerprint(raw: bytes) -> str:
    """The SHA-256 of a file's bytes, in hex: the same file always gets the same ledger."""
    return hashlib.sha256(raw).hexdigest()



def fingerprint_file(path) -> str:
    """The SHA-256 of a file's bytes (read in blocks): :func:`fingerprint` without holding the file."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()



def fingerprint_files(paths) -> str:
    """The ledger key of a table stored as several files (a folder or glob of Parquet parts).

    One file: its own SHA-256, so a file and a folder holding only that file share a ledger.
    Several: the SHA-256 of a manifest with one line per file, ``<SHA-256 of its bytes>  <name>``
    and a line end, in order of name, where a name is the file's path relative to the deepest
    folder holding them all (``/`` between folders). That manifest is what ``sha256sum``
    prints, so ``cd data && LC_ALL=C sha256sum *.parquet | sha256sum`` gives the same key for
    a folder of plain names. It changes when a file's bytes, a name or the set of files change.
    """
    paths = [Path(p) for p in paths]
    if not paths:
        raise ValueError("no files to fingerprint")
    if len(paths) == 1:
        return fingerprint_file(paths[0])
    root = Path(os.path.commonpath([str(p.absolute().parent) for p in paths]))
    named = sorted((p.absolute().relative_to(root).as_posix(), p) for p in paths)
    manifest = "".join(f"{fingerprint_file(path)}  {name}\n" for name, path in named)
    return hashlib.sha256(manifest.encode("utf-8", "surrogateescape")).hexdigest()
