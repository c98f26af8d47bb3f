"""The registry of synthesis methods, so the CLI and the app can list and build them."""

from __future__ import annotations

from dataclasses import dataclass

from ..privacy.accounting import ADD_REMOVE
from ..errors import ParameterError


@dataclass(frozen=True)
class MethodInfo:
    """A registered method: its name, a title, a paragraph for non-experts, and its class."""

    name: str
    title: str
    summary: str
    cls: type
    neighbouring: str = ADD_REMOVE
    rank: int = 100  # display order: recommended methods first


METHODS: dict[str, MethodInfo] = {}


def register(name: str, title: str, summary: str, neighbouring: str = ADD_REMOVE, rank: int = 100):
    """Class decorator adding a synthesizer to :data:`METHODS` under ``name``."""

    def add(cls):
        METHODS[name] = MethodInfo(name=name, title=title, summary=" ".join(summary.split()),
                                   cls=cls, neighbouring=neighbouring, rank=rank)
        cls.method_name = name
        return cls

    return add


def uses_tolerance(method: str, has_text: bool) -> bool:
    """True when a method uses the tolerance for randomness (rho, CatHist's chance of no made-up
    value): CatHist on every column, the other methods except dirichlet on text columns."""
    return method == "cathist" or (has_text and method != "dirichlet")


def get_method(name: str) -> MethodInfo:
    if name not in METHODS:
        raise ParameterError(f"method ({name!r}) must be one of {', '.join(METHODS)}")
    return METHODS[name]
