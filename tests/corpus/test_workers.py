"""Work in worker processes, in order (corpus/workers.py): results as computed here, a failure
in a worker reported, never a hang."""

from __future__ import annotations

import math
import os
from pathlib import Path

import pytest

from persian_tui.corpus.ganjoor import _read_chunk
from persian_tui.corpus.workers import ordered_map


@pytest.mark.parametrize("workers", [1, 3])
def test_results_come_in_job_order(workers):
    jobs = list(range(50))
    assert list(ordered_map(math.factorial, jobs, workers)) == [math.factorial(n) for n in jobs]


def test_no_jobs_no_results():
    assert list(ordered_map(math.factorial, [], 2)) == []


def test_a_job_that_fails_in_a_worker_raises_here_with_its_reason():
    results = ordered_map(math.factorial, [3, -1, 4], 1)
    assert next(results) == 6
    with pytest.raises(RuntimeError, match="in a worker process: ValueError: factorial.*negative"):
        next(results)


def test_a_bug_in_a_worker_is_reported():
    with pytest.raises(RuntimeError, match="in a worker process: TypeError"):
        list(ordered_map(len, [3], 1))


def test_a_file_the_reader_cannot_shape_is_one_line_in_a_worker_too():
    # a path that is no path: read_poem fails with TypeError, reported as that file's line
    (lines,) = ordered_map(_read_chunk, [("hafez", [None])], 1)
    assert lines == [_read_chunk(("hafez", [None]))[0]] and "None: malformed (TypeError" in lines[0]


def test_a_worker_that_dies_is_reported():
    with pytest.raises(RuntimeError, match=r"a worker process ended \(exit status 3\)"):
        list(ordered_map(os._exit, [3], 1))


def test_reading_in_a_worker_equals_reading_here(tmp_path):
    from factories import MINI

    jobs = [(d.name, sorted(p for p in d.rglob("*.json") if p.name not in ("poet.json", "_cat.json")))
            for d in sorted((MINI / "poets").iterdir())]
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", "utf-8")
    jobs.append(("hafez", [bad, Path(tmp_path / "missing.json")]))
    assert list(ordered_map(_read_chunk, jobs, 2)) == [_read_chunk(j) for j in jobs]


def test_no_module_of_the_working_folder_runs_in_a_worker(tmp_path, monkeypatch):
    from factories import plant_traps, sprung

    monkeypatch.chdir(plant_traps(tmp_path))
    assert list(ordered_map(math.factorial, [3, 4], 2)) == [6, 24]
    assert sprung(tmp_path) == []


def test_importing_a_folder_that_holds_modules_runs_none_of_them(tmp_path):
    """`cd ganjoor-data && persian-tui corpus import .` with a pickle.py (json.py, ...) in it."""
    from factories import copy_mini, plant_traps, sprung
    from processes import cli_process

    export = plant_traps(copy_mini(tmp_path))
    done = cli_process(tmp_path / "c.db", "corpus", "import", ".", "--workers", "2", "--no-link", cwd=export)
    assert done.returncode == 0, done.stderr
    assert sprung(export) == []
