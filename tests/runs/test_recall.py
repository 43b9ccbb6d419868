"""Recall runs (runs/recall.py) with the real openai client against a local server that remembers a
known subset of the couplets exactly, another with small edits, and nothing else: the scores recover
the subsets; cues, choices, bad input, resume."""

from __future__ import annotations

import asyncio
import sqlite3
import threading

import pytest
from factories import first_verse, recall_bank, recall_script
from llm_server import Gate, LLMServer, chat
from processes import wait_until
from pydantic import ValidationError

from persian_tui.runs import RecallRunSpec, RunError, create_recall_run, execute_recall_run
from persian_tui.runs.prompts import UNKNOWN_POET

EXACT = [("r-000", 1), ("r-000", 2), ("r-001", 3), ("u-000", 1)]
EDITED = [("r-001", 1), ("r-002", 4), ("u-000", 2)]


@pytest.fixture
def texts(store, tmp_path):
    return recall_bank(store, tmp_path)


def memory_of(texts, *keys):
    return {texts[k][0]: texts[k][1] for group in keys for k in group}


def probe(store, script, **kw):
    with LLMServer(script) as server:
        spec = RecallRunSpec(base_url=server.url, model="rememberer", max_retries=0, **kw)
        run, skipped = create_recall_run(store, spec)
        progress = asyncio.run(execute_recall_run(store.path, run.id, overrides={"base_url": server.url}))
        return run, progress, server, skipped


def scores(store, run_id):
    return {(p.uid, p.position): p.score for p in store.probes.probes(run_id)}


def test_complete_scores_recover_the_remembered_subsets(store, texts):
    script = recall_script(memory_of(texts, EXACT, EDITED), {texts[k][0] for k in EDITED})
    run, progress, server, skipped = probe(store, script, concurrency=3)
    assert progress.status == "done" and skipped == [] and run.total == 16 == len(server.requests)
    got = scores(store, run.id)
    assert {k for k, s in got.items() if s == "complete"} == set(EXACT)
    assert {k for k, s in got.items() if s == "partial"} == set(EDITED)
    assert {k for k, s in got.items() if s == "none"} == set(texts) - set(EXACT) - set(EDITED)
    rows = {(p.uid, p.position): p for p in store.probes.probes(run.id)}
    linked, unlinked = rows[("r-000", 1)], rows[("u-000", 1)]
    assert linked.poet == "شاعر آزمون" and linked.poem == "/shaer/ghazal/sh1" and linked.couplet == 0
    assert "شاعر: شاعر آزمون" in linked.cue and texts[("r-000", 1)][0] in linked.cue
    assert unlinked.poet is None and f"شاعر: {UNKNOWN_POET}" in unlinked.cue and unlinked.poem is None
    assert rows[("r-001", 1)].cer and 0 < rows[("r-001", 1)].cer <= 0.2 and linked.cer == 0.0
    assert rows[("r-002", 1)].reply == "<answer>نمی‌دانم</answer>"
    summary = next(s for s in store.runs.run_summaries() if s.run.id == run.id)
    assert (summary.done, summary.correct) == (16, len(EXACT) + len(EDITED))


def test_choose_offers_the_poets_same_form_hemistichs_in_a_seeded_order(store, texts):
    truth = {a: b for a, b in texts.values()}
    script = recall_script(memory_of(texts, EXACT, EDITED), truth=truth)
    run, progress, _, _ = probe(store, script, format="choose")
    rows = {(p.uid, p.position): p for p in store.probes.probes(run.id)}
    assert progress.status == "done"
    assert {k for k, p in rows.items() if p.score == "complete"} == set(EXACT) | set(EDITED)
    first = rows[("r-000", 1)]  # poem 1: poems 1 and 2 share metre and rhyme
    assert first.choices is not None and len(set(first.choices)) == 4
    assert first.choices[first.answer - 1] == texts[("r-000", 1)][1]
    same_form = {b for (u, pos), (_, b) in texts.items() if u in ("r-000", "r-001")}
    assert set(first.choices) <= same_form
    assert len({p.answer for p in rows.values()}) > 1  # the true one is not always in one place
    again, _, _, _ = probe(store, script, format="choose")
    assert [p.choices for p in store.probes.probes(again.id)] == [p.choices for p in rows.values()]


def test_words_are_the_two_rarest_and_shuffled_words_are_seeded(store, texts):
    run, _, server, _ = probe(store, recall_script({}), cue="words")
    asked = {first_verse(b): b["messages"][-1]["content"] for b in server.requests}
    first, second = texts[("r-000", 1)]
    line = asked[first].split("واژه‌ها: ")[1]
    words = [w.strip("«»") for w in line.split("، ")]
    assert len(words) == 2 and all(w in second.split() for w in words)
    assert words == [w for w in second.split() if w in words]  # in the hemistich's order
    run2, _, server2, _ = probe(store, recall_script({}), cue="shuffled", probe_seed=3)
    cue = {p.position: p.cue for p in store.probes.probes(run2.id, uids=["r-000"])}[1]
    shuffled = cue.split("<shuffled_second_verse>")[1].split("<")[0]
    assert sorted(shuffled.split()) == sorted(second.split()) and shuffled != second
    run3, _, _, _ = probe(store, recall_script({}), cue="shuffled", probe_seed=3)
    assert [p.cue for p in store.probes.probes(run3.id)] == [p.cue for p in store.probes.probes(run2.id)]


