"""A report's inputs (reports/selection.py): which runs take part by default and why, the
questions every run answered."""

from __future__ import annotations

import asyncio

import pytest
from factories import add_questions, add_run, llm_run, make_question
from llm_server import chat
from processes import closed_port

from persian_tui.cli import main
from persian_tui.reports.figures import ReportError, build_report
from persian_tui.reports.report_files import render_text
from persian_tui.runs import LLMRunSpec, create_llm_run, execute_llm_run


def test_only_shared_questions_are_compared(store):
    add_questions(store, [1, 2, 3, 4, 1, None], status=["ready"] * 5 + ["draft"])
    store.questions.add_questions([make_question("q7", couplets=[(f"م {j}", f"ن {j}") for j in range(4)],
                                                 key=2, status="retired")])
    full = add_run(store, "full", [1, 2, 3, 4, 1, 1, 2], uids=[f"q{i}" for i in range(1, 8)])
    part = add_run(store, "part", [1, 1, 3], uids=["q1", "q2", "q3"])
    add_run(store, "running", [1], uids=["q1"], status="running")
    r = build_report(store)
    # q6 has no key, q7 is retired; "running" is not finished so not included by default
    assert r.run_ids == [full, part] and (r.questions, r.keyed) == (3, 5)
    assert r.answered == {full: 5, part: 3} and r.limiting == [part]
    assert [(x.run_id, x.correct, x.total) for x in r.leaderboard] == [(full, 3, 3), (part, 2, 3)]
    assert "3 question(s) answered by all" in render_text(r)
    alone = build_report(store, run_ids=[full])
    assert (alone.questions, alone.leaderboard[0].correct) == (5, 5)
    assert build_report(store, run_ids=[full], questions="curated").questions == 0
    empty = store.runs.create_run("llm", "nothing yet", {}, status="running").id
    with pytest.raises(ReportError, match=f"run {empty} has no predictions"):
        build_report(store, run_ids=[full, empty])
    with pytest.raises(ReportError, match="no run 99"):
        build_report(store, run_ids=[full, 99])
    with pytest.raises(ReportError, match="question set"):
        build_report(store, questions="some")


def test_empty_database_gives_an_empty_report(store):
    r = build_report(store)
    assert (r.run_ids, r.questions, r.leaderboard) == ([], 0, [])
    assert "nothing to compare" in render_text(r)


def test_broken_runs_are_left_out_by_default_and_listed(store):
    add_questions(store, [1, 2, 3, 4])
    good = add_run(store, "good", [1, 2, 3, 1])
    bad = add_run(store, "bad", ["x", "x", None, 1])  # 3 of 4 unusable
    r = build_report(store, n_boot=50)
    assert r.run_ids == [good] and r.left_out[bad] == "broken: 3 of 4 answers unusable"
    assert "broken" in render_text(r)
    assert build_report(store, run_ids=[good, bad], n_boot=50).run_ids == [good, bad]


def test_default_report_leaves_out_failed_and_archived_runs_and_says_so(bank10, capsys):
    good, _, _ = llm_run(bank10, lambda b, n: chat("Answer: 1"))
    other, _, _ = llm_run(bank10, lambda b, n: chat("Answer: 2"))
    url = f"http://127.0.0.1:{closed_port()}/v1"
    broken = create_llm_run(bank10, LLMRunSpec(base_url=url, model="down", max_retries=0, max_failures=2))
    asyncio.run(execute_llm_run(bank10.path, broken.id))
    bank10.runs.archive_run(other.id)
    assert main(["--db", str(bank10.path), "report"]) == 0
    out = capsys.readouterr().out
    assert "10 question(s) answered by all" in out
    assert f"#{other.id} (archived)" in out and f"#{broken.id} (failed)" in out
    assert main(["--db", str(bank10.path), "report", "--runs", f"{good.id},{other.id}"]) == 0
    assert "2 run(s) ranked" in capsys.readouterr().out  # named: included, archived or not
