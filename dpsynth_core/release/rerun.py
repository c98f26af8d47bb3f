"""Releases an auditor can rerun: the settings of a release as JSON, and a short Python script.

The script reruns a release with the library on the same file: the same method, settings,
declaration (with its privacy unit) and budget, and a fresh secure seed (a release's seed is never
published, so a rerun draws new noise: it is a new release, not a copy). It records its draw in a
workspace's budget ledger, so a rerun spends the budget again and is refused past a lifetime limit.

Everything here is public: the settings are the publisher's choices, never read off the data, and
hold no seed.
"""

from __future__ import annotations

import json
from pathlib import Path

from .. import __version__
from ..synthesizers.options import parse_group

#: The settings that decide a release (besides the declaration), in the order the script shows them.
_KEYS = (
    *("method", "epsilon", "rho", "rows", "options"),
    *("encoding", "delimiter", "sheet", "header_row", "header_rows", "names", "engine", "person"),
)


def rerun_settings(release) -> dict:
    """The public settings of a release, enough to rerun it: method, epsilon, rho, rows (None: a noisy
    count), the method's options, how the file is read (a CSV's encoding and delimiter, a spreadsheet's
    sheet, the header's row and how many rows it spans, the names of a file without one), the engine and the person
    unit (None: a row).

    ``release``: a :class:`~dpsynth_core.release.Release`, a stored release
    (:class:`~dpsynth_core.workspace.StoredRelease`) or the app's entry for one (a dict with
    ``settings`` and ``card``).
    """
    settings = release["settings"] if isinstance(release, dict) else release.settings
    card = release["card"] if isinstance(release, dict) else release.card
    options = dict(settings.get("options") or {})
    if settings.get("groups"):  # the app's and the CLI's stored form
        options["groups"] = [list(parse_group(g)) if isinstance(g, str) else list(g) for g in settings["groups"]]
    if settings.get("delta") is not None:
        options["delta"] = float(settings["delta"])
    declaration = settings.get("declaration") or {}
    person = settings.get("person") or declaration.get("person")
    out = {
        "method": settings.get("method") or card["method"]["name"],
        "epsilon": float(settings["epsilon"]),
        "rho": float(settings.get("rho", card["parameters"]["rho"])),
        "rows": settings.get("rows"),
        "options": {k: [list(g) for g in v] if k == "groups" and v else v for k, v in options.items()},
        "encoding": settings.get("encoding"),
        "delimiter": settings.get("delimiter"),
        "sheet": settings.get("sheet"),
        "header_row": settings.get("header_row"),
        "header_rows": settings.get("header_rows"),
        "names": list(settings["names"]) if settings.get("names") else None,
        "engine": settings.get("engine") or "auto",
        "person": person,
    }
    return {key: out[key] for key in _KEYS}


def rerun_declaration(release) -> dict | None:
    """The declaration a release used (its JSON form), when the release kept it."""
    settings = release["settings"] if isinstance(release, dict) else release.settings
    return settings.get("declaration")


def rerun_script(release, *, data: str = "data.csv", declaration: str = "declaration.json") -> str:
    """A short Python script that reruns ``release`` (see :func:`rerun_settings`) on the file ``data``
    with the declaration in the file ``declaration`` (the defaults the script's arguments start from)."""
    settings = rerun_settings(release)
    card = release["card"] if isinstance(release, dict) else release.card
    literal = "{\n" + "".join(f"    {key!r}: {value!r},\n" for key, value in settings.items()) + "}"
    title = card.get("title", "Synthetic data release")
    return _TEMPLATE.format(
        title=title,
        created=card.get("created", "?"),
        version=__version__,
        method=settings["method"],
        epsilon=settings["epsilon"],
        settings=literal,
        data=json.dumps(Path(data).name if data else "data.csv"),
        declaration=json.dumps(str(declaration)),
    )


def write_rerun_files(release, folder, *, stem: str = "release", data: str = "data.csv") -> list[Path]:
    """Write the script, the settings and the declaration of ``release`` into ``folder``; their paths."""
    folder = Path(folder)
    declaration = f"{stem}.domain.json"
    files = {
        f"rerun_{stem}.py": rerun_script(release, data=data, declaration=declaration),
        f"{stem}.settings.json": json.dumps(rerun_settings(release), indent=2) + "\n",
        declaration: json.dumps(rerun_declaration(release), indent=2) + "\n",
    }
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return [folder / name for name in files]


