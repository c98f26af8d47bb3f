"""Limits and defaults in one place: the app, the CLI and the core read them from here.

Every resource limit is checked *before* anything of that size is allocated, so bad input
ends with a one-line message instead of exhausting memory or time.
"""

EPSILON_MIN = 0.01
EPSILON_MAX = 20.0
EPSILON_DEFAULT = 1.0
EPSILON_WARN_ABOVE = 5.0
#: Range any single mechanism accepts (a share of the total can be far below EPSILON_MIN;
#: outside this range the threshold and noise arithmetic lose their precision).
MECHANISM_EPSILON_MIN = 1e-9
MECHANISM_EPSILON_MAX = 1e6

RHO_DEFAULT = 0.9
RHO_MIN = 0.01
RHO_MAX = 0.99
#: Range any single mechanism accepts (1 - rho**(1/n) must stay computable).
MECHANISM_RHO_MIN = 1e-9
MECHANISM_RHO_MAX = 1 - 1e-9

#: Share of epsilon spent on the noisy row count when the row count is not public.
ROW_COUNT_SHARE = 0.05

#: The default method (``marginals``): its share of epsilon for the noisy row count (under zCDP a
#: pure spend of eps costs eps**2 / 2, so a small share keeps the count cheap), the most cells of
#: one measured marginal and of the whole model.
MARGINALS_ROW_COUNT_SHARE = 0.01
MARGINALS_MAX_MARGINAL_CELLS = 100_000
MARGINALS_MAX_MODEL_CELLS = 200_000
#: The widest table the default method takes, refused up front past it: its rounds, model and counts grow
#: faster than the width. Measured with ``benchmarks.large.wide`` on 2 busy cores (load 3 to 7): 300 columns
#: of 100,000 rows in 151 s, 1,500 columns of 20,000 rows in 223 s (2.6 GB); wider was not measured.
MARGINALS_MAX_COLUMNS = 1500

#: The largest delta a release accepts or chooses (the ``delta`` option, which the default method takes).
DELTA_MAX = 1e-6
#: Its delta when the publisher gives none: a public constant, so the charge is known before any
#: data is read; the rule "the largest power of ten at most 1 / n**2" for tables of up to
#: DELTA_DEFAULT_RECORDS records (a publisher with a larger table gives delta).
DELTA_DEFAULT_RECORDS = 100_000
DELTA_DEFAULT = 1e-10

#: Largest public bound on rows per person (a declaration's ``person.max_rows``, ``--max-rows-per-person``).
MAX_ROWS_PER_PERSON = 10_000
#: The publisher-only views show a text value read from the data by name only when at least this many
#: real rows hold it (rarer values are pooled): no view singles out a person's value.
SHOWN_MIN_ROWS = 5
#: The largest record count a command takes as a public figure (``tau --records``): far above any table.
MAX_RECORDS = 10**15

#: Slack delta used when reporting advanced composition.
ADVANCED_COMPOSITION_DELTA = 1e-6

#: Fixed bins of a numeric range with no declared bins, where no release has fitted them with DP
#: (charts over the declaration itself): a 1-2-5 width aiming at this many bins...
DEFAULT_TARGET_BINS = 50
#: ... or one bin per value for integer ranges with at most this many values.
MAX_UNIT_BINS = 120

