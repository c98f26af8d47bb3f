"""dpsynth_core: differentially private synthetic data over declared domains.

A plain library (no user interface): declared domains and their JSON form, safe noise,
budget accounting, one module per synthesis method, metrics, the release card, and a
command line (``python -m dpsynth_core``).
"""

__version__ = "0.1.0"

from .accounting import Accountant, PrivacyEvent  # noqa: E402
from .cathist import cathist_tau, expected_made_up, fidelity, inclusion_probability, threshold  # noqa: E402
from .domain import TableDomain, as_table_domain, column_from_json, size_in_words  # noqa: E402
from .errors import DataError, DomainError, DPSynthError, ParameterError  # noqa: E402
from .synthesizers import METHODS, get_method  # noqa: E402
from .release import Release, synthesize  # noqa: E402
from .tables import read_table  # noqa: E402

__all__ = [
    "Accountant", "PrivacyEvent", "cathist_tau", "expected_made_up", "fidelity",
    "inclusion_probability", "threshold", "TableDomain", "as_table_domain", "column_from_json",
    "size_in_words", "DataError", "DomainError", "DPSynthError", "ParameterError", "METHODS",
    "get_method", "Release", "synthesize", "read_table", "__version__",
]
