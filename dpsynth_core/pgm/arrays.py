"""Sums and exponentials of a graphical model's arrays, fast and bit for bit what numpy's plain calls give:
the belief propagation (:mod:`.model`), the descent's compiled loop (:mod:`.descent`) and the sampler use them.
"""

from __future__ import annotations

import math

import numpy as np

_c_einsum = np._core.multiarray.c_einsum  # np.einsum without its Python layer (same computation)


def _summing(shape: tuple, axes: tuple):
    """How to sum an array of ``shape`` over ``axes``: einsum's subscripts ``(in, out)``, or None for
    ``np.add.reduce``. Both add each output's numbers one after another in the array's order, except
    along the innermost axis, which ``np.add.reduce`` sums pairwise when it is summed out; so einsum
    (several times faster over axes that are not the last ones) is used only when the innermost axis
    of more than one cell is kept: the same numbers, bit for bit (tests/core/pgm)."""
    inner = max((i for i, n in enumerate(shape) if n > 1), default=None)
    if not axes or inner is None or inner in axes:
        return None
    return list(range(len(shape))), [i for i in range(len(shape)) if i not in axes]


#: Arrays of at least this many cells sum a short innermost axis out row by row (:func:`summer`);
#: below, one reduction call costs less than its few.
ROWS_FROM = 2048
#: Arrays of fewer cells are summed by numpy's reduction in the descent's loop (einsum gains nothing there).
EINSUM_FROM = 1024


def _rows(shape: tuple, axes: tuple):
    """For a sum whose innermost axis (2 to 7 cells) goes with the rest kept just before it: the
    other axes summed out, else None. ``np.add.reduce`` adds such a row's cells one after another
    and then the rows in the array's order (tests/core/pgm checks it bit for bit), which numpy's
    adds of whole slices repeat, in far fewer steps on a large array."""
    last = len(shape) - 1
    before = [k for k in range(last) if shape[k] > 1]
    if last in axes and 2 <= shape[last] <= 7 and before and before[-1] not in axes and math.prod(shape) >= ROWS_FROM:
        return tuple(k for k in axes if k != last)
    return None


def summer(shape: tuple, axes: tuple) -> tuple:
    """``(f, arguments)``: ``f(array, *arguments, out=out)`` is ``np.add.reduce(array, axis=axes, out=out)``
    for a C-ordered array of ``shape``, the same bits, by einsum (:func:`_summing`), row by row
    (:func:`_rows`) or numpy's reduction."""
    if math.prod(shape) < EINSUM_FROM:
        return np.add.reduce, (axes,)
    letters = _summing(shape, axes)
    if letters:
        return _c_einsum, letters
    rest = _rows(shape, axes)
    if rest is None:
        return np.add.reduce, (axes,)
    cells = shape[-1]
    then, more = summer(shape[:-1], rest) if rest else (None, ())
    buffer = np.empty(shape[:-1]) if rest else None

    def rows(array, *, out):
        total = buffer if rest else out
        np.copyto(total, array[..., 0])
        for j in range(1, cells):
            np.add(total, array[..., j], out=total)
        return then(total, *more, out=out) if rest else out

    return rows, ()


def _sum(array: np.ndarray, axes: tuple) -> np.ndarray:
    """``np.add.reduce(array, axis=axes)``, the same bits (:func:`summer`; an array not C-ordered: numpy's)."""
    if not array.flags.c_contiguous:
        return np.add.reduce(array, axis=axes)
    add, more = summer(array.shape, axes)
    return add(array, *more, out=np.empty(tuple(n for k, n in enumerate(array.shape) if k not in axes)))


def exp_into(theta: np.ndarray, single: np.ndarray | None = None) -> np.ndarray:
    """``exp(theta)`` into ``theta`` (float64, at most 0 once shifted by its maximum), evaluated in single
    precision: four times faster than double, the largest part of a belief propagation. Each cell is off
    by at most 1.2e-7 of the largest (1), relatively by ``(|theta| / 2 + 1) * 1.2e-7``: marginals within
    about 1e-7 of exact, far below any noise (a million records move by a tenth of a record). Below -87
    (under 1e-38 of the largest) it loses precision, below -104 it gives 0. ``single``: a float32 buffer."""
    single = np.empty(theta.shape, dtype=np.float32) if single is None else single
    np.copyto(single, theta, casting="same_kind")
    np.exp(single, out=single)
    np.copyto(theta, single)
    return theta
