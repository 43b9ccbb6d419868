"""A question keeps every source: duplicates on import link their reference to the question they
repeat; labels, predictions and reasoning match through any reference; the order in which files
are imported does not change what matches (the fixtures in tests/data/sources, then the seed)."""

from __future__ import annotations

import itertools
import json

import pytest
from factories import DATA, make_question, run_import, together

from persian_tui.annotation.label_files import plan_labels
from persian_tui.cli import main
from persian_tui.models import SourceRef
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


def test_linked_references_are_reported_and_kept(store):
    run_import(store, SOURCES / "book-full.json", answers=KEYS)
    plan = run_import(store, SOURCES / "bench.json")
    assert plan.counts == {"new": 2, "linked": 6, "unchanged": 0, "duplicate": 0, "conflict": 0, "rejected": 0}
    by_id = store.sources.questions_by_source("book-full")
    for d in plan.of("linked"):
        sid = d.record.source_id
        assert d.target == by_id[sid][0].uid and "near-duplicate of" in d.reason
        assert [(r.name, r.id) for r in store.questions.get_question(d.target).references()] == [
            ("book-full", sid), ("bench", sid)]
    # importing it again changes nothing: the references are already there
    again = run_import(store, SOURCES / "bench.json")
    assert again.counts["unchanged"] == 8 and again.counts["linked"] == 0
    assert store.sources.source_counts() == (21, 15, 6)
    imports = list(store.imports.iter_imports())
    assert [(i["new"], i["linked"], i["unchanged"]) for i in imports] == [(13, 0, 0), (2, 6, 0), (0, 0, 8)]


def test_cli_says_linked_with_the_uid(tmp_path, capsys):
    db = str(tmp_path / "c.db")
    assert main(["--db", db, "import", str(SOURCES / "book-full.json"), "--answers", str(KEYS)]) == 0
    capsys.readouterr()
    assert main(["--db", db, "import", str(SOURCES / "bench.json")]) == 0
    out = capsys.readouterr().out
    with Store(db) as store:
        target = store.sources.questions_by_source("book-full")["2"][0].uid
    assert f"bench #2 -> {target}" in out and "2 new, 6 linked" in out
    assert main(["--db", db, "stats"]) == 0
    out = capsys.readouterr().out
    assert "source references: 21 of 15 question(s); 6 known by two or more" in out
    assert "new 2, linked 6" in out


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
    assert all(r["schema_version"] == 4 and "source" not in r for r in records)
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


def test_a_jsonl_file_adds_the_references_this_bank_lacks(store, tmp_path):
    store.questions.add_questions([make_question("q-1", source_name="a", source_id="1")])
    line = {"schema_version": 3, "uid": "q-1", "status": "ready", "stem": "",
            "options": [{"position": o.position, "mesra1": o.mesra1, "mesra2": o.mesra2, "poet": None}
                        for o in make_question().options],
            "key": 1, "explanation": None, "category": None, "poet": None,
            "sources": [{"name": "a", "id": "1"}, {"name": "b", "id": 17}], "tags": [], "author": None}
    path = tmp_path / "x.jsonl"
    path.write_text(json.dumps(line, ensure_ascii=False) + "\n", "utf-8")
    plan = run_import(store, path)
    assert plan.counts["linked"] == 1 and "adds b #17 to q-1" in plan.of("linked")[0].reason
    assert [(r.name, r.id) for r in store.questions.get_question("q-1").references()] == [("a", "1"), ("b", "17")]
    assert run_import(store, path).counts["unchanged"] == 1


def test_version_2_files_still_import(store, tmp_path):
    q = make_question("q-old")
    line = {"schema_version": 2, "uid": "q-old", "status": "ready", "stem": "",
            "options": [{"position": o.position, "mesra1": o.mesra1, "mesra2": o.mesra2, "poet": None,
                         "corpus": None} for o in q.options],
            "key": 1, "explanation": None, "category": None, "poet": None,
            "source": {"name": "book", "id": 105}, "tags": [], "author": None}
    path = tmp_path / "v2.jsonl"
    path.write_text(json.dumps(line) + "\n", "utf-8")
    assert run_import(store, path).counts["new"] == 1
    assert store.questions.get_question("q-old").references() == [SourceRef("book", "105")]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({**line, "schema_version": 3, "sources": {"name": "x"}}) + "\n", "utf-8")
    plan = run_import(store, bad, skip_invalid=True)
    assert "'sources' must be a list" in plan.of("rejected")[0].reason


def test_editing_the_source_moves_its_reference(store):
    store.questions.add_questions([make_question("q-1", source_name="a", source_id="1")])
    q = store.questions.get_question("q-1")
    q.source_id = "2"
    store.curation.update_question(q, "ali")
    assert store.questions.get_question("q-1").references() == [SourceRef("a", "2")]


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


def test_a_copy_without_any_reference_is_a_duplicate(store, tmp_path):
    """A JSONL copy of a bank question under another uid and with no source: nothing to link."""
    store.questions.add_questions([make_question("q-1", source_name="a", source_id="1")])
    export_jsonl(store, tmp_path / "x.jsonl")
    record = json.loads((tmp_path / "x.jsonl").read_text("utf-8"))
    (tmp_path / "y.jsonl").write_text(json.dumps({**record, "uid": "q-2", "sources": []}) + "\n", "utf-8")
    plan = run_import(store, tmp_path / "y.jsonl")
    assert plan.counts["duplicate"] == 1 and plan.of("duplicate")[0].target == "q-1"
    assert store.questions.counts().total == 1
    assert store.questions.get_question("q-1").references() == [SourceRef("a", "1")]