#: Data-adaptive bins (dpsynth_core/privacy/binning.py): the numeric and date columns declared without bins
#: share this much of epsilon to find their bins (split equally over max(their number, 3)). Chosen by
#: measurement (benchmarks.quality.numeric_columns; docs/benchmarks/history.md says why).
BINNING_SHARE = 0.2
#: Under zero-concentrated DP, the adaptive columns' bins cost at least this share of rho together
#: (:func:`dpsynth_core.privacy.binning.binning_budget`).
BINNING_RHO_SHARE = 0.2
#: Share of epsilon that learns how values spread inside declared bins wider than one value (so a
#: spike such as 0 in a bin of 5,000 stays), split over at least 3 such columns.
INSIDE_SHARE = 0.1
#: The cells (and a numeric column's leaves) that noisy counts cannot tell from empty are cut at EMPTY_Z
#: standard deviations of the noise, made familywise over the column's cells (a chance of Phi(-EMPTY_Z),
#: 2.3%, that an empty region of a column is kept), while they hold at most TAIL_SHARE of the estimated
#: records or one noise deviation (dpsynth_core.pgm.support.support_from, and the leaves of a numeric
#: column's bins in dpsynth_core.privacy.tails.quiet_ends). Post-processing only.
EMPTY_Z = 2.0
TAIL_SHARE = 0.005
#: The "missing" cells of a table's columns (a default the publisher did not choose) are tested as one family at
#: MISSING_Z (dpsynth_core.pgm.support.support_from): an empty one is kept in a release with chance Phi(-3), 0.13%,
#: where at EMPTY_Z it was 2.3%, and a kept one holds its noisy count, three or more deviations (issue 36, point 3:
#: australian at seed 2, 12% of rows in a missing cell no record holds). Publisher's declarations, every table at
#: full size and 1,000 rows, 5 seeds: rows at a declared value or missing cell no record holds, australian 2.46% to
#: 0.11%, adult_test 0.19% to 0.07%, the rest unchanged; 2-way TVD within 0.0012 (australian 0.1368 to 0.1350).
#: Not when most of the table's missing cells hold records (a survey): each is then tested in its own column
#: (dpsynth_core.pgm.support._missing_mostly_held).
MISSING_Z = 3.0
#: Most bins adaptive binning gives a column (small neighbouring bins are merged down to it);
#: integer and date columns with at most this many values get one bin per value instead, free.
ADAPTIVE_MAX_BINS = 12
#: Most bins a fitted column ends with: a narrow leaf holding many records is then cut into a bin per whole
#: number while the column stays within this (dpsynth_core.privacy.leaf_cuts.split_narrow).
FITTED_MAX_BINS = 20
#: A whole-number column whose kept leaves span at most SHORT_RANGE_VALUES values (a code declared 0-100 whose
#: records PrivTree found in 0-24) gets a bin per value there while it ends with at most SHORT_RANGE_BINS bins
#: (dpsynth_core.privacy.leaf_cuts.split_short): its most bins, as the plan and the Domain page state them.
SHORT_RANGE_VALUES = 32
SHORT_RANGE_BINS = 36
#: A one-value neighbour stands for the density beside it only within this factor of its own other neighbour; denser,
#: it is a spike (a count's 0, hours-per-week's 50) that says nothing of the values beside it: the slope of a fitted
#: bin's pieces (dpsynth_core.privacy.bin_weights) and the law of a range's end bin (dpsynth_core.data.decoding).
RUN_FACTOR = 4.0


def most_fitted_bins(countable: bool, short: bool = False) -> int:
    """Most bins a fitted column ends with: :data:`FITTED_MAX_BINS` for whole numbers and dates (a bin per value
    of a narrow leaf), :data:`SHORT_RANGE_BINS` for a whole-number column whose short kept range the release's
    method cuts into a bin per value (``short``: ``Synthesizer.short_ranges``, the default method's),
    :data:`ADAPTIVE_MAX_BINS` for real numbers (never cut into values)."""
    if not countable:
        return ADAPTIVE_MAX_BINS
    return SHORT_RANGE_BINS if short else FITTED_MAX_BINS


#: Largest number of histogram cells a column may have (a bin per value is fine below this).
MAX_COLUMN_CELLS = 2_000_000
#: Largest total of histogram cells over all kept columns of a table.
MAX_TABLE_CELLS = 20_000_000

