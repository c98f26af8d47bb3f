"""Limits and defaults in one place: the app, the CLI and the core read them from here."""

EPSILON_MIN = 0.01
EPSILON_MAX = 20.0
EPSILON_DEFAULT = 1.0
EPSILON_WARN_ABOVE = 5.0

RHO_DEFAULT = 0.9
RHO_MIN = 0.01
RHO_MAX = 0.99

#: Share of epsilon spent on the noisy row count when the row count is not public.
ROW_COUNT_SHARE = 0.05

#: The default engine (``marginals``): its share of epsilon for the noisy row count (under zCDP a
#: pure spend of eps costs eps**2 / 2, so a small share keeps the count cheap), the largest delta
#: it accepts or chooses, the most cells of one measured marginal and of the whole model.
ENGINE_ROW_COUNT_SHARE = 0.01
DELTA_MAX = 1e-6
ENGINE_MAX_MARGINAL_CELLS = 100_000
ENGINE_MAX_MODEL_CELLS = 100_000

#: Slack delta used when reporting advanced composition.
ADVANCED_COMPOSITION_DELTA = 1e-6

#: Default number of public bins aimed at for a numeric range with no declared bins.
DEFAULT_TARGET_BINS = 50
#: Integer ranges with at most this many values get one bin per value by default.
MAX_UNIT_BINS = 120

#: Largest number of histogram cells a column may have (a bin per value is fine below this).
MAX_COLUMN_CELLS = 2_000_000

#: Upload limit for the app, in megabytes (also set in .streamlit/config.toml).
UPLOAD_LIMIT_MB = 200

#: Rows at most in a synthetic table requested by the publisher.
MAX_SYNTHETIC_ROWS = 5_000_000
