"""A measurement over merged cells: each axis of a group's marginal may have its cells merged into fewer (a map from
each cell to its merged cell), so a noisy count covers several of the model's cells. The loss then compares the
model's marginal merged the same way (:func:`merge_cells`) with the noisy counts, and its gradient reaches every cell
of a merged one alike (:func:`spread_cells`, the adjoint). Public arithmetic only: the maps are public.
"""

from __future__ import annotations

import functools

import numpy as np


def _one_hot(cell_map: np.ndarray) -> np.ndarray:
    out = np.zeros((len(cell_map), int(cell_map.max()) + 1))
    out[np.arange(len(cell_map)), cell_map] = 1.0
    return out


def merge_cells(array: np.ndarray, maps: tuple | None) -> np.ndarray:
    """``array`` with each axis's cells summed into their merged cells (``maps``: per axis a map, or None to keep
    the axis; None: the array as it is).

    >>> merge_cells(np.arange(6.0).reshape(3, 2), (np.array([0, 0, 1]), None)).tolist()
    [[2.0, 4.0], [4.0, 5.0]]
    >>> merge_cells(np.arange(6.0).reshape(3, 2), (np.array([1, 0, 1]), None)).tolist()  # any map
    [[2.0, 3.0], [4.0, 6.0]]
    """
    if maps is None:
        return array
    out = np.asarray(array, dtype=float)
    for axis, cell_map in enumerate(maps):
        if cell_map is None:
            continue
        starts = _run_starts(cell_map.tobytes(), cell_map.dtype.str)
        if starts is not None:  # runs in order
            out = np.add.reduceat(out, starts, axis=axis)
        else:
            out = np.moveaxis(np.tensordot(np.moveaxis(out, axis, -1), _one_hot(cell_map), axes=1), -1, axis)
    return out


@functools.lru_cache(maxsize=4096)
def _run_starts(raw: bytes, dtype: str) -> np.ndarray | None:
    """Where the merged cells of the map held in ``raw`` start, when they are runs in order (:func:`merge_cells` sums
    them by ``np.add.reduceat``); else None. Remembered: a model's loss merges by the same public maps in every step
    (a quarter of a 58-column release at epsilon 5 went on finding these again)."""
    cell_map = np.frombuffer(raw, dtype=dtype)
    starts = np.flatnonzero(np.diff(cell_map)) + 1
    if not (cell_map[0] == 0 and np.array_equal(cell_map[starts], np.arange(1, len(starts) + 1))):
        return None
    out = np.r_[0, starts]
    out.flags.writeable = False
    return out


def spread_cells(array: np.ndarray, maps: tuple | None) -> np.ndarray:
    """The adjoint of :func:`merge_cells`: each cell takes its merged cell's value.

    >>> spread_cells(np.array([[1.0, 2.0], [3.0, 4.0]]), (np.array([0, 0, 1]), None)).tolist()
    [[1.0, 2.0], [1.0, 2.0], [3.0, 4.0]]
    """
    if maps is None:
        return array
    out = np.asarray(array, dtype=float)
    for axis, cell_map in enumerate(maps):
        if cell_map is not None:
            out = np.take(out, cell_map, axis=axis)
    return out
