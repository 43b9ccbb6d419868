"""Work done in worker processes, results in order (the corpus import reads and normalizes its
files in them while its own process writes). Each worker is a fresh `python` that reads its
jobs, pickled, on stdin and writes each result, pickled, on stdout as it goes: it never runs the
caller's main module nor a module of the working folder (settings.PYTHON_FLAGS), it blocks when
its results are not read (few wait in memory), and it ends when the calling process does (its
pipes close). Ctrl-C is left to the calling process."""

from __future__ import annotations

import importlib
import os
import pickle
import signal
import subprocess
import sys
import tempfile
import threading
import traceback
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from ..settings import python_command

_PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])  # the folder holding persian_tui/: this code
_MAIN = f"import sys; sys.path.insert(0, {_PACKAGE_ROOT!r}); from {__name__} import serve; serve()"


def _name(func: Callable[[Any], Any]) -> str:
    return f"{func.__module__}:{func.__qualname__}"


def _feed(stdin: IO[bytes], func: str, jobs: list[Any]) -> None:
    try:
        pickle.dump((func, jobs), stdin, protocol=pickle.HIGHEST_PROTOCOL)
        stdin.close()
    except OSError:  # the worker ended early: ordered_map reports it
        pass


def ordered_map(func: Callable[[Any], Any], jobs: Sequence[Any], workers: int) -> Iterator[Any]:
    """func (a module-level function) of each job, computed in `workers` processes, in job
    order: worker i takes jobs i, i + workers, ... A job that raises in a worker raises
    RuntimeError here with its message."""
    procs: list[tuple[subprocess.Popen[bytes], IO[bytes]]] = []
    try:
        for i in range(workers):
            err: IO[bytes] = tempfile.TemporaryFile()
            proc = subprocess.Popen(python_command("-c", _MAIN), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=err)
            procs.append((proc, err))
            assert proc.stdin is not None
            threading.Thread(target=_feed, args=(proc.stdin, _name(func), list(jobs[i::workers])),
                             daemon=True).start()
        for n in range(len(jobs)):
            proc, err = procs[n % workers]
            assert proc.stdout is not None
            try:
                ok, value = pickle.load(proc.stdout)
            except (EOFError, pickle.UnpicklingError):
                proc.wait()
                err.seek(0)
                last = (err.read().decode("utf-8", "replace").strip().splitlines() or [""])[-1]
                raise RuntimeError(f"a worker process ended (exit status {proc.returncode}): {last}") from None
            if not ok:
                raise RuntimeError(f"in a worker process: {value}")
            yield value
    finally:
        for proc, err in procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            for f in (proc.stdin, proc.stdout, err):
                if f is not None:
                    f.close()


def serve() -> None:
    """A worker's main: (func name, jobs) from stdin, (True, result) or (False, why) for each
    job on stdout; stops after the first failure."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    out = sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing else may write among the results
    name, jobs = pickle.load(sys.stdin.buffer)
    module, _, attr = name.partition(":")
    func = getattr(importlib.import_module(module), attr)
    try:
        for job in jobs:
            try:
                result = (True, func(job))
            except Exception as e:
                pickle.dump((False, "".join(traceback.format_exception_only(e)).strip()), out)
                out.flush()
                return
            pickle.dump(result, out, protocol=pickle.HIGHEST_PROTOCOL)
            out.flush()
    except BrokenPipeError:  # the calling process stopped reading
        os._exit(0)
