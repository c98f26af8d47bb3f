"""A survey's question blocks: the columns that answer one question, and who skipped the whole question.

A survey tool exports a question with several answers (films seen, characters rated, options ranked) as one
column per answer, named ``question | answer`` when the header is read over two rows
(:data:`~dpsynth_core.domain.header.HEADER_JOIN`). A respondent who skips the question leaves every one of
them empty, one who answers it leaves few or none empty: FiveThirtyEight's Star Wars survey (1,186
respondents) has 30% skip all 14 character questions and 6% skip some. Pairs of columns cannot keep that at a
small epsilon (AIM measures few of a block's pairs, each too noisy at 7 x 7 cells), so a release mixed answered
and skipped cells in 98.8% of its rows, and the distinguishing game told them from the real rows at 99%.

So each block gets a *hidden column* of the model (never released): whether the record answered any of the
block's columns (1) or none (0). Each block column's 1-way marginal is measured as its pair with the hidden
column instead, at the same budget (one measurement; a record is in one cell: L2 sensitivity 1, as a 1-way's):
the column's counts with its "missing" cell split into the records that skipped the whole block and the rest.
By definition a record that skipped the block is missing in every one of its columns, so the pair's other cells
in the hidden column's 0 row are empty for every table: the model gives them probability 0 (public structure,
:func:`structure`) and their noisy counts are set to 0 (post-processing of what is known). The pairs meet in
the hidden column, so a drawn record skips the block whole with the measured share, and answers it otherwise.

AIM's rounds may also choose a hidden column with any column outside its block, or with another hidden
column (:meth:`Blocks.candidates`, weighed as one of its block's columns): so a question that gates others
("Have you seen any of the films?" No: every later question skipped) can join who skipped them. Their exact
counts (:class:`HiddenCounts`) serve the scores and the measurements only, as every candidate's do.

A block is formed from the names and the declaration alone (never the data): at least :data:`MIN_COLUMNS`
kept columns whose names share a question (:func:`question_of`: the part before their last ``" | "``, else
before their last ``" - "``), each declared with missing cells. No
extra budget is spent: the count of records that skipped the block is read only inside these measurements.
"""

from __future__ import annotations

import collections
import math
import re
from dataclasses import dataclass

import numpy as np

from ... import constraints
from ...domain.header import HEADER_JOIN
from ...engines.recodings import Merge
from ...pgm import Measurement
from ...wording import counted

#: The fewest columns of one question that form a block.
MIN_COLUMNS = 2
#: The most columns of one block (its skip count is read over 2 ** k cells of missing or not).
MAX_COLUMNS = 60
#: Between a question and its answer in a one-row header (SurveyMonkey's "Which sides? - Squash").
ANSWER_JOIN = " - "
#: Qualtrics' default name of one answer of a question (``Q2_1``, ``Q5_2_3``): the question is ``Q2``, ``Q5``.
QUALTRICS_CODE = re.compile(r"^(Q\d+)(?:_\d+)+$")
#: A block's pooled skip count over this many of its deviations keeps every column's "missing" in the model.
SKIP_Z = constraints.MISSING_Z
#: Ends a hidden column's name (``question | (answered any)``): never a column of the release.
HIDDEN_SUFFIX = "(answered any)"


@dataclass(frozen=True)
class QuestionBlock:
    """The columns of one question (in the table's order) and the name of the model's hidden column."""

    question: str
    columns: tuple
    hidden: str


def question_blocks(missing: dict) -> list[QuestionBlock]:
    """The blocks of a table's kept columns (``missing``: name -> whether the column may be missing): names
    sharing a question (:func:`question_of`), each able to be missing. Public: names and declaration only.

    >>> [(b.question, b.columns, b.hidden) for b in question_blocks(
    ...     {"id": False, "Seen? | I": True, "Seen? | II": True, "Age | Response": True})]
    [('Seen?', ('Seen? | I', 'Seen? | II'), 'Seen? | (answered any)')]
    """
    by_question: dict = {}
    for name, may_miss in missing.items():
        question = question_of(str(name))
        if may_miss and question is not None:
            by_question.setdefault(question, []).append(name)
    blocks = []
    for code, names in by_question.items():
        if MIN_COLUMNS <= len(names) <= MAX_COLUMNS:
            question = _worded(code, str(names[0]))
            hidden = f"{question}{HEADER_JOIN}{HIDDEN_SUFFIX}"
            while hidden in missing:
                hidden += " "
            blocks.append(QuestionBlock(question, tuple(names), hidden))
    return blocks


