"""The registry of synthesis methods, so the CLI and the app can list, describe and build them.

What a method *is* lives on its class (:class:`~.base.Synthesizer`): title, summary, guarantee,
options, whether the tolerance for randomness applies, its budget plan and its exact charge.
The registry only names the classes; nothing outside this package tests a method's name.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass

from ..constraints import DEFAULT_METHOD  # noqa: F401  (the method used when none is named)
from ..errors import ParameterError
from ..privacy.accounting import ADD_REMOVE


@dataclass(frozen=True)
class MethodInfo:
    """A registered method: its name, a title, a paragraph for non-experts, and its class."""

    name: str
    title: str
    summary: str
    cls: type
    neighbouring: str = ADD_REMOVE
    rank: int = 100  # display order: recommended methods first

    @property
    def guarantee(self) -> str:
        return self.cls.guarantee

    @property
    def options(self) -> dict:
        """The publisher-facing options by name (:class:`~.options.Option`)."""
        return {option.name: option for option in self.cls.options}

    def takes(self, option: str) -> bool:
        return option in self.options

    def keywords(self) -> list[str]:
        """Every keyword the method's class takes (its options and its advanced Python-only ones)."""
        return [p for p in inspect.signature(self.cls.__init__).parameters
                if p not in ("self", "epsilon", "rho", "random_state")]

    def check_options(self, options: dict) -> dict:
        """The options checked once, by their specs: unknown ones are refused, None means the default."""
        accepted = self.keywords()
        unknown = [k for k in options if k not in accepted]
        if unknown:
            takers = {k: [m.name for m in METHODS.values() if k in m.keywords()] for k in unknown}
            where = "; ".join(f"'{k}' works with {', '.join(v)}" if v else f"there is no option '{k}'"
                              for k, v in takers.items())
            raise ParameterError(f"method '{self.name}' has no option {', '.join(map(repr, unknown))} ({where}; "
                                 f"its options: {', '.join(accepted) or 'none'})")
        specs = self.options
        return {k: (specs[k].check(v) if k in specs else v) for k, v in options.items()}


METHODS: dict[str, MethodInfo] = {}


def register(name: str, title: str, summary: str, neighbouring: str = ADD_REMOVE, rank: int = 100):
    """Class decorator adding a synthesizer to :data:`METHODS` under ``name``."""

    def add(cls):
        summary_text = " ".join(summary.split())
        METHODS[name] = MethodInfo(name=name, title=title, summary=summary_text, cls=cls,
                                   neighbouring=neighbouring, rank=rank)
        cls.method_name, cls.title, cls.summary = name, title, summary_text
        return cls

    return add


def get_method(name: str) -> MethodInfo:
    if name not in METHODS:
        raise ParameterError(f"method ({name!r}) must be one of {', '.join(METHODS)}")
    return METHODS[name]


def ranked() -> list[str]:
    """The method names, recommended first."""
    return sorted(METHODS, key=lambda name: METHODS[name].rank)
