"""The shape of the library: one ordered list of layers, no arrow up or sideways, no import circles, bases at home."""

from __future__ import annotations

import ast

from tests.conftest import ROOT

CORE = ROOT / "dpsynth_core"
#: The layers, bottom to top (the order docs/architecture.md draws): a module imports modules of its
#: own layer or of layers below it, never above, lazily or not.
LAYERS = (
    ("errors", "constraints", "validation", "wording"),
    ("domain",),
    ("data",),
    ("privacy", "pgm"),
    ("engines",),
    ("synthesizers",),
    ("release",),
    ("workspace",),
    ("evaluation",),
    ("usecases",),
    ("cli",),
    ("__main__",),
)


def _imports() -> dict[str, set[str]]:
    """Module name (dotted, below dpsynth_core) -> the dpsynth_core modules it imports."""
    modules = {}
    for path in CORE.rglob("*.py"):
        parts = path.relative_to(CORE).with_suffix("").parts
        modules[".".join(p for p in parts if p != "__init__")] = path
    graph = {}
    for name, path in modules.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = package[: len(package) - (node.level - 1)] if node.level > 1 else package
                target = ".".join(base + ([node.module] if node.module else []))
                for alias in node.names:
                    candidate = f"{target}.{alias.name}".strip(".")
                    found.add(candidate if candidate in modules else target)
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("dpsynth_core"):
                found.add(node.module.removeprefix("dpsynth_core").strip("."))
        graph[name] = {t for t in found if t in modules and t != name}
    return graph


def test_no_import_circles():
    graph = _imports()
    packages = {n for n in graph if (CORE / n.replace(".", "/") / "__init__.py").exists()} | {""}
    circles = []
    for start in graph:
        if start in packages:
            continue
        stack, seen = [(start, [start])], set()
        while stack:
            node, path = stack.pop()
            for target in graph[node] - packages:
                if target == start:
                    circles.append(" -> ".join(path + [start]))
                elif target not in seen:
                    seen.add(target)
                    stack.append((target, path + [target]))
    assert circles == []


def test_every_module_sits_in_a_layer_and_imports_none_above_it():
    graph = _imports()
    rank = {name: level for level, layer in enumerate(LAYERS) for name in layer}
    layer = {name: name.split(".")[0] for name in graph if name}  # the package face ("") sits above them all
    unplaced = sorted(set(layer.values()) - set(rank))
    upward = [f"{a} -> {b}" for a in layer for b in graph[a] if b and rank[layer[b]] > rank[layer[a]]]
    sideways = [  # privacy and pgm share a level and import neither each other (the base modules may)
        f"{a} -> {b}"
        for a in layer
        for b in graph[a]
        if b and rank[layer[b]] == rank[layer[a]] > 0 and layer[b] != layer[a]
    ]
    assert unplaced == [] and upward == [] and sideways == []


#: The synthesizers' shared blocks: every method may import these, and no method imports another's modules.
SHARED_BLOCKS = {"base", "registry", "options", "finite", "charges"}


def test_methods_never_import_one_another():
    """A method (a module, or a package such as marginals/ and network/) imports only its own modules and
    the shared blocks; planning (what choices imply) and the package face may read every method."""
    graph = _imports()

    def method(name: str) -> str | None:
        parts = name.split(".")
        return parts[1] if parts[0] == "synthesizers" and len(parts) > 1 else None

    offenders = [
        (m, t)
        for m in graph
        if method(m) not in {None, "planning"} | SHARED_BLOCKS
        for t in graph[m]
        if method(t) is not None and method(t) != method(m) and method(t) not in SHARED_BLOCKS
    ]
    assert offenders == []


#: Modules longer than 450 lines because each is one concept a cut would split (its docstring says so);
#: the cap is a trigger for review, not a wall that splits a class across files.
LONG_MODULES: dict[str, str] = {}