def _worded(question: str, first: str) -> str:
    """A question known by Qualtrics' code (``Q2``) named with its text too, from its first column's name read
    over several rows (``Q2_1 | Rate each - Taste``: ``Q2 | Rate each``); any other question as it is."""
    code, _, text = first.partition(HEADER_JOIN)
    if not QUALTRICS_CODE.match(code) or not text:
        return question
    return f"{question}{HEADER_JOIN}{text.rsplit(ANSWER_JOIN, 1)[0]}"


def plan_words(domain) -> str | None:
    """The Privacy page's sentence on the declaration's question blocks (None without any), before the draw:
    from the names and the declaration alone."""
    found = question_blocks({n: bool(c.missing) for n, c in domain.kept.items()})
    if not found:
        return None
    return (
        f"**{counted(len(found), 'question')} answered over several columns** (the columns' names share the "
        "question, such as "
        f"'{found[0].question[:60]}{'...' if len(found[0].question) > 60 else ''}'): each of those columns is "
        "measured with whether the respondent answered any of them, at no extra cost, so a synthetic respondent "
        "skips a whole question as often as the real ones do and otherwise answers it."
    )


def question_of(name: str) -> str | None:
    """The question a column answers, by its name: Qualtrics' default code of a question's answer
    (``Q2_1``: question ``Q2``, alone or first in a header read over several rows); else the part before
    its last :data:`HEADER_JOIN` (a header read over several rows: SurveyMonkey's question above each answer),
    else before its last :data:`ANSWER_JOIN` (SurveyMonkey's one-row export); None when the name has none.

    >>> question_of("Which films have you seen? | Episode I"), question_of("Which sides? - Squash"), question_of("age")
    ('Which films have you seen?', 'Which sides?', None)
    >>> question_of("Q2_1 | Rate each - Taste"), question_of("Q12_3"), question_of("Q1 | How old are you?")
    ('Q2', 'Q12', 'Q1')
    """
    code = QUALTRICS_CODE.match(name.split(HEADER_JOIN, 1)[0])
    if code:
        return code.group(1)
    for join in (HEADER_JOIN, ANSWER_JOIN):
        if join in name:
            return name.rsplit(join, 1)[0]
    return None


def _missing_or_not(blocks: list, columns: dict) -> dict:
    """The public recoding of every column of ``blocks`` to 1 (missing) or 0 (any value)."""
    out = {}
    for block in blocks:
        for name in block.columns:
            column = columns[name]
            out[name] = Merge(tuple(int(c == column.missing_code) for c in range(column.cells)), 2)
    return out


def own_counts(one_way: np.ndarray, skipped: int, missing_code: int) -> np.ndarray:
    """A block column's pair with its hidden column (axes: column, hidden) from its 1-way counts and the
    records that skipped the block.

    >>> own_counts(np.array([5, 3, 4]), 3, 2).tolist()
    [[0, 5], [0, 3], [3, 1]]
    """
    out = np.zeros((len(one_way), 2), dtype=np.asarray(one_way).dtype)
    out[:, 1] = one_way
    out[missing_code, 1] -= skipped
    out[missing_code, 0] = skipped
    return out


def structure(cells: int, missing_code: int) -> np.ndarray:
    """The cells of a block column's pair with its hidden column that may hold records (public: a record that
    skipped the block is missing in it).

    >>> structure(3, 2).tolist()
    [[False, True], [False, True], [True, True]]
    """
    keep = np.ones((cells, 2), dtype=bool)
    keep[:, 0] = False
    keep[missing_code, 0] = True
    return keep


