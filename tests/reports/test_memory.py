"""Memory in the report (reports/memory.py): recall rates per recall run, the accuracy of the same
model on the questions whose outlier couplet it recalls against the others (exact test, Newcombe),
recall per couplet across models, the `from_memory` item flag, and the report's files."""

from __future__ import annotations

import asyncio
import csv
import io
import json

import pytest
from factories import add_run, recall_bank, recall_script
from llm_server import LLMServer
from scipy.stats import fisher_exact
from statsmodels.stats.proportion import confint_proportions_2indep

from persian_tui.reports.figures import build_report
from persian_tui.reports.report_files import render_files
from persian_tui.runs import RecallRunSpec, create_recall_run, execute_recall_run

# questions r-000..r-005 (keys 1 2 3 4 1 2) and u-000 (key 1, not linked); model A remembers the
# outlier couplets of r-000, r-001 and r-003 exactly, that of r-005 with small edits (partial recall)
RECALLED = ["r-000", "r-001", "r-003", "r-005"]
OTHERS = ["r-002", "r-004", "u-000"]


def recall(store, model, memory, edited=frozenset()):
    with LLMServer(recall_script(memory, edited)) as server:
        run, _ = create_recall_run(store, RecallRunSpec(base_url=server.url, model=model, max_retries=0))
        asyncio.run(execute_recall_run(store.path, run.id, overrides={"base_url": server.url}))
    return run.id


@pytest.fixture
def probed(store, tmp_path):
    texts = recall_bank(store, tmp_path, questions=6)
    keys = {q.uid: q.key for q in store.questions.questions()}
    memory = {texts[(u, keys[u])][0]: texts[(u, keys[u])][1] for u in RECALLED}
    uids = RECALLED + OTHERS
    # model A: right on every recalled question, and on one of the three others
    answers = [keys[u] for u in RECALLED] + [keys["r-002"]] + [keys[u] % 4 + 1 for u in OTHERS[1:]]
    outlier_a = add_run(store, "model-a", answers, uids=uids)
    add_run(store, "model-b", [keys[u] for u in uids], uids=uids)
    ra = recall(store, "model-a", memory, {texts[("r-005", 2)][0]})
    rb = recall(store, "model-b", {texts[("r-000", 1)][0]: texts[("r-000", 1)][1]})
    return store, outlier_a, ra, rb


def test_the_split_matches_what_the_remembered_subset_implies(probed):
    store, outlier_a, ra, rb = probed
    memory = build_report(store).memory
    assert memory is not None
    by_run = {r.run_id: r for r in memory.runs}
    # questions i and i + 3 share their couplets: three exact couplets in six probes, one edited in two
    assert (by_run[ra].probes, by_run[ra].complete, by_run[ra].partial, by_run[ra].none) == (28, 6, 2, 20)
    assert by_run[ra].rates["recalled"] == pytest.approx(8 / 28) and by_run[ra].low["recalled"] > 0
    split = next(s for s in memory.splits if s.recall_run == ra)
    assert (split.outlier_run, split.recalled, split.recalled_correct, split.other, split.other_correct) == \
        (outlier_a, 4, 4, 3, 1)
    assert split.p_value == pytest.approx(fisher_exact([[4, 0], [1, 2]]).pvalue)
    low, high = confint_proportions_2indep(4, 4, 1, 3, method="newcomb", compare="diff")
    assert (split.diff_low, split.diff_high) == (pytest.approx(low), pytest.approx(high))
    assert split.difference == pytest.approx(1 - 1 / 3)
    # model B recalls r-000's outlier only; no model answers with another's recall
    assert {(s.model, s.recall_run) for s in memory.splits} == {("model-a", ra), ("model-b", rb)}


def test_couplets_recall_across_models_and_questions_answerable_from_memory(probed):
    store, _, ra, rb = probed
    report = build_report(store)
    assert report.memory is not None
    rates = {(c.uid, c.position): c for c in report.memory.couplets}
    assert rates[("r-000", 1)].recalled == 2 and rates[("r-000", 1)].rate == 1.0
    assert rates[("r-001", 2)].by == ["model-a"] and rates[("r-001", 2)].rate == 0.5
    # more than half of the probed models: r-000 only (r-001, r-003, r-005: one of two)
    assert set(report.memory.from_memory) == {"r-000"}
    flagged = {r.uid for r in report.items if "from_memory" in r.flags}
    assert flagged == {"r-000"}


