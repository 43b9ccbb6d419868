"""Runs (store/runs.py)."""

from __future__ import annotations


def test_runs_accept_kind_baseline(store):
    run = store.runs.create_run("baseline", "cue:poet", {})
    assert store.runs.get_run(run.id).kind == "baseline"