class Blocks:
    """A release's question blocks, as the marginals method measures them: each column's own marginal (the
    column alone, or its pair with its block's hidden column), the hidden columns' cells, and the structure
    the model keeps."""

    def __init__(self, source, columns: dict):
        self.blocks = question_blocks({n: c.missing_code is not None for n, c in columns.items()})
        self.columns = columns
        self.hidden_of = {n: b.hidden for b in self.blocks for n in b.columns}
        self.of_hidden = {b.hidden: b.columns for b in self.blocks}
        #: group -> the cells that may hold records (:func:`structure`), for every block column's pair
        self.structure = {
            (n, h): structure(columns[n].cells, columns[n].missing_code) for n, h in self.hidden_of.items()
        }
        #: ``source``, counting groups that hold hidden columns too (:class:`HiddenCounts`)
        self.counts = HiddenCounts(source, self)
        #: hidden column -> the exact number of records missing in every column of its block, read only to make
        #: the block's measured pairs (:func:`own_counts`)
        self.skipped = {b.hidden: int(self.counts.marginal((b.hidden,))[0]) for b in self.blocks}

    def __getstate__(self) -> dict:
        """Pickled without its counting source (a fitted model drawn on Spark's executors: only the fit counts)."""
        return {k: v for k, v in self.__dict__.items() if k != "counts"}

    @property
    def cells(self) -> dict:
        """Hidden column -> 2 (answered none, answered any)."""
        return {b.hidden: 2 for b in self.blocks}

    def own(self, table, name: str) -> tuple[tuple, np.ndarray]:
        """``name``'s own marginal: its group and exact counts (its 1-way, or its pair with its hidden column)."""
        counts = table.marginal((name,))
        hidden = self.hidden_of.get(name)
        if hidden is None:
            return (name,), counts
        return (name, hidden), own_counts(counts, self.skipped[hidden], self.columns[name].missing_code)

    def clear_structural(self, group: tuple, noisy: np.ndarray) -> None:
        """Set to 0 the noisy counts of ``group``'s cells that are empty in every table (post-processing)."""
        keep = self.structure.get(tuple(group))
        if keep is not None:
            noisy[~keep] = 0

    def skips(self, measurements: list) -> dict:
        """Hidden column -> the block's skip count pooled by precision over its columns' pairs among
        ``measurements``: (estimate, its standard deviation, the pairs pooled). Post-processing."""
        pooled: dict = {}
        for m in measurements:
            if m.group in self.structure:  # a block column's own pair
                weight = pooled.setdefault(m.group[1], [0.0, 0.0, 0])
                weight[0] += float(m.noisy[self.columns[m.group[0]].missing_code, 0]) / m.sigma**2
                weight[1] += 1 / m.sigma**2
                weight[2] += 1
        return {h: (total / precision, precision**-0.5, n) for h, (total, precision, n) in pooled.items()}

    def collapsed(self, measurements: list) -> list:
        """``measurements`` with each block column's pair read back as the column's 1-way, for the steps that
        pool a column's counts (its support, the record count): the column's answered cells, plus at
        "missing" the block's skip count pooled over every pair of the block (:meth:`skips`; so "missing" is
        not twice as noisy as a 1-way's cell). Its standard deviation is raised by ``sqrt(1 + 1 / n)`` for the
        ``n`` pairs pooled, to cover the skip count's own noise. Post-processing of the noisy counts."""
        skips, out = self.skips(measurements), []
        for m in measurements:
            if m.group not in self.structure:
                out.append(m)
                continue
            name, (skipped, _, n) = m.group[0], skips[m.group[-1]]
            counts = np.array(m.noisy[:, 1], dtype=float)
            counts[self.columns[name].missing_code] += skipped
            out.append(Measurement((name,), counts, m.sigma * np.sqrt(1 + 1 / n)))
        return out

    def supported(self, found: dict, measurements: list) -> dict:
        """The model's support: ``found`` (column -> cells kept, :func:`~.measurements.support`) with each
        block's structure, and every block column's "missing" cell kept when the block's pooled skip count is
        told from empty (over ``SKIP_Z`` deviations): each column of the block then holds at least those
        records there, so a column's own test (as noisy as one pair's) cannot cut its "missing" and with it
        the block's skips (a person unit of 2 rows, Star Wars: one character's "missing" cut, no synthetic
        record skipped the question). Post-processing."""
        out = {**found, **self.structure}
        for hidden, (skipped, sd, _) in self.skips(measurements).items():
            if skipped > SKIP_Z * sd:
                for name in self.of_hidden[hidden]:
                    if name in out:
                        keep = np.array(out[name], dtype=bool)
                        keep[self.columns[name].missing_code] = True
                        out[name] = keep
        return out

    def candidates(self, names: list, work: list) -> tuple[list, dict]:
        """Pairs AIM's rounds may also offer: each hidden column with every column outside its block, and with
        every other hidden column (so a question that gates others, "Have you seen any of the films?", can
        join who skipped them), each in the model's column order; and their weights, a hidden column
        weighing as one of its block's columns (in as many of the workload's groups ``work``, on average, as
        :func:`~.selection.weights` counts), so the selection's sensitivity stays the pairs' own. Public."""
        holding = collections.Counter(a for s in work for a in s)
        weight = {b.hidden: sum(holding[c] for c in b.columns) / len(b.columns) for b in self.blocks}
        pairs = [(n, b.hidden) for b in self.blocks for n in names if n not in b.columns]
        pairs += [(a.hidden, b.hidden) for i, a in enumerate(self.blocks) for b in self.blocks[i + 1 :]]
        bits = {b.hidden: len(b.columns) for b in self.blocks}
        bits.update({n: math.log2(self.columns[n].cells) for n in names})
        pairs = [p for p in pairs if sum(bits[c] for c in p) <= MAX_COLUMNS]  # its count's flat index fits
        return pairs, {p: float(sum(holding.get(c, weight.get(c, 0.0)) for c in p)) for p in pairs}

    def described(self) -> list[dict]:
        """The card's list: each question and its columns."""
        return [{"question": b.question, "columns": list(b.columns)} for b in self.blocks]