def test_the_report_files_carry_the_memory_section(probed):
    store, _, ra, _ = probed
    report = build_report(store)
    text = render_files(report, "md")["report.md"].decode()
    assert "## Memory" in text and "### Accuracy by recall" in text and "association, not a cause" in text
    csvs = render_files(report, "csv")
    rows = list(csv.DictReader(io.StringIO(csvs["memory_split.csv"].decode())))
    assert {(r["model"], r["recalled"], r["other"]) for r in rows} >= {("model-a", "4", "3")}
    couplets = list(csv.DictReader(io.StringIO(csvs["couplet_recall.csv"].decode())))
    assert [r["uid"] for r in couplets if r["from_memory"] == "1"] == ["r-000"]
    data = json.loads(render_files(report, "json")["report.json"])
    assert data["memory"]["runs"][0]["run_id"] == ra and data["memory"]["from_memory"].keys() == {"r-000"}


def test_a_report_without_recall_runs_has_no_memory_section(two_runs):
    store, _, _ = two_runs
    report = build_report(store)
    assert report.memory is None
    assert "Memory" not in render_files(report, "md")["report.md"].decode()


def test_shortcut_diagnostics_count_memory_among_the_cues(probed):
    from persian_tui.reports.memory import memory_rates
    from persian_tui.reports.shortcuts import analyse

    store = probed[0]
    questions = store.questions.questions()
    rates = memory_rates(store.probes.recall_rows())
    rep = analyse(questions, store.links.links(), None, rates)
    row = next(r for r in rep.rows if r.cue == "memory")
    # r-000 and r-003 share four couplets; the first is recalled by both models (the key of r-000),
    # the fourth (r-003's key) by one of two: the cue picks option 1 in both
    assert (row.eligible, row.fired, row.hits) == (7, 2, 1)
    assert rep.picks["r-003"]["memory"] == 1 and "memory" in rep.flagged["r-000"]
    assert "memory" not in {r.cue for r in analyse(questions, store.links.links()).rows}


def test_probes_csv_has_every_probe_with_its_cue_reply_and_score(probed):
    store, _, ra, rb = probed
    report = build_report(store)
    rows = list(csv.DictReader(io.StringIO(render_files(report, "csv")["probes.csv"].decode())))
    assert len(rows) == 56 and {r["run_id"] for r in rows} == {str(ra), str(rb)}
    first = next(r for r in rows if r["run_id"] == str(ra) and r["uid"] == "r-000" and r["position"] == "1")
    assert first["score"] == "complete" and first["cer"] == "0.0" and first["gold"] in first["reply"]
    assert "<first_verse>" in first["cue"] and first["poet"] == "شاعر آزمون"
    assert "probes" not in json.loads(render_files(report, "json")["report.json"])["memory"]


def _guessing(store, model: str) -> int:
    """A `choose` recall run whose model answers 2 to every probe: right one time in four by chance."""
    from llm_server import chat

    with LLMServer(lambda body, n: chat("Answer: 2")) as server:
        run, _ = create_recall_run(store, RecallRunSpec(base_url=server.url, model=model, format="choose",
                                                        max_retries=0))
        asyncio.run(execute_recall_run(store.path, run.id, overrides={"base_url": server.url}))
    return run.id


def test_a_choice_at_chance_is_no_evidence_of_memory(store, tmp_path):
    recall_bank(store, tmp_path, questions=6)
    keys = {q.uid: q.key for q in store.questions.questions()}
    add_run(store, "guesser", list(keys.values()), uids=list(keys))
    run = _guessing(store, "guesser")
    report = build_report(store)
    memory = report.memory
    assert memory is not None
    chosen = next(r for r in memory.runs if r.run_id == run)
    # it picks option 2 of four every time: a quarter of the couplets by chance alone
    assert chosen.complete > 0 and chosen.chance == pytest.approx(0.25)
    assert chosen.above_chance is not None and chosen.above_chance < 0.25
    assert chosen.p_chance is not None and chosen.p_chance > 0.05
    # no per-couplet claim rests on a guess: no couplet, split or flag from the choose run
    assert memory.couplets == [] and memory.splits == [] and memory.from_memory == {}
    assert not any("from_memory" in r.flags for r in report.items)
    text = render_files(report, "md")["report.md"].decode()
    assert "### Recognition against chance" in text


def test_recognition_above_chance_is_tested_exactly(store, tmp_path):
    from scipy.stats import binomtest

    from persian_tui.reports.memory import above_chance

    # every probe with four choices: the exact test is the one-sided binomial test against 1/4
    est, low, high, p = above_chance(30, 40, [4] * 40)
    assert p == pytest.approx(binomtest(30, 40, 0.25, alternative="greater").pvalue)
    assert est == pytest.approx((30 / 40 - 0.25) / 0.75) and low < est < high
    # fewer choices for some couplets (a poet with few couplets): their chance is higher
    _, _, _, p_mixed = above_chance(30, 40, [4] * 20 + [2] * 20)
    assert p_mixed > p