#: Upload limit for the app, in megabytes (also set in .streamlit/config.toml).
UPLOAD_LIMIT_MB = 200
#: Largest file the CLI and the Python API read, in bytes (a stream is read up to this, then refused).
MAX_FILE_BYTES = 1 << 30
#: A spreadsheet (.xlsx, .ods) may unpack to at most this many bytes (read from the zip's directory
#: before anything is unpacked: a zip bomb is refused there).
MAX_UNZIPPED_BYTES = 1 << 30
#: Most cells (rows x columns) of a spreadsheet's sheet read whole into memory (each cell is a Python
#: value while it is read: about 100 bytes); a larger sheet is refused with its size.
MAX_SHEET_CELLS = 5_000_000
#: Most cells (rows x columns) of an SPSS, Stata or SAS file, or of one Parquet file, read whole into memory (from
#: its metadata, before any record is read; an engine counts a larger Parquet file in chunks).
MAX_PACKAGE_CELLS = 50_000_000
#: Longest header line, in characters; a longer first line is refused (it is not a CSV header).
MAX_HEADER_CHARS = 1 << 20
#: Longest data line, in characters; a longer line is a broken record (its cells become missing).
MAX_LINE_CHARS = 1 << 20
#: Most columns a table or a declaration may have (a spreadsheet's own limit).
MAX_COLUMNS = 16_384
#: Bytes at the start of a file searched for NUL bytes (binary data is refused there).
BINARY_SNIFF_BYTES = 1 << 16

#: Rows at most in a synthetic table requested by the publisher.
MAX_SYNTHETIC_ROWS = 5_000_000
#: Rows at most in a synthetic table when the data is counted by an engine for large tables
#: (DuckDB, Spark) and the release is written to a file in chunks (never whole in memory).
MAX_ENGINE_SYNTHETIC_ROWS = 1_000_000_000
#: Seeds are whole numbers in [0, MAX_SEED).
MAX_SEED = 2**128

# --- domain declarations ------------------------------------------------------------------
#: Largest domain declaration file, in bytes.
MAX_DECLARATION_BYTES = 64 << 20
#: Deepest nesting of JSON objects and lists in a declaration (notes included).
MAX_JSON_DEPTH = 32
#: Bound on the absolute value of every number in a declaration (min, max, edges, codes, ...).
MAX_ABS_NUMBER = 10**15
#: The most steps a date and time's or a time of day's ``multiple_of`` may span (a week of minutes).
MAX_TIME_MULTIPLE = 7 * 24 * 60
#: Longest category value, label, marker, alphabet or column name, in characters.
MAX_TEXT_CHARS = 1_000
#: Longest free text (documentation, notes), in characters.
MAX_NOTE_CHARS = 100_000
#: Longest ``length`` of a digits code and ``max_length`` of letters.
MAX_TEXT_LENGTH = 100
#: Largest size of a weakly constrained text domain (exact integer arithmetic stays fast below it).
MAX_TEXT_DOMAIN_SIZE = 10**100
#: Real-number intervals are split by PrivTree at most this many times (to 2**-24 of the declared range): a
#: leaf that narrow which still holds records is a point mass (a value many records share, such as 0), so its
#: records are decoded at the simplest number inside it (:func:`~dpsynth_core.domain.point_masses.point_of_pieces`).
FLOAT_MAX_DEPTH = 24
#: Most decimal places a real column's synthetic values may be rounded to (its ``decimals``; float64 keeps 15 to 17
#: significant digits).
MAX_DECIMALS = 12
#: Most missing-value markers.
MAX_MARKERS = 100
#: Problems named in one message at most (a message never hides any of the first ones).
MAX_PROBLEMS_SHOWN = 200

#: With engine "auto", a CSV file larger than this is counted by DuckDB out of core instead of in memory.
ENGINE_AUTO_BYTES = 512 * 2**20

#: A free-text column whose commonest synthetic value fills at least this share of its non-missing cells is
#: said to be dominated by it (the card and the Preview say so: a made-up value or the placeholder can fill
#: a column when no real value comes out).
DOMINANT_VALUE_SHARE = 0.5
#: A list of at least three declared categories whose synthetic cells (not missing) are this share one value is
#: said to have come out as that value alone (the card and the Preview say so: at a small epsilon for the table's
#: size the noisy counts may tell no other value from empty; the Guardian's police killings, 467 records and 28
#: columns at epsilon 1, released every state as California).
SINGLE_VALUE_SHARE = 0.99

#: The rows-per-person check (an opt-in DP histogram before a release with a person unit) counts persons with
#: 1, 2, ..., PERSON_CHECK_CAP - 1 rows and PERSON_CHECK_CAP or more; its default budget.
PERSON_CHECK_CAP = 16
PERSON_CHECK_EPSILON = 0.1
#: The bound on rows per person the check suggests keeps at least this share of the rows (DP estimate).
PERSON_CHECK_KEEP = 0.9
