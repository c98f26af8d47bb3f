"""A DDI Codebook (the XML that data archives and statistical offices publish beside a survey: IHSN and the World
Bank's NADA, ICPSR, IPUMS, the UK Data Service) read as a starting declaration: its documented variables, public
metadata, never a record.

Each ``<var name="...">`` of its ``<dataDscr>`` becomes a column of that name:

* with ``<catgry>`` codes: categories, each ``<catValu>`` with its ``<labl>``; a category marked ``missing="Y"``
  and a code of ``<invalrng>`` are left out (a cell holding one is read as missing, by the public rule);
* else with a ``<valrng>``: its ``<item VALUE>`` list as categories, or its ``<range min max>`` as whole numbers
  (``UNITS="INT"``, a ``discrete`` interval or no decimals, ``dcml="0"``) or real numbers, each bound the range
  states (an open end stays to declare);
* else by its ``<varFormat>``: a date (``category="date"``), numbers (``type="numeric"``: whole when discrete or
  without decimals), or free text still to declare (``type="character"``); a name the templates drop (an id) is
  dropped.

A codebook's summary statistics (``<sumStat>`` minimum and maximum, ``<catStat>`` frequencies) are computed from
the data: they are never read, so no bound or category comes from them. The XML is parsed by ``defusedxml``, which
refuses entity expansion and external references.
"""

from __future__ import annotations

from xml.etree.ElementTree import Element, ParseError

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring

from ..errors import DomainError
from .templates import categories, documented_number, template_for


def _local(tag: str) -> str:
    """A tag without its namespace (DDI 2.5's ``ddi:codebook:2_5``, ICPSR's, or none)."""
    return tag.rsplit("}", 1)[-1]


def _children(node: Element, name: str) -> list[Element]:
    return [child for child in node if _local(child.tag) == name]


def _text(node: Element | None) -> str:
    return " ".join("".join(node.itertext()).split()) if node is not None else ""


def ddi_codebook(text: str, name: str = "the codebook") -> Element | None:
    """The root of a DDI Codebook, or None when ``text`` is no XML; XML that is no codebook, or that is malformed
    or holds an entity declaration, is refused in one line (:class:`~dpsynth_core.errors.DomainError`).

    >>> ddi_codebook('{"columns": {}}') is None, _local(ddi_codebook('<codeBook><dataDscr/></codeBook>').tag)
    (True, 'codeBook')
    """
    if not text.lstrip().startswith("<"):
        return None
    try:
        root = fromstring(text)
    except DefusedXmlException:
        raise DomainError(f"domain file {name} declares XML entities, refused (a codebook has none)") from None
    except ParseError as problem:
        raise DomainError(f"domain file {name} is not well-formed XML ({problem})") from None
    if _local(root.tag) != "codeBook":
        raise DomainError(f"domain file {name} is XML but no DDI codebook (its root is <{_local(root.tag)}>)")
    return root


def _codes(node: Element | None) -> set[str]:
    """The codes an ``<invalrng>`` lists (its items, and the whole numbers of a short range)."""
    out = set()
    for item in _children(node, "item") if node is not None else []:
        out.add(item.get("VALUE", "").strip())
    for span in _children(node, "range") if node is not None else []:
        low, high = documented_number(span.get("min")), documented_number(span.get("max"))
        if isinstance(low, int) and isinstance(high, int) and 0 <= high - low <= 1000:
            out.update(str(v) for v in range(low, high + 1))
    return out


def _column(var: Element) -> dict:
    """One variable's starting declaration (the module docstring's mapping)."""
    missing = _codes(next(iter(_children(var, "invalrng")), None))
    labels = {}
    for category in _children(var, "catgry"):
        code = _text(next(iter(_children(category, "catValu")), None))
        if code and code not in missing and category.get("missing", "").upper() != "Y":
            labels[code] = _text(next(iter(_children(category, "labl")), None)) or code
    if labels:
        return categories(labels)
    fmt = next(iter(_children(var, "varFormat")), None)
    whole = var.get("intrvl") == "discrete" or var.get("dcml") == "0"
    for valid in _children(var, "valrng"):
        items = [i.get("VALUE", "").strip() for i in _children(valid, "item")]
        items = [i for i in items if i and i not in missing]
        if items:
            return {"type": "categorical", "values": list(dict.fromkeys(items))}
        for span in _children(valid, "range"):
            spec = {"type": "integer" if whole or span.get("UNITS", "").upper() == "INT" else "float"}
            for key in ("min", "max"):
                bound = documented_number(span.get(key))
                if bound is not None and not (spec["type"] == "integer" and isinstance(bound, float)):
                    spec[key] = bound
            return spec
    named = template_for(var.get("name", ""))
    if named["type"] == "drop":
        return named
    if fmt is not None and fmt.get("category", "").lower() == "date":
        return {"type": "date"}
    if fmt is not None and fmt.get("type", "").lower() == "numeric":
        return {"type": "integer" if whole else "float"}
    return {"type": "text"}


def from_ddi_codebook(root: Element, name: str = "") -> dict:
    """The starting declaration a DDI codebook describes, its variables in the codebook's order (see the module
    docstring)."""
    columns = {}
    for section in (n for n in root.iter() if _local(n.tag) == "dataDscr"):
        for var in _children(section, "var"):
            if var.get("name"):
                columns[var.get("name")] = _column(var)
    if not columns:
        raise DomainError(f"domain file {name or 'the codebook'} is a DDI codebook that documents no variable")
    title = next((_text(n) for n in root.iter() if _local(n.tag) == "titl"), "")
    return {
        "dataset": title,
        "documentation": f"started from the DDI codebook {name}".rstrip() + "; check every column",
        "columns": columns,
    }
