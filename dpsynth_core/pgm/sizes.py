"""The model size each candidate group would make, worked out one round ahead in a second process.

An adaptive method offers, each round, only the candidate groups whose junction tree would stay
under a size limit (:func:`~dpsynth_core.pgm.junction_tree.model_cells_with`, pure Python: a
good part of a round). The sizes depend only on the column groups measured so far and the public
number of cells per column, so once a round's group is chosen the next round's sizes can be
worked out in another process while this one fits the model, on the machine's other core. The
numbers are the same, exactly, wherever they are computed: with no second process free (it
starts on first use, in the background; a busy one serves another release) they are computed
here when asked for. Only column names, cell counts and groups go to the other process, as JSON
over a pipe: nothing of the data.
"""

from __future__ import annotations

import atexit
import itertools
import json
import subprocess
import sys
import threading
from pathlib import Path

from .junction_tree import JunctionTree, model_cells_with


class CandidateSizes:
    """``model_cells_with(cells, groups, [c])`` for each candidate group ``c`` of a model, kept while
    the model's cliques stay the same (the sizes change only with them)."""

    def __init__(self, cells: dict, candidates):
        self.cells, self.candidates = dict(cells), list(candidates)
        self._for, self._sizes = None, {}
        self._ahead = None  # (the model's cliques, its groups, the request) asked of the other process

    def _needed(self, tree, candidates=None) -> tuple:
        """The tree's cliques and the ``candidates`` (default: all) whose sizes are not yet known for them
        (after setting those that fit inside one clique: the model's own size)."""
        structure = tuple(tree.cliques)
        if structure != self._for:
            self._for, self._sizes = structure, {}
        missing = [c for c in (self.candidates if candidates is None else candidates) if c not in self._sizes]
        self._sizes.update(dict.fromkeys((c for c in missing if tree.home(c) is not None), tree.size()))
        return structure, [c for c in missing if c not in self._sizes]

    def ahead(self, groups, candidates=None) -> None:
        """Start on the sizes of ``candidates`` (default: all) for the model of the measured ``groups`` in the
        other process, if one is free."""
        groups = [tuple(g) for g in groups]
        structure, missing = self._needed(JunctionTree.build(self.cells, list(dict.fromkeys(groups))), candidates)
        request = _OTHER.submit(self.cells, groups, missing) if missing else None
        self._ahead = (structure, groups, missing, request) if request is not None else None

    def of(self, model, groups, candidates=None) -> dict:
        """Candidate group -> the model's size with it added, for ``model`` (measured ``groups``), for
        ``candidates`` (default: all) at least."""
        groups = [tuple(g) for g in groups]
        structure, missing = self._needed(model.tree, candidates)
        ahead, self._ahead = self._ahead, None
        if missing and ahead is not None and ahead[:3] == (structure, groups, missing):
            answer = _OTHER.collect(ahead[3])
            if answer is not None:
                self._sizes.update(zip(missing, answer))
                return self._sizes
        if missing:
            self._sizes.update(model_cells_with(self.cells, groups, missing))
        return self._sizes


#: The other process: loads junction_tree.py alone (standard library only, so it starts in a tenth of a
#: second), then answers one JSON line per request, ``[id, cells, groups, candidates]`` -> ``[id, sizes]``.
_SERVE = """
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("junction_tree", sys.argv[1])
tree = sys.modules["junction_tree"] = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tree)
print(json.dumps("ready"), flush=True)
for line in sys.stdin:
    key, cells, groups, candidates = json.loads(line)
    sizes = tree.model_cells_with(cells, groups, candidates)
    print(json.dumps([key, [sizes[tuple(c)] for c in candidates]]), flush=True)
"""


class _Other:
    """One helper process per Python process, started on first use without waiting for it; one request
    at a time (a second release meanwhile computes its own sizes)."""

    def __init__(self):
        self._state = threading.Condition()
        self._process = None  # None: not started; False: cannot start or ended
        self._ready = self._busy = False
        self._answers: dict = {}
        self._ids = itertools.count()

    def _start(self) -> None:
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-I", "-c", _SERVE, str(Path(__file__).with_name("junction_tree.py"))],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                encoding="utf-8",
            )
        except (OSError, TypeError, ValueError):  # no second process here (or no sys.executable): sizes here
            self._process = False
            return
        atexit.register(self._process.kill)
        threading.Thread(target=self._read, args=(self._process,), daemon=True, name="dpsynth-sizes").start()

    def _read(self, process) -> None:
        for line in process.stdout:
            message = json.loads(line)
            with self._state:
                if message == "ready":
                    self._ready = True
                else:
                    key, sizes = message
                    self._answers[key] = sizes
                    self._busy = False
                self._state.notify_all()
        with self._state:  # the process ended: every waiting request is answered None
            self._process, self._ready, self._busy = False, False, False
            self._state.notify_all()

    def submit(self, cells: dict, groups: list, candidates: list) -> int | None:
        """A request's id, or None when no process is ready and free (the caller then computes itself)."""
        with self._state:
            if self._process is None:
                self._start()
            if not (self._process and self._ready) or self._busy:
                return None
            key = next(self._ids)
            self._answers = {k: v for k, v in self._answers.items() if k > key - 64}  # never collected: dropped
            try:
                self._process.stdin.write(json.dumps([key, cells, groups, candidates]) + "\n")
                self._process.stdin.flush()
            except (OSError, ValueError):
                return None
            self._busy = True
            return key

    def collect(self, key: int) -> list | None:
        """The sizes asked for by request ``key``, in the candidates' order (None if the process ended)."""
        with self._state:
            self._state.wait_for(lambda: key in self._answers or not self._process, timeout=60)
            return self._answers.pop(key, None)


_OTHER = _Other()
