"""Run one call in a fresh process and measure that process's own peak resident memory.

A memory limit must measure the call under test, not the test process: pytest's resident memory
depends on every test that ran before, so a limit checked against it is flaky. :class:`Isolated`
starts a small server process (``python -m tests.isolated MODULE...``) that imports the library
once, then forks one child per call. The child runs the call and exits; the server reads the
child's own peak from ``wait4`` (``ru_maxrss``). A child starts from the server's resident memory
(the imports, as in a fresh ``python -m dpsynth_core`` run), never from pytest's, so every peak is
what a fresh process running that one call would reach, whatever ran before it.

Linux only (``os.fork``, ``os.wait4``); a call is named by ``"module:function"`` and its
arguments and result travel as pickles.
"""

from __future__ import annotations

import importlib
import os
import pickle
import pkgutil
import select
import signal
import subprocess
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _call(target: str, args: tuple, kwargs: dict):
    module, name = target.split(":")
    return getattr(importlib.import_module(module), name)(*args, **kwargs)


def _run_one(target: str, args: tuple, kwargs: dict, timeout: float) -> dict:
    """Fork a child that runs the call; its result, seconds, own peak bytes and whether it timed out."""
    read_end, write_end = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # the child: run, send the result, leave without running the server's exit handlers
        os.close(read_end)
        try:
            payload = ("ok", _call(target, args, kwargs))
        except BaseException as exc:  # noqa: BLE001 - reported to the test, which decides
            payload = ("raised", f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}")
        try:
            data = pickle.dumps(payload)
        except Exception as exc:  # noqa: BLE001
            data = pickle.dumps(("raised", f"unpicklable result: {exc!r}"))
        with os.fdopen(write_end, "wb") as out:
            out.write(data)
        os._exit(0)
    os.close(write_end)
    chunks, timed_out, deadline = [], False, start + timeout
    with os.fdopen(read_end, "rb") as pipe:
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                timed_out = True
                os.kill(pid, signal.SIGKILL)
                break
            ready, _, _ = select.select([pipe], [], [], left)
            if ready:
                chunk = os.read(pipe.fileno(), 1 << 20)
                if not chunk:
                    break
                chunks.append(chunk)
        _, status, usage = os.wait4(pid, 0)
    seconds = time.perf_counter() - start
    if timed_out:
        outcome = ("timeout", f"killed after {timeout:.0f} s")
    elif not chunks:
        outcome = ("raised", f"the child died (wait status {status})")
    else:
        outcome = pickle.loads(b"".join(chunks))
    return {
        "outcome": outcome[0],
        "value": outcome[1],
        "seconds": seconds,
        "peak_bytes": usage.ru_maxrss * 1024,
    }  # ru_maxrss is in KiB on Linux


def _preload(name: str) -> None:
    """Import a module, or with ``pkg.*`` a package and every module in it (a fresh run's lazy
    imports then cost each child nothing, as a warm process's would not)."""
    if not name.endswith(".*"):
        importlib.import_module(name)
        return
    package = importlib.import_module(name[:-2])
    for module in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
        if not module.name.endswith("__main__"):
            importlib.import_module(module.name)


def serve(preload: list[str]) -> None:
    """Read pickled requests on stdin, answer each with a pickled result on stdout."""
    for name in preload:
        _preload(name)
    requests, answers = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing but answers on the real stdout
    while True:
        try:
            target, args, kwargs, timeout = pickle.load(requests)
        except EOFError:
            return
        pickle.dump(_run_one(target, args, kwargs, timeout), answers)
        answers.flush()


class Isolated:
    """A running server; ``run("module:function", *args)`` calls it in a fresh child."""

    def __init__(self, *preload: str):
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "tests.isolated", *preload],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )

    def run(self, target: str, *args, timeout: float = 60.0, **kwargs) -> dict:
        """``{"outcome": "ok"|"raised"|"timeout", "value", "seconds", "peak_bytes"}`` of one call."""
        pickle.dump((target, args, kwargs, timeout), self._proc.stdin)
        self._proc.stdin.flush()
        return pickle.load(self._proc.stdout)

    def close(self) -> None:
        self._proc.stdin.close()
        self._proc.wait(timeout=30)
        self._proc.stdout.close()

    def __enter__(self) -> Isolated:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def cli(argv: list[str], stdout: str, stderr: str, workspace: str) -> int:
    """``python -m dpsynth_core ARGV`` in this (forked, fresh) process: standard input from /dev/null,
    output and errors into the two files, the workspace folder ``workspace``; the exit status.

    The module runs as ``-m`` runs it (``runpy`` as ``__main__``, the same ``sys.argv``), and what
    would escape it is what the interpreter would do: ``SystemExit`` gives the status, any other
    exception prints its traceback and gives 1. The call's peak memory is measured as for any call.
    """
    import runpy

    for fd, path, flags in (
        (0, os.devnull, os.O_RDONLY),
        (1, stdout, os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
        (2, stderr, os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
    ):
        opened = os.open(path, flags, 0o644)
        os.dup2(opened, fd)
        os.close(opened)
    sys.stdin, sys.stdout = open(0, closefd=False), open(1, "w", closefd=False)
    sys.stderr = open(2, "w", closefd=False, errors="backslashreplace")
    os.environ["DPSYNTH_WORKSPACE"] = workspace
    sys.argv = [str(ROOT / "dpsynth_core" / "__main__.py"), *argv]
    try:
        runpy.run_module("dpsynth_core", run_name="__main__", alter_sys=True)
        status = 0
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            status = exc.code or 0
        else:
            print(exc.code, file=sys.stderr)
            status = 1
    except BaseException:  # noqa: BLE001 - what the interpreter would print
        traceback.print_exc()
        status = 1
    sys.stdout.flush()
    sys.stderr.flush()
    return status


def allocate(megabytes: int) -> int:
    """Touch that many MiB (the self-test of the measurement)."""
    block = bytearray(megabytes << 20)
    block[::4096] = b"\x01" * len(block[::4096])
    return len(block)


if __name__ == "__main__":
    serve(sys.argv[1:])