def test_modules_are_short_and_the_top_level_is_small():
    """One concept per module (at most 450 lines, but for the named exceptions) and a package per layer (at
    most 8 modules at the top)."""
    long = [
        f"{p.relative_to(CORE)} ({n})"
        for p in CORE.rglob("*.py")
        if (n := len(p.read_text().splitlines())) > 450 and p.relative_to(CORE).as_posix() not in LONG_MODULES
    ]
    top = sorted(p.name for p in CORE.glob("*.py"))
    assert long == [] and len(top) <= 8, (long, top)


def test_no_method_name_outside_the_synthesizers():
    """What a method is lives on its class: no product code outside ``synthesizers/`` names one (its
    default included). Tests, docs and benchmarks, which compare methods by name, are excepted."""
    from dpsynth_core.synthesizers import METHODS

    folders = [CORE, ROOT / "app_pages", ROOT / "app_support", ROOT / "scripts"]
    files = [ROOT / "app.py"] + [p for folder in folders if folder.is_dir() for p in folder.rglob("*.py")]
    found = [
        f"{path.relative_to(ROOT)}:{node.lineno} {node.value!r}"
        for path in files
        if CORE / "synthesizers" not in path.parents
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in METHODS
    ]
    assert found == []


def test_the_default_method_lives_in_the_registry():
    from dpsynth_core import constraints
    from dpsynth_core.synthesizers import DEFAULT_METHOD, METHODS

    assert DEFAULT_METHOD in METHODS and not hasattr(constraints, "DEFAULT_METHOD")


def test_pages_only_gather_choices_call_the_core_and_draw():
    """A page is at most 200 lines: wording and decisions live in the core, drawing pieces in app_support."""
    pages = sorted((ROOT / "app_pages").glob("*.py"))
    long = [f"{p.name} ({n})" for p in pages if (n := len(p.read_text().splitlines())) > 200]
    assert pages and long == []


def test_a_classs_bases_live_in_its_own_package():
    """Composition across packages, not inheritance: a class extends classes of its own package (or the
    error types of ``errors.py``), never one of another package, so that reading a class never walks
    into another layer (the workspace once inherited its ledger from ``release/``)."""
    offenders = []
    for path in CORE.rglob("*.py"):
        parts = path.relative_to(CORE).with_suffix("").parts
        package = parts[0] if len(parts) > 1 else ""
        tree = ast.parse(path.read_text())
        origin = {}  # a name bound by an import -> the dpsynth_core module (dotted, below dpsynth_core) it comes from
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = list(parts[:-1])[: len(parts) - node.level]
                module = ".".join(base + ([node.module] if node.module else []))
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("dpsynth_core"):
                module = node.module.removeprefix("dpsynth_core").strip(".")
            else:
                continue
            for alias in node.names:
                origin[alias.asname or alias.name] = module
        for node in ast.walk(tree):
            for base in node.bases if isinstance(node, ast.ClassDef) else ():
                name = base.value if isinstance(base, ast.Attribute) else base
                module = origin.get(name.id) if isinstance(name, ast.Name) else None
                if module is not None and module.split(".")[0] not in (package, "errors"):
                    offenders.append(f"{'.'.join(parts)}.{node.name} extends {ast.unparse(base)} of {module}")
    assert offenders == [], offenders


def test_names_are_passed_on_only_by_package_faces_with_all():
    """A re-export (an import kept only to be imported from here) lives in a package's __init__.py, which
    lists its public names in ``__all__``; a module imports a name from its home, never from a module
    that merely passed it on."""
    elsewhere = [
        p.relative_to(CORE).as_posix()
        for p in CORE.rglob("*.py")
        if p.name != "__init__.py" and "noqa: F401" in p.read_text()
    ]
    faces = [
        p.relative_to(CORE).as_posix()
        for p in CORE.rglob("__init__.py")
        if "noqa: F401" in p.read_text() and "__all__" not in p.read_text()
    ]
    assert elsewhere == [] and faces == []
