"""dpsynth_core: differentially private synthetic data over declared domains.

A plain library (no user interface): declared domains and their JSON form, safe noise,
budget accounting, one module per synthesis method, metrics, the release card, and a
command line (``python -m dpsynth_core``).

Public names are imported on first use (PEP 562), so the command line can refuse bad input
before the numerical libraries are loaded.
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

#: Public name -> the module that defines it.
_EXPORTS = {
    "Accountant": "privacy.accounting",
    "PrivacyEvent": "privacy.accounting",
    "cathist_tau": "privacy.cathist",
    "expected_made_up": "privacy.cathist",
    "fidelity": "privacy.cathist",
    "inclusion_probability": "privacy.cathist",
    "threshold": "privacy.cathist",
    "TableDomain": "domain",
    "as_table_domain": "domain",
    "column_from_json": "domain",
    "size_in_words": "domain",
    "DataError": "errors",
    "DomainError": "errors",
    "DPSynthError": "errors",
    "ParameterError": "errors",
    "METHODS": "synthesizers",
    "get_method": "synthesizers",
    "Release": "release",
    "synthesize": "release",
    "read_table": "data.tables",
}

__all__ = [*_EXPORTS, "__version__"]


def __getattr__(name: str):
    if name in _EXPORTS:
        value = getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
