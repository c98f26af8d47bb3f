"""A declaration being edited for one table: loading a file against its columns, applying part of
one, and each column's status. Works on column *names* only; never reads the data's values."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from .. import constraints
from ..errors import DomainError
from ..wording import line_values
from .column import ColumnDomain
from .declaration import column_from_json, parse_declaration
from .header import names_hint
from .table import TableDomain
from .templates import with_paths

#: How an undeclared column starts: free text, which asks for a generator or to be dropped.
UNDECLARED = {"type": "text"}


@dataclass(frozen=True)
class Loaded:
    """A declaration file read for a table. ``matching`` (when it does not fit the table as a whole,
    ``problem`` says why) names the table's columns it declares, which may be applied alone; ``names``, for a table
    read without its header line (column_1, ...) and a declaration of as many columns, none of them its, are the
    declaration's names, which the file's fields may take in order (:func:`~.header.names_hint`); ``reading``, how
    its documentation says the file is written (a data package's dialect, ``notes["reading"]``), by which a table
    it does not fit may be read again."""

    spec: dict
    matching: tuple = ()
    problem: str = ""
    names: tuple = ()
    reading: dict = field(default_factory=dict)

    @property
    def fits(self) -> bool:
        return not self.problem


def load_for(raw: bytes, file_name: str, columns) -> Loaded:
    """Read a declaration file for a table with these columns. Raises :class:`DomainError` (one
    clear message) when it cannot be used at all: too large, not JSON, not a declaration, or
    declaring none of the table's columns (but for one whose names a table read without its header line may take:
    :attr:`Loaded.names`, or one that says how its file is written: :attr:`Loaded.reading`)."""
    if len(raw) > constraints.MAX_DECLARATION_BYTES:
        raise DomainError(f"the file is larger than {constraints.MAX_DECLARATION_BYTES >> 20} MB")
    spec = with_paths(parse_declaration(raw, file_name, columns), columns)  # an XLSForm's questions under their groups
    domain = TableDomain.from_json(spec)
    reading = dict((spec.get("notes") or {}).get("reading") or {})
    try:
        domain.check_matches(list(columns))
    except DomainError as problem:
        matching = tuple(c for c in columns if c in domain.columns)
        if names_hint(columns, domain.columns):
            return Loaded(spec, (), str(problem), tuple(domain.columns), reading)
        if not matching and not reading:
            raise
        return Loaded(spec, matching, str(problem), reading=reading)
    return Loaded(spec, reading=reading)


def apply_columns(declaration: dict, loaded: dict, names, columns) -> dict:
    """``declaration`` with the columns ``names`` taken from ``loaded``; every column of the table
    in its order (the others as they were, undeclared ones as free text)."""
    current = dict(declaration.get("columns", {}))
    current.update({name: loaded["columns"][name] for name in names})
    return {**declaration, "columns": {c: current.get(c, UNDECLARED) for c in columns}}


def declare_alike(declaration: dict, source: str, names, columns) -> dict:
    """``declaration`` with each column of ``names`` given a copy of ``source``'s declaration (a survey's questions
    that share one scale, or one coding, declared once); every column of the table in its order, the others as they
    were; a column the file's codebook started is confirmed by it (the publisher's word). Names only: nothing is
    read from the data.

    >>> declared = {"columns": {"q1": {"type": "categorical", "values": ["1", "2"]}}}
    >>> declare_alike(declared, "q1", ["q3"], ["q1", "q2", "q3"])["columns"]["q3"]
    {'type': 'categorical', 'values': ['1', '2']}
    """
    current = column_specs(declaration, columns)
    given = [name for name in names if name != source and name in current]
    current.update({name: copy.deepcopy(current[source]) for name in given})  # a copy of its own for each column
    out = {**declaration, "columns": current}
    book = (declaration.get("notes") or {}).get("codebook")
    if book and any(name in (book.get("columns") or {}) for name in given):  # the publisher's word: confirmed
        entries = {n: {**e, "confirmed": True} if n in given else e for n, e in book["columns"].items()}
        out["notes"] = {**declaration["notes"], "codebook": {**book, "columns": entries}}
    return out


def with_any_spelling(declaration: dict, names) -> dict:
    """``declaration`` with the categorical columns ``names`` reading a declared value written in other capitals,
    spaces or punctuation (``"any_spelling": true``: :attr:`~.column.CategoricalDomain.read_spellings`). The
    publisher's choice, made from the check's counts; names only, nothing is read from the data.

    >>> declared = {"columns": {"c": {"type": "categorical", "values": ["TA/TO"]}, "n": {"type": "integer"}}}
    >>> with_any_spelling(declared, ["c", "n"])["columns"]
    {'c': {'type': 'categorical', 'values': ['TA/TO'], 'any_spelling': True}, 'n': {'type': 'integer'}}
    """
    columns = {
        name: {**spec, "any_spelling": True} if name in names and spec.get("type") == "categorical" else spec
        for name, spec in declaration.get("columns", {}).items()
    }
    return {**declaration, "columns": columns}


def column_specs(declaration: dict, columns) -> dict:
    """Each of the table's columns with its declaration (free text when undeclared), in order."""
    declared = declaration.get("columns", {})
    return {name: declared.get(name, UNDECLARED) for name in columns}


