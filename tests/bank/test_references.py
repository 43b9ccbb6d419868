"""A question keeps every source (bank/references.py): duplicates on import link their reference
to the question they repeat; labels, predictions and reasoning match through any reference; the
order in which files are imported does not change what matches (tests/data/sources, then the seed)."""

from __future__ import annotations

import itertools
import json

import pytest
from factories import DATA, run_import
from processes import together

from persian_tui.annotation.label_files import plan_labels
from persian_tui.bank.jsonl import SCHEMA_VERSION
from persian_tui.releases.export import export_jsonl
from persian_tui.runs.prediction_files import import_predictions
from persian_tui.runs.reasoning_files import import_reasoning
from persian_tui.store import Store

SOURCES = DATA / "sources"


KEYS = SOURCES / "book-keys.json"


FILES = {"bench": (SOURCES / "bench.json", None), "sample": (SOURCES / "book-sample.json", KEYS),
         "full": (SOURCES / "book-full.json", KEYS)}


def classes(store: Store) -> set[frozenset]:
    """Each question as the set of its references: what stays the same whatever the order."""
    return {frozenset((r.name, r.id) for r in q.references()) for q in store.questions.questions()}


def import_all(store: Store, names) -> None:
    for name in names:
        path, keys = FILES[name]
        run_import(store, path, answers=keys)


def matched(store: Store, r) -> set[tuple[str, frozenset]]:
    """(model, the predicted question's references) of every imported prediction."""
    by_uid = {q.uid: frozenset((x.name, x.id) for x in q.references()) for q in store.questions.questions()}
    return {(run.model, by_uid[p.uid]) for run in store.runs.runs() for p in store.runs.predictions(run.id)}


@pytest.mark.parametrize("order", list(itertools.permutations(FILES)))
def test_import_order_does_not_change_what_matches(tmp_path, order):
    with Store(tmp_path / "o.db") as store:
        import_all(store, order)
        r = import_predictions(store, SOURCES / "answers.csv")
        # 12 book ids + the book's second "6" + the benchmark's own 7 and 20
        assert store.questions.counts().total == 15
        assert sum(r.runs_new.values()) == 33  # 11 ids name one question each, for 3 models
        assert r.unmatched == {"99": 3}
        assert r.ambiguous == {"6": 6, "7": 3}  # 6 answered twice; 7 names two questions
        assert "benchmark" not in r.reasons["7"] and "bench, book-full" in r.reasons["7"]
        traces = import_reasoning(store, [SOURCES / "reasoning"])
        assert traces.attached == 2 and "ambiguous" in traces.unmatched[0]
        got = (classes(store), matched(store, r))
    with Store(tmp_path / "s.db") as store:  # the order of docs/guide/import-export.md: benchmark first
        import_all(store, ("bench", "sample", "full"))
        assert got == (classes(store), matched(store, import_predictions(store, SOURCES / "answers.csv")))


def test_ambiguous_id_in_one_source_is_reported_not_guessed(store, tmp_path):
    run_import(store, SOURCES / "book-full.json", answers=KEYS)
    labels = tmp_path / "l.csv"
    labels.write_text("annotator,source_id,source,answer\nali,6,book-full,2\nali,3,,1\n", "utf-8")
    plan = plan_labels(store, labels)
    assert len(plan.new) == 1 and plan.new[0].uid == store.sources.questions_by_source("book-full")["3"][0].uid
    assert plan.rejected == [plan.rejected[0]] and "source id 6 in book-full is ambiguous: 2" in plan.rejected[0]


def test_labels_match_through_a_linked_reference(store, tmp_path):
    run_import(store, SOURCES / "book-full.json", answers=KEYS)
    run_import(store, SOURCES / "bench.json")
    labels = tmp_path / "l.csv"
    labels.write_text("annotator,source_id,source,answer\nali,9,bench,2\nsara,7,,1\n", "utf-8")
    plan = plan_labels(store, labels)
    assert [l.uid for l in plan.new] == [store.sources.questions_by_source("book-full")["9"][0].uid]
    assert "2 different questions" in plan.rejected[0] and "add a source column" in plan.rejected[0]


