"""The registry of synthesis methods, so the CLI and the app can list, describe and build them.

What a method *is* lives on its class (:class:`~.base.Synthesizer`): title, summary, guarantee,
options, whether the tolerance for randomness applies, its budget plan and its exact charge.
The registry only names the classes; nothing outside this package tests a method's name.

The method modules (and numpy with them) load on the first look at :data:`METHODS`, so the command
line can build its parser from the option descriptions (:mod:`.options`) and refuse bad input quickly.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Mapping
from dataclasses import dataclass

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
        return [
            p
            for p in inspect.signature(self.cls.__init__).parameters
            if p not in ("self", "epsilon", "rho", "random_state")
        ]

    def check_options(self, options: dict) -> dict:
        """The options checked once, by their specs: unknown ones are refused, None means the default."""
        accepted = self.keywords()
        unknown = [k for k in options if k not in accepted]
        if unknown:
            takers = {k: [m.name for m in METHODS.values() if k in m.keywords()] for k in unknown}
            where = "; ".join(
                f"'{k}' works with {', '.join(v)}" if v else f"there is no option '{k}'" for k, v in takers.items()
            )
            raise ParameterError(
                f"method '{self.name}' has no option {', '.join(map(repr, unknown))} ({where}; "
                f"its options: {', '.join(accepted) or 'none'})"
            )
        specs = self.options
        return {k: (specs[k].check(v) if k in specs else v) for k, v in options.items()}


#: The modules (or packages) that register a method (each one, by :func:`register`), in display order.
MODULES = ("network.bayesnet", "copula", "network.deniability", "dirichlet", "cathist", "marginals", "microagg")


class _Methods(Mapping):
    """Name -> :class:`MethodInfo`, read-only; the method modules are imported on the first read."""

    def __init__(self):
        self._registered: dict[str, MethodInfo] = {}
        self._loaded = False

    def _load(self) -> dict:
        if not self._loaded:
            self._loaded = True  # before importing: a module that looks at the registry does not recurse
            for module in MODULES:
                importlib.import_module(f"{__package__}.{module}")

            def order(item):  # the order of MODULES, whichever module was imported first
                module = item[1].cls.__module__.removeprefix(f"{__package__}.")
                found = [i for i, m in enumerate(MODULES) if module == m or module.startswith(f"{m}.")]
                return found[0] if found else len(MODULES)

            self._registered = dict(sorted(self._registered.items(), key=order))
        return self._registered

    def __getitem__(self, name):
        return self._load()[name]

    def __iter__(self):
        return iter(self._load())

    def __len__(self):
        return len(self._load())

    def __repr__(self):
        return f"METHODS({list(self)})"


METHODS: Mapping[str, MethodInfo] = _Methods()

#: The method used when none is named: the best general-purpose one (the app, the command line and
#: ``synthesize`` all start from it). Its home is here, beside the registry it names an entry of.
DEFAULT_METHOD = "marginals"


def register(name: str, title: str, summary: str, neighbouring: str = ADD_REMOVE, rank: int = 100):
    """Class decorator adding a synthesizer to :data:`METHODS` under ``name``."""

    def add(cls):
        summary_text = " ".join(summary.split())
        METHODS._registered[name] = MethodInfo(
            name=name, title=title, summary=summary_text, cls=cls, neighbouring=neighbouring, rank=rank
        )
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