def undeclared(spec: dict) -> bool:
    """Whether a column's declaration says nothing yet but, at most, whether it may be missing: no kind chosen
    (the Domain page starts it at "Choose a kind")."""
    return spec.get("type", "text") == "text" and not set(spec) - {"type", "missing"}


def column_status(name: str, spec, specs: dict | None = None) -> tuple[list[str], ColumnDomain | None]:
    """(what is still to fix, the column when its form is valid) for one column's declaration; with the table's
    ``specs``, a list computed from another column (:mod:`.derived`) also checked against that column."""
    try:
        column = column_from_json(name, spec)
    except DomainError as problem:
        return list(problem.problems), None
    found, rule = column.problems(), column.derived
    if rule is not None and specs is not None:
        sources = {
            s: specs[s] for s in rule.sources if s != name and (specs.get(s) or {}).get("type", "drop") != "drop"
        }
        try:  # a source whose own form is wrong says so itself
            kept = {s: column_from_json(s, spec) for s, spec in sources.items()}
        except DomainError:
            return found, column
        found += rule.problems(column, kept)
    return found, column


def find_columns(specs: dict, words: str = "", kinds=(), among=None) -> list[str]:
    """The columns of ``specs`` (name -> declaration, in table order) whose name holds every word of ``words``
    (any case), declared as one of ``kinds`` (its ``type``; empty: any), among ``among`` (None: all).

    >>> specs = {"age": {"type": "integer"}, "age_group": {"type": "categorical"}, "zip": {"type": "text"}}
    >>> find_columns(specs, "AGE"), find_columns(specs, kinds=["text", "integer"]), find_columns(specs, "age gr")
    (['age', 'age_group'], ['age', 'zip'], ['age_group'])
    """
    terms = words.lower().split()
    wanted = set(kinds)
    return [
        name
        for name, spec in specs.items()
        if all(t in name.lower() for t in terms)
        and (not wanted or spec.get("type", UNDECLARED["type"]) in wanted)
        and (among is None or name in among)
    ]


def readiness(problems: dict, columns) -> str:
    """One line on how many columns are ready and which are still to do (the first 20 named)."""
    ready = len(columns) - len(problems)
    if not problems:
        return "The column is declared." if len(columns) == 1 else f"All {len(columns):,} columns are declared."
    names = [f"**{n}**" for n in list(problems)[:20]]
    more = f" and {len(problems) - 20:,} more" if len(problems) > 20 else ""
    are = "is" if ready == 1 else "are"
    return f"{ready:,} of {len(columns):,} columns {are} ready. Still to do: " + "; ".join(names) + more + "."


def missing_markers(declaration: dict) -> list[str]:
    """The texts a declaration reads as missing in every column besides the empty cell (``missing_values``).

    >>> missing_markers({"missing_values": {"markers": ["", "NA", "."]}}), missing_markers({"columns": {}})
    (['NA', '.'], [])
    """
    found = declaration.get("missing_values") or {}
    markers = found.get("markers")
    if markers is None:
        marker = found.get("marker", "empty cell")
        markers = [] if marker in ("empty cell", "", None) else [marker]
    return [m for m in markers if m != ""]


