"""The shape every synthesizer shares: ``Method(epsilon=..., ...).fit(data, domain)`` then ``.sample()``.

``fit`` is the only step that reads the data: when the declaration names a person column
(:class:`~dpsynth_core.domain.PersonUnit`), it first keeps at most ``K`` random rows per person
and runs the method at ``epsilon / K`` per row, the guarantee being stated per person by group
privacy (:mod:`dpsynth_core.privacy.persons`, :meth:`Synthesizer.ledger`); then it fits the bins
of numeric and date columns declared without bins (a counted share of the budget,
:mod:`dpsynth_core.privacy.binning`), encodes the table over the resulting domain, spends the budget
(each spend recorded by the accountant) and keeps only noisy statistics. ``sample`` is post-processing of those
statistics and never sees the data.

What a method is and what a draw costs, from public settings only, before any of this, is the parent class's
(:class:`~.pricing.PricedMethod`: the charge the ledger records, which every method's ``fit`` is tested to spend
exactly).
"""

from __future__ import annotations

import copy
from pathlib import Path

import pandas as pd

from .. import constraints
from ..data.decoding import derived_values
from ..data.encoding import encode_table
from ..data.formats import read_data
from ..data.gaps import with_gaps
from ..domain import as_table_domain
from ..domain.derived import computing_order
from ..errors import DataError, ParameterError
from ..privacy.accounting import SUBSTITUTE, Accountant, PrivacyEvent
from ..privacy.binning import fit_bins
from ..privacy.histogram import noisy_count
from ..privacy.noise import NoiseSource, chunk_generator, make_noise_source, stream_key
from ..privacy.persons import bound_rows, person_ledger
from ..validation import check_epsilon, check_rho, check_rows
from .charges import ROW_COUNT, binning_spends, gaussian_bin_counts, row_count_event
from .pricing import PricedMethod

#: A noisy row count below this many times its noise's scale gets a plain note on the card.
ROW_NOTE_NOISES = 3


def as_frame(data) -> pd.DataFrame:
    """Accept a DataFrame or a path to a table file (CSV/TSV, spreadsheet, statistical package)."""
    if isinstance(data, pd.DataFrame):
        if len(data) == 0:
            raise DataError("the table has no rows")
        return data
    if isinstance(data, (str, Path)):
        return read_data(data)[0]
    raise DataError(f"data must be a DataFrame or a path to a CSV file, got {type(data).__name__}")


