"""The Privacy page's plan rows of the columns computed from another one after the draw
(:mod:`~dpsynth_core.domain.derived`): never measured, so no budget and no noise of their own."""

from __future__ import annotations


def in_declared_order(plan: list, declared) -> list:
    """The plan's rows in the declaration's order, with a row for each column computed from another one after the
    draw (:mod:`~dpsynth_core.domain.derived`): no budget, its values its source's."""
    rows = {row["column"]: row for row in plan}
    for name, col in declared.derived.items():
        if col.derived.gap:  # measured in its place: the plan's row, saying so
            if name in rows:
                rows[name] = {**rows[name], "mechanism": f"{rows[name]['mechanism']}; {col.derived.describe(col.kind)}"}
            continue
        rows[name] = {
            "column": name,
            "kind": col.kind,
            "epsilon": 0.0,
            "mechanism": col.derived.describe(),
            "domain_size": col.size,
            "domain_size_words": f"{col.size:,} values" if col.kind != "float" else "",
            "unit": "values",
        }
    return [rows[name] for name in declared.kept if name in rows]