def with_missing_markers(declaration: dict, text: str) -> dict:
    """The declaration reading the texts typed in ``text`` (separated by commas:
    :func:`~dpsynth_core.wording.line_values`) as missing, besides the empty cell; the same declaration when they are
    the ones it reads already. A publisher's choice, as the delimiter is.

    >>> with_missing_markers({"columns": {}}, " NA, ., NA ")["missing_values"]
    {'markers': ['', 'NA', '.']}
    """
    typed = list(dict.fromkeys(t.strip() for t in line_values(text) if t.strip()))
    if typed == missing_markers(declaration):
        return declaration
    kept = {k: v for k, v in (declaration.get("missing_values") or {}).items() if k not in ("marker", "markers")}
    return {**declaration, "missing_values": {**kept, "markers": ["", *typed]}}


def policy_file_name(declaration: dict) -> str:
    """The name a saved declaration is offered under: ``adult.domain.json``."""
    return f"{(declaration.get('dataset') or 'table').removesuffix('.csv')}.domain.json"


def parse_groups(text: str, columns) -> tuple[list[list[str]], list[str]]:
    r"""Column groups typed one per line, names separated by commas (a name holding a comma in double quotes:
    :func:`~dpsynth_core.wording.line_values`): ``(groups, unknown names)``.

    >>> parse_groups('sex, relationship\n"Income, annual", age', ["sex", "relationship", "Income, annual", "age"])
    ([['sex', 'relationship'], ['Income, annual', 'age']], [])
    """
    groups, unknown = [], []
    for line in text.splitlines():
        group = [c.strip() for c in line_values(line) if c.strip()]
        unknown += [c for c in group if c not in columns]
        if group:
            groups.append(group)
    return groups, unknown


def person_columns(declaration: dict, columns) -> list[str]:
    """The columns that may identify a person, for the privacy unit: those declared ``drop`` (an identifier is never
    released), in the table's order. Names only."""
    specs = column_specs(declaration, columns)
    return [name for name, spec in specs.items() if spec.get("type") == "drop"]


def with_person(declaration: dict, column: str | None, max_rows: int = 1, name: str = "", ignore_case=False) -> dict:
    """The declaration with its privacy unit set: each person identified by ``column`` (declared ``drop``), up to
    ``max_rows`` rows, called ``name`` ("patient"; empty: "person"); ``column`` None: each row. The same declaration
    when nothing changes, so a page may call it on every run.

    >>> spec = {"columns": {"id": {"type": "drop"}}}
    >>> with_person(spec, "id", 3, "patient")["person"]
    {'column': 'id', 'max_rows': 3, 'name': 'patient'}
    >>> "person" in with_person(with_person(spec, "id", 3), None)
    False
    """
    if column is None:
        return declaration if "person" not in declaration else {k: v for k, v in declaration.items() if k != "person"}
    unit = {"column": column, "max_rows": int(max_rows), "name": name.strip() or "person"}
    if ignore_case:
        unit["ignore_case"] = True
    return declaration if declaration.get("person") == unit else {**declaration, "person": unit}


def named_choice(typed, choices: dict) -> str | None:
    """The one preset of ``choices`` (value -> its words) whose words begin with ``typed``, in any case and up to a
    word's end, where ``typed`` repeats a character and so cannot be a set of characters itself: words typed into a
    box of allowed characters, as a newcomer did ("letters (small and capital)" took its own letters). None
    otherwise, and the typed text stands (its check names the repeats).

    >>> from dpsynth_core.domain.kinds import ALPHABETS, WIDE_ALPHABET
    >>> named_choice("Letters  (small and capital)", ALPHABETS) == WIDE_ALPHABET
    True
    >>> named_choice("small letters", ALPHABETS), named_choice("abc", ALPHABETS), named_choice("lett", ALPHABETS)
    ('abcdefghijklmnopqrstuvwxyz', None, None)
    """
    text = " ".join(str(typed or "").split()).lower()
    if len(text) < 3 or len(set(text)) == len(text):
        return None
    found = [
        value
        for value, words in choices.items()
        if words.lower().startswith(text) and not words[len(text) : len(text) + 1].isalnum()
    ]
    return found[0] if len(found) == 1 else None