class Synthesizer(PricedMethod):
    """Base class of every method: parameter storage, the fit (budget bookkeeping, the noisy row count, the bins),
    the sample and the card's facts; what the method is and what a draw costs come from :class:`PricedMethod`.

    Subclasses implement ``_fit(encoded, epsilon)`` (spend ``epsilon`` on the columns),
    ``_sample(n)`` (return a DataFrame of ``n`` synthetic rows over the kept columns) and
    ``_method_events`` (what ``_fit`` spends, from public settings only: :meth:`charge` composes it
    with the row count and the bins before any data is read).
    """

    def __init__(self, *, epsilon: float, rho: float = constraints.RHO_DEFAULT, random_state=None):
        self.epsilon = epsilon
        self.rho = rho
        self.random_state = random_state

    # --- fitting ------------------------------------------------------------------------

    def fit(
        self,
        data,
        domain,
        *,
        rows: int | None = None,
        progress=None,
        engine: str | None = "auto",
        memory_limit: str | None = None,
        max_rows: int | None = None,
    ) -> Synthesizer:
        """Measure the data with DP. ``rows``: a public row count; None spends budget on a noisy one.

        ``data``: a DataFrame, a path, or a counting source (:func:`dpsynth_core.engines.open_source`,
        closed by its owner). ``engine`` (``auto``, ``pandas``, ``duckdb``, ``spark``) and
        ``memory_limit`` (DuckDB) choose how a DataFrame or path is counted; a source opened
        here is closed before ``fit`` returns. Methods whose :attr:`reads_sources` is False
        read the table in memory (``pandas``) and refuse the other engines.
        ``progress``: optional ``callable(done, message)``, told at coarse steps how far the
        fit is (``done`` from 0 to 1); it only ever hears public facts (step names, labels).
        ``max_rows``: the public cap on synthetic rows (default ``constraints.MAX_SYNTHETIC_ROWS``;
        :func:`~dpsynth_core.release.synthesize` raises it for a release written to a file). It never
        depends on the engine, which ``auto`` chooses from the file's size.
        """
        self._max_rows = max_rows
        self._progress = progress
        self._report(0.0, "Reading the table over the declared domain")
        self.total_epsilon_ = check_epsilon(self.epsilon)
        self.rho_ = check_rho(self.rho)
        declared = as_table_domain(domain)
        # columns computed from another one after the draw are never read nor measured (domain.derived)
        self.derived_, self.released_columns_ = declared.derived, list(declared.kept)
        if self.derived_:
            declared.validate()
        self.full_domain_, self.declared_domain_ = declared, declared.measured()
        self.unit_ = self.declared_domain_.person
        self.check_unit(self.unit_)
        # What the mechanisms spend, per row: the publisher's epsilon is per person (group privacy).
        self.epsilon_ = self.total_epsilon_ / self.declared_domain_.rows_per_person
        source, frame, owned = self._open(data, engine, memory_limit)
        try:
            self._fit_opened(source, frame, rows)
        finally:
            if owned is not None:
                owned.close()
        self._report(1.0, "Measured")
        return self

    def _open(self, data, engine, memory_limit):
        """(source, frame, source to close): a counting source, or the DataFrame of today's path."""
        from ..engines import CountingSource, choose_engine, open_source

        if isinstance(data, CountingSource):
            if getattr(data, "engine", "") == "pandas" and (not self.reads_sources or self.unit_ is not None):
                return None, with_gaps(data.frame, self.full_domain_), None
            self._check_engine(getattr(data, "engine", "?"))
            if data.domain.measured() != self.declared_domain_ or data.domain.gaps != self.full_domain_.gaps:
                raise ParameterError("the counting source was opened over another declaration than the one given")
            return data, None, None
        chosen = choose_engine(data, engine, reads_sources=self.reads_sources)
        if chosen == "pandas":
            return None, with_gaps(as_frame(data), self.full_domain_), None
        self._check_engine(chosen)
        source = open_source(data, self.full_domain_, engine=chosen, memory_limit=memory_limit)
        return source, None, source

    def _check_engine(self, engine: str) -> None:
        if engine != "pandas" and not self.reads_sources:
            from .registry import METHODS

            able = ", ".join(n for n, info in METHODS.items() if info.cls.reads_sources)
            raise ParameterError(
                f"method '{self.method_name}' reads the table in memory (engine 'pandas'), not "
                f"with engine '{engine}'; the engines duckdb and spark serve: {able}"
            )

    def _fit_opened(self, source, frame, rows) -> None:
        self.engine_ = "pandas" if source is None else source.engine
        self.max_rows_ = getattr(self, "_max_rows", None) or constraints.MAX_SYNTHETIC_ROWS
        requested = check_rows(rows, self.max_rows_)
        if frame is not None:
            self.declared_domain_.check_matches(frame.columns)
        self.declared_domain_.validate()
        self._report(0.1, "Measuring the data with noise")
        self.noise_ = make_noise_source(self.random_state)
        if self.unit_ is not None and source is None:  # before any statistic; the identifier is never read again
            frame = bound_rows(
                frame, self.unit_.column, self.unit_.max_rows, self.noise_.rng, ignore_case=self.unit_.ignore_case
            )
        elif self.unit_ is not None:  # the same rows kept by the engine (the same draw from the same generator)
            source = source.bound_persons(self.unit_, self.noise_.rng)
        self.accountant_ = Accountant()
        column_epsilon = self.epsilon_
        n_rows = len(frame) if source is None else source.n_rows
        records = None  # a DP or public count of the records, when there is one (the bins may use it)
        if requested is None and self.row_count_is_public:
            self.rows_ = records = n_rows
            self.row_policy_ = (
                "public: under the substitution relation the number of records is the same "
                "for neighbouring tables, so the true count is used"
            )
        elif requested is None and self.default_rows is not None:
            self.rows_ = self.default_rows
            self.row_policy_ = (
                "public: the method's fixed default number of rows "
                f"({self.default_rows:,}); it was not computed from the data"
            )
        elif requested is None:
            row_epsilon = self.epsilon_ * self.row_count_share
            column_epsilon -= row_epsilon
            # Capped at the public limit on synthetic rows (post-processing of the noisy count).
            records = noisy_count(n_rows, epsilon=row_epsilon, noise=self.noise_)
            self.rows_ = min(records, self.max_rows_)
            self.accountant_.spend(
                PrivacyEvent("discrete Laplace count", row_epsilon, neighbouring=self.neighbouring, label=ROW_COUNT)
            )
            self.row_policy_ = "noisy: the number of rows is the true count plus discrete Laplace noise"
        else:
            self.rows_ = requested
            self.row_policy_ = "public: the publisher asked for this number of rows; it was not computed from the data"
        # Numeric and date columns declared without bins get bins fitted with DP (domain_ holds them).
        rho = self.binning_rho(self.epsilon_, **{o.name: getattr(self, o.name, None) for o in self.options})
        self.domain_, self.bins_ = fit_bins(
            frame if source is None else source,
            self.declared_domain_,
            epsilon=self.epsilon_,
            noise=self.noise_,
            substitution=self.neighbouring == SUBSTITUTE,
            rho=rho,
            records=records,
            gaussian=gaussian_bin_counts(rho, self.neighbouring),
            short_ranges=self.short_ranges,
        )
        for found in self.bins_:
            column = self.declared_domain_.columns[found.column]
            for event in binning_spends(
                column, found.first_epsilon, found.count_epsilon, self.neighbouring, gaussian=found.gaussian
            ):
                self._record(event)
            column_epsilon -= found.epsilon
        if not self.reads_sources:
            encoded = encode_table(frame, self.domain_)
            self.encoding_report_ = encoded.report()
            self._fit(encoded, column_epsilon)
        else:
            if source is None:
                from ..engines.memory import MemorySource

                source = MemorySource(frame, self.domain_)
            elif self.bins_:
                from ..engines import Rebin

                source = source.recode(
                    {b.column: Rebin(self.domain_.kept[b.column]) for b in self.bins_ if not b.inside}
                )
            self.encoding_report_ = source.report()
            self._fit(source, column_epsilon)
        # The same public cap on a count the method estimated (post-processing).
        self.rows_ = min(self.rows_, self.max_rows_)

    def ledger(self) -> Accountant:
        """The release's ledger per privacy unit: the method's own (:attr:`accountant_`, per row) when the
        unit is a row; with a person unit, its composed total stated per person by group privacy
        (:func:`~dpsynth_core.privacy.persons.person_ledger`). The card and the workspace record this."""
        if getattr(self, "unit_", None) is None:
            return self.accountant_
        return person_ledger(self.accountant_, self.unit_, constraints.ADVANCED_COMPOSITION_DELTA)

    def _fit(self, data, epsilon: float) -> None:  # pragma: no cover
        """Spend ``epsilon`` on the columns of ``data``: an :class:`EncodedTable`, or a counting
        source (over the release's domain, adaptive columns on their DP bins) when :attr:`reads_sources`."""
        raise NotImplementedError

    def _spend(self, mechanism: str, epsilon: float, label: str, delta: float = 0.0) -> None:
        self._record(PrivacyEvent(mechanism, epsilon, delta, self.neighbouring, label))

    def _record(self, event: PrivacyEvent) -> None:
        """Spend ``event`` and report the progress it stands for."""
        self.accountant_.spend(event)
        spent = self.accountant_.epsilon_sum() / self.epsilon_  # no pass over the 205,761 entropies of 641 columns
        self._report(0.1 + 0.85 * min(1.0, spent), f"Measured {event.label}")

    def _measure_vocabularies(self, encoded, text_eps: float) -> None:
        """``columns_``: every column on codes, a text column through a CatHist vocabulary of ``text_eps``
        (spent and recorded here), for the methods that work on finite codes (:mod:`.finite`)."""
        from .finite import finite_column

        self.columns_ = {}
        for name in encoded.columns:
            self.columns_[name] = finite_column(
                encoded.columns[name],
                text_epsilon=text_eps,
                rho=self.rho_,
                noise=self.noise_,
                label=f"vocabulary {name}",
            )
            if self.columns_[name].vocabulary is not None:
                self._spend("CatHist", text_eps, f"vocabulary {name}")

    def _report(self, done: float, message: str) -> None:
        """Tell the ``progress`` callable of ``fit``/``sample`` (if any) how far the step is, 0 to 1."""
        callback = getattr(self, "_progress", None)
        if callback is not None:
            callback(min(max(float(done), 0.0), 1.0), message)

    # --- sampling -----------------------------------------------------------------------

    def sample(self, n: int | None = None, *, progress=None) -> pd.DataFrame:
        """Draw ``n`` synthetic rows (default: the fitted row count) from the noisy model.

        ``progress``: as for :meth:`fit`.
        """
        if not hasattr(self, "accountant_"):
            raise RuntimeError("call fit() before sample()")
        self._progress = progress
        count = self.rows_ if n is None else check_rows(n)
        self._report(0.0, f"Drawing {count:,} synthetic rows")
        frame = self._with_derived(self._sample(count))
        self._report(1.0, "Drawn")
        return frame[self.released_columns]

    def _sample(self, n: int) -> pd.DataFrame:  # pragma: no cover
        raise NotImplementedError

    def chunk_sampler(self, *, arrow: bool = False):
        """A function ``draw(index, size)`` -> chunk ``index`` of a large release, ``size`` rows.

        Each chunk comes from its own stream (:func:`~dpsynth_core.privacy.noise.chunk_generator`) under
        one key drawn now from this release's generator, so a chunk depends only on the
        model, the key, its index and its size: the same file whether chunks are drawn in
        order, by threads, or by Spark executors. The function (and the model it carries) may
        be pickled to workers; it never sees the data. ``arrow``: chunks as Arrow tables for a
        Parquet writer (:meth:`_sample_arrow`), the same values as the DataFrames.
        """
        if not hasattr(self, "accountant_"):
            raise RuntimeError("call fit() before sample()")
        if not self.independent_chunks:
            return lambda index, size: self.as_arrow(self.sample(size)) if arrow else self.sample(size)
        key, secure = stream_key(self.noise_.rng), self.noise_.secure
        frozen = copy.copy(self)

        def draw(index: int, size: int):
            twin = copy.copy(frozen)
            twin.noise_ = NoiseSource(secure=secure, rng=chunk_generator(key, index, secure=secure))
            if arrow:
                rows = twin._with_derived(twin._sample_arrow(max(1, int(size)))).select(twin.released_columns)
                return rows if size else rows.slice(0, 0)
            rows = twin._with_derived(twin._sample(max(1, int(size))))[twin.released_columns]
            return rows if size else rows.iloc[:0]  # size 0: an empty release keeps its columns and types

        return draw

    @property
    def released_columns(self) -> list:
        """The release's columns in the declaration's order: the measured ones and those derived from them."""
        return list(getattr(self, "released_columns_", None) or self.domain_.kept)

    def _with_derived(self, rows):
        """Drawn ``rows`` (a DataFrame or an Arrow table) with the derived columns computed from their sources'
        synthetic values by their public rules (:mod:`~dpsynth_core.domain.derived`): post-processing."""
        derived = getattr(self, "derived_", {})
        arrow = not isinstance(rows, pd.DataFrame)
        for name in computing_order(derived):  # each after the columns it reads (a band of a sum, a gap's chain)
            column, rule = derived[name], derived[name].derived
            read = (*rule.sources, name) if rule.gap else rule.sources  # a gap column holds its drawn gap
            cells = {s: (rows.column(s).to_pandas() if arrow else rows[s]).reset_index(drop=True) for s in read}
            values = derived_values(column, cells, self.full_domain_.kept.get(rule.source), self.noise_.rng)
            if not arrow:
                rows = rows.assign(**{name: values.series().values})
            elif rule.gap:  # in its own place
                rows = rows.set_column(rows.schema.get_field_index(name), name, values.arrow())
            else:
                rows = rows.append_column(name, values.arrow())
        return rows

    def _sample_arrow(self, n: int):
        """``_sample(n)`` as an Arrow table (:meth:`as_arrow`); a method that decodes its codes column by
        column builds it from the codes instead (no Python string per cell)."""
        return self.as_arrow(self._sample(n))

    def as_arrow(self, rows: pd.DataFrame):
        """Drawn ``rows`` as the Arrow table a Parquet file holds: :func:`~dpsynth_core.data.arrow_chunks.arrow_chunk`,
        dates and times typed (:func:`~dpsynth_core.data.arrow_chunks.typed`)."""
        from ..data.arrow_chunks import arrow_chunk, typed

        return typed(arrow_chunk(rows, None), self.domain_)

    def card_details(self) -> dict:
        """Method-specific, data-independent facts for the release card."""
        return {}

    def release_notes(self) -> list[str]:
        """Plain sentences for the card about what the release holds, from public facts and DP output only:
        a noisy row count that is small beside its noise, and a free-text column of which no value came out."""
        from .finite import FiniteColumn, vocabulary_note

        notes = []
        count = row_count_event(self.accountant_.events)
        if count is not None and self.rows_ < ROW_NOTE_NOISES / count.epsilon:
            rows = f"{self.rows_:,} row{'' if self.rows_ == 1 else 's'}"
            # (the count's epsilon per row; with a person unit the card states spends per person, so none here)
            share = f" (ε = {count.epsilon:.3g} for the count)" if getattr(self, "unit_", None) is None else ""
            notes.append(
                f"The table has {rows}: the real number of records plus noise of typically about "
                f"±{1 / count.epsilon:,.0f} rows{share}, so with few records it "
                "can be far from the real number. A number of rows that you choose costs no budget: 'Use a fixed "
                "number of rows' on the Privacy page, --rows on the command line, rows= in Python."
            )
        columns = getattr(self, "columns_", None) or {}
        notes += [note for c in columns.values() if isinstance(c, FiniteColumn) and (note := vocabulary_note(c))]
        return notes

    def text_facts(self) -> dict[str, dict]:
        """Each free-text column's public facts (:func:`~.finite.text_facts`): its placeholder, how many values
        came out, the records a value needed; the card reads the synthetic output with them."""
        from .finite import FiniteColumn, text_facts

        columns = getattr(self, "columns_", None) or {}
        return {n: f for n, c in columns.items() if isinstance(c, FiniteColumn) and (f := text_facts(c))}

    def missing_guarantee(self) -> str | None:
        """None when the ledger's total is a true DP guarantee; else why there is none."""
        return None

    def publisher_details(self) -> dict:
        """Facts that depend on the data (for the publisher's eyes only, never in a release)."""
        return {}