class HiddenCounts:
    """A counting source that also counts groups holding hidden columns (exact counts, for the rounds'
    scores and measurements only, as every candidate's): the group's columns counted with each hidden
    column's block recoded to missing or not (a public :class:`~dpsynth_core.engines.recodings.Merge`), a record's
    hidden value then read from its block's cells. Any other group is the source's."""

    def __init__(self, table, blocks: Blocks):
        self.table, self.blocks = table, blocks
        self.of = {b.hidden: b for b in blocks.blocks}
        self.companions = getattr(table, "companions", None) and self._companions
        self._binary: dict = {}  # None or a group's hidden columns -> the source with blocks' columns recoded

    def _companions(self, group) -> list[tuple]:
        return [tuple(group)] if any(c in self.of for c in group) else self.table.companions(group)

    def marginal(self, group, **options) -> np.ndarray:
        return self.marginals([group], **options)[0]

    def marginals(self, groups, **options) -> list[np.ndarray]:
        groups = [tuple(g) for g in groups]
        plain = [g for g in groups if not any(c in self.of for c in g)]
        found = dict(zip(plain, self.table.marginals(plain, **options))) if plain else {}
        return [found[g] if g in found else self._hidden(g) for g in groups]

    def _hidden(self, group: tuple) -> np.ndarray:
        """Exact counts of a group holding hidden columns (axes in the group's order)."""
        hidden = tuple(c for c in group if c in self.of)
        # every block recoded once, unless the group holds another block's column: then only its own blocks
        key = hidden if any(c in self.blocks.hidden_of for c in group) else None
        if key not in self._binary:
            recoded = self.blocks.blocks if key is None else [self.of[h] for h in hidden]
            self._binary[key] = self.table.recode(_missing_or_not(recoded, self.blocks.columns))
        parts = [self.of[c].columns if c in self.of else (c,) for c in group]
        cells = [2 if c in self.of else self.blocks.columns[c].cells for c in group]
        index, counts = self._binary[key].sparse_marginal(tuple(n for part in parts for n in part))
        codes = []
        for part, c in zip(reversed(parts), reversed(group)):
            width = 2 ** len(part) if c in self.of else cells[group.index(c)]
            code, index = index % width, index // width
            codes.append((code != width - 1).astype(np.int64) if c in self.of else code)
        flat = np.zeros(int(np.prod(cells)), dtype=np.int64)
        np.add.at(flat, np.ravel_multi_index(tuple(reversed(codes)), cells), counts)
        return flat.reshape(cells)