def test_choose_is_refused_for_words_and_shuffled():
    for cue in ("words", "shuffled"):
        with pytest.raises(ValidationError, match="choose is not for cue"):
            RecallRunSpec(base_url="http://127.0.0.1:1/v1", model="m", cue=cue, format="choose")
    with pytest.raises(ValidationError, match="needed for cue prose"):
        RecallRunSpec(base_url="http://127.0.0.1:1/v1", model="m", cue="prose")


def test_a_paraphrase_run_of_other_questions_is_refused_in_one_line(store, texts):
    other = store.runs.create_run("paraphrase", "p", {"uids": ["r-000"]}, total=1, status="done")
    store.runs.save_paraphrases(other.id, "r-000", ["نثر یک", "نثر دو", "نثر سه", "نثر چهار"])
    spec = RecallRunSpec(base_url="http://127.0.0.1:1/v1", model="m", cue="prose", paraphrase_run=other.id)
    with pytest.raises(RunError, match=r"no prose for 3 of the 4 questions \(e\.g\. r-001\)") as e:
        create_recall_run(store, spec)
    assert "\n" not in str(e.value)
    llm = store.runs.create_run("llm", "x", {}, total=0, status="done")
    with pytest.raises(RunError, match=f"no paraphrase run {llm.id}"):
        create_recall_run(store, spec.model_copy(update={"paraphrase_run": llm.id}))
    with pytest.raises(RunError, match=f"run {llm.id} is of kind llm"):  # what it is, when it is another run
        create_recall_run(store, spec.model_copy(update={"paraphrase_run": llm.id}))
    n = len(store.runs.runs())
    run, _, _, _ = probe(store, recall_script({}), cue="prose", paraphrase_run=other.id, limit=1)
    assert len(store.runs.runs()) == n + 1
    assert [p.cue.split("<couplet_prose>")[1].split("<")[0] for p in store.probes.probes(run.id)] == \
        ["نثر یک", "نثر دو", "نثر سه", "نثر چهار"]


def test_bad_replies_and_an_empty_hemistich_lose_nothing(store, texts):
    with sqlite3.connect(store.path) as conn:  # a hemistich left empty by an older import
        conn.execute("UPDATE options SET mesra2 = '' WHERE position = 4 AND question_id = "
                     "(SELECT id FROM questions WHERE uid = 'u-000')")
    replies = iter(["<answer>" + "و " * 400_000 + "</answer>", "<answer>Love is easy at first</answer>", "",
                    "<answer></answer>"])

    def script(body, n):
        return chat(next(replies, "<answer>x</answer>"))

    run, progress, _, skipped = probe(store, script, concurrency=1)
    rows = store.probes.probes(run.id)
    assert skipped == ["u-000 option 4: empty second hemistich, not probed"]
    assert progress.status == "done" and run.total == 15 == len(rows)
    assert [p.status for p in rows[:4]] == ["ok", "ok", "empty", "empty"]
    assert [p.score for p in rows[:4]] == ["none", "none", None, None]
    assert len(rows[0].reply or "") > 800_000  # kept as given (the client caps at a million)


def test_resume_after_interruption_leaves_each_probe_once(store, texts):
    gate = Gate(recall_script(memory_of(texts, EXACT)))
    cancel = threading.Event()
    with LLMServer(gate) as server:
        spec = RecallRunSpec(base_url=server.url, model="m", max_retries=0, concurrency=2)
        run, _ = create_recall_run(store, spec)
        result = {}

        def go():
            result["p"] = asyncio.run(execute_recall_run(store.path, run.id, cancel=cancel,
                                                         overrides={"base_url": server.url}))

        t = threading.Thread(target=go)
        t.start()
        gate.let(5)
        wait_until(lambda: len(store.probes.probed(run.id)) >= 5, "five probes stored")
        cancel.set()
        gate.open()
        t.join(60)
        assert result["p"].status == "cancelled"
        first = store.probes.probed(run.id)
        assert 5 <= len(first) < 16
        again = asyncio.run(execute_recall_run(store.path, run.id, overrides={"base_url": server.url}))
    assert again.status == "done" and again.done == 16
    rows = store.probes.probes(run.id)
    assert len(rows) == 16 == len({(p.uid, p.position) for p in rows})
    assert {(p.uid, p.position) for p in rows if p.score == "complete"} == set(EXACT)