def test_export_writes_every_reference_and_round_trips(store, tmp_path):
    import_all(store, ("full", "bench"))
    out = tmp_path / "bank.jsonl"
    export_jsonl(store, out)
    records = [json.loads(line) for line in out.read_text("utf-8").split("\n") if line]
    assert all(r["schema_version"] == SCHEMA_VERSION and "source" not in r for r in records)
    two = [r for r in records if len(r["sources"]) == 2]
    assert len(two) == 6 and all(r["sources"][0]["name"] == "book-full" for r in two)
    # back into the same bank: nothing new, and no "id repeats" warning for 7 (two sources)
    plan = run_import(store, out)
    assert plan.counts["unchanged"] == 15 and plan.warnings == [
        w for w in plan.warnings if "id 6 " in w]  # the book's own repeated 6 is still named
    with Store(tmp_path / "copy.db") as copy:
        run_import(copy, out)
        assert classes(copy) == classes(store)
        export_jsonl(copy, tmp_path / "again.jsonl")
    assert (tmp_path / "again.jsonl").read_bytes() == out.read_bytes()


def test_three_processes_import_overlapping_files_end_as_one_import(tmp_path):
    db = tmp_path / "race.db"
    Store(db).close()
    argvs = [["import", str(SOURCES / "bench.json")],
             ["import", str(SOURCES / "book-full.json"), "--answers", str(KEYS)],
             ["import", str(SOURCES / "book-sample.json"), "--answers", str(KEYS)]]
    done = together(db, argvs + argvs)  # each file twice, all at once
    assert [d.returncode for d in done] == [0] * 6, [d.stderr for d in done]
    with Store(db) as store:
        got = classes(store)
        rows = store.conn.execute("SELECT COUNT(*) FROM question_sources").fetchone()[0]
        logs = list(store.imports.iter_imports())
        logged = sum(i["new"] for i in logs), sum(i["linked"] for i in logs)
    with Store(tmp_path / "one.db") as one:
        import_all(one, ("bench", "full", "sample"))
        assert got == classes(one) and len(got) == 15
        assert rows == one.conn.execute("SELECT COUNT(*) FROM question_sources").fetchone()[0]
        assert logged == (15, rows - 15)  # the import log tells the truth


def test_seed_files_in_any_order_match_the_same_answers(tmp_path, seed):
    keys = seed / "gherabat-answer-keys.json"
    files = [(seed / "benchmark_dataset.json", None), (seed / "gherabat-questions-sample.json", keys)]
    files += [(p, keys) for p in sorted(seed.glob("gherabat-questions*.json")) if "sample" not in p.name]
    results = set()
    for n, order in enumerate(itertools.permutations(files)):
        with Store(tmp_path / f"seed{n}.db") as store:
            for path, answers in order:
                run_import(store, path, answers=answers, skip_invalid=True)
            r = import_predictions(store, seed / "exp6-llm-answers.csv")
            results.add((sum(r.runs_new.values()), sum(r.unmatched.values()), sum(r.ambiguous.values()),
                         frozenset(classes(store))))
    assert len(results) == 1
    kept, unmatched, ambiguous, _ = results.pop()
    assert kept + unmatched + ambiguous == 5400
    if len(files) == 2:  # no full book: 44 of exp-6's ids name one question (measured), 31 models
        assert kept == 44 * 31 and ambiguous == 62 + 31  # 6 answered twice; 105 names two questions


@pytest.mark.parametrize("order", [("bench", "full", "sample"), ("sample", "full", "bench"),
                                   ("full", "bench", "sample")])
def test_imports_planned_at_once_then_written_end_as_one_import(tmp_path, order):
    """The race made deterministic: every file planned against the empty bank, then written in
    turn; each write re-checks the questions stored since its plan (exact and near copies)."""
    from persian_tui.bank.importer import apply_import, plan_import

    with Store(tmp_path / "r.db") as store:
        plans = [plan_import(store, FILES[name][0], answers=FILES[name][1]) for name in (*order, *order)]
        assert all(p.counts["linked"] == 0 for p in plans)  # nothing stored when they were planned
        for plan in plans:
            apply_import(store, plan)
        got = classes(store), store.conn.execute("SELECT COUNT(*) FROM question_sources").fetchone()[0]
        log = sum(i["linked"] for i in store.imports.iter_imports())
        raced = [d.reason for p in plans for d in p.decisions if "meanwhile" in d.reason]
    with Store(tmp_path / "one.db") as one:
        import_all(one, order)
        assert got == (classes(one), one.conn.execute("SELECT COUNT(*) FROM question_sources").fetchone()[0])
    assert log == got[1] - 15 and raced