_TEMPLATE = '''"""Rerun of a dpsynth release: {title} (made {created} with dpsynth {version}).

Same method ({method}), settings, declaration and budget (epsilon {epsilon}); a fresh secure seed, so
the noise is new: this is a new release, not a copy of the first. The draw is recorded in the
workspace's budget ledger (it spends the budget again, and is refused past a lifetime limit).

    python this_script.py DATA.csv [--declaration DECLARATION.json] [--workspace FOLDER] [--out OUT.csv]

Run it with a Python that has the dpsynth library, from any folder: in the app's folder,
`bash scripts/start-app.sh` installs it into `.venv`, so `.venv/bin/python this_script.py ...` works
(or `pip install .` in the dpsynth source folder, into the environment you use).
"""

import argparse
import json
import sys
from pathlib import Path

try:
    from dpsynth_core.domain.declaration import parse_declaration, read_declaration_bytes
    from dpsynth_core.errors import DPSynthError
    from dpsynth_core.release import prepare
    from dpsynth_core.usecases import draw
    from dpsynth_core.wording import guarantee_line
    from dpsynth_core.workspace import Workspace
except ImportError as missing:  # no library, or another version that lacks what the script calls: one line
    other = "; this Python has another version of it, lacking " if "dpsynth_core." in str(missing.name) else "; "
    sys.exit(f"error: this script needs the dpsynth library (the release was made with {version}{{other}}{{missing}}"
             f"): run it with the Python of an environment that has it, or install it there (`pip install .`)")

SETTINGS = {settings}
DATA, DECLARATION = {data}, {declaration}  # the file it was made from and its declaration, as saved


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = Path(__file__).resolve().parent  # the declaration is saved beside this script or the data file
    parser.add_argument("data", nargs="?", help="the same sensitive file (default: " + DATA + ", here or beside "
                        "this script)")
    parser.add_argument("--declaration", help="the release's declaration (default: " + DECLARATION + ", beside this "
                        "script, here or beside the data file)")
    parser.add_argument("--workspace", help="the workspace whose ledger records the draw (default: ~/.dpsynth)")
    parser.add_argument("--out", default="rerun_synthetic.csv", help="where to write the synthetic table")
    args = parser.parse_args()
    args.data = args.data or next((str(p) for p in (Path(DATA), here / DATA) if p.is_file()), DATA)
    beside = [here / DECLARATION, Path(DECLARATION), Path(args.data).parent / DECLARATION]  # saved with the script
    found = args.declaration or next((p for p in beside if p.is_file()), beside[0])

    declaration = parse_declaration(read_declaration_bytes(found), str(found))  # JSON, or a data dictionary
    if SETTINGS["person"]:  # the privacy unit: each person, up to a public number of rows
        declaration["person"] = SETTINGS["person"]
    workspace = Workspace(args.workspace)  # the ledger of these records, whatever the file's form
    ledger = workspace.ledger
    reading = {{k: SETTINGS.get(k) for k in ("encoding", "delimiter", "sheet", "header_row", "header_rows", "names")}}
    key = ledger.dataset_key(ledger.records_key(args.data, **reading))
    settings = prepare(args.data, declaration, SETTINGS["epsilon"], method=SETTINGS["method"], rho=SETTINGS["rho"],
                       rows=SETTINGS["rows"], engine=SETTINGS["engine"], **reading,
                       random_state=None,  # a fresh seed from the operating system, never published
                       **SETTINGS["options"])  # every setting checked and the draw priced, before the data is read
    made = draw(settings, args.data, workspace, key, name=Path(args.data).name, source="rerun",
                stored_settings=dict(SETTINGS, declaration=declaration))  # checked and recorded, then drawn
    release, release_id = made.release, made.release_id
    release.data.to_csv(args.out, index=False)
    Path(args.out).with_suffix(".card.json").write_text(json.dumps(release.card, indent=2), encoding="utf-8")
    stated = guarantee_line(release.card["guarantee"])  # as `dpsynth synth` states it
    print(f"release #{{release_id}}: {{len(release.data):,}} synthetic rows in {{args.out}} ({{stated}}); "
          f"recorded in {{workspace.path}}")


if __name__ == "__main__":
    try:
        main()
    except (DPSynthError, OSError) as problem:  # one line, as the command line says it
        sys.exit(f"error: {{problem}}")
'''
