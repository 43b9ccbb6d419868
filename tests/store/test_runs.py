"""Runs (store/runs.py)."""

from __future__ import annotations


def test_runs_accept_kind_baseline(store):
    run = store.runs.create_run("baseline", "cue:poet", {})
    assert store.runs.get_run(run.id).kind == "baseline"


def test_a_running_run_whose_process_is_gone_reads_interrupted(store):
    """Running with a live holder, or with no lease (an embedding run, one not yet started):
    running. Held by a process that no longer exists, or a lease not renewed in time:
    interrupted (the stored status unchanged)."""
    import os
    import socket
    import subprocess
    import sys

    here = socket.gethostname()
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    runs = {name: store.runs.create_run("llm", "m", {"n": name}) for name in ("live", "none", "dead", "lapsed", "done")}
    store.runs.take_lease(runs["live"].id, 3600, holder=f"{os.getpid()}@{here}")
    store.runs.take_lease(runs["dead"].id, 3600, holder=f"{gone.pid}@{here}")
    store.runs.take_lease(runs["lapsed"].id, -1, holder=f"{os.getpid()}@{here}")
    store.runs.take_lease(runs["done"].id, 3600, holder=f"{gone.pid}@{here}")
    store.runs.set_run_status(runs["done"].id, "done")
    shown = {r.params["n"]: r.shown_status for r in store.runs.runs()}
    assert shown == {"live": "running", "none": "running", "dead": "interrupted", "lapsed": "interrupted",
                     "done": "done"}
    assert store.runs.get_run(runs["dead"].id).status == "running"
