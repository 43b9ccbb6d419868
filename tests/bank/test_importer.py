"""Planning and applying an import of questions (bank/importer.py): new, linked, unchanged,
duplicate and conflicting records, invalid ones named, the source references a duplicate adds."""

from __future__ import annotations

import json

import pytest
from factories import (
    COUPLETS,
    DATA,
    OTHER_COUPLETS,
    benchmark_item,
    make_question,
    random_couplets,
    run_import,
    sample_file,
    write_file,
)
from factories import run_import as run

from persian_tui.bank.importer import ImportFailed, apply_import, plan_import
from persian_tui.cli import main
from persian_tui.models import SourceRef
from persian_tui.releases.export import export_jsonl
from persian_tui.store import Store


def test_benchmark_import_and_idempotent_reimport(store, tmp_path):
    path = write_file(tmp_path, "bench.json", [benchmark_item(6), benchmark_item(7, OTHER_COUPLETS, 3)])
    plan = run(store, path)
    assert plan.counts == {"new": 2, "linked": 0, "unchanged": 0, "duplicate": 0, "conflict": 0, "rejected": 0}
    q = store.sources.questions_by_source("bench")["7"][0]
    assert q.key == 4 and q.status == "ready"
    assert (q.options[1].mesra1, q.options[1].mesra2) == OTHER_COUPLETS[1]  # ZWNJ in گل‌های kept
    before = [x.uid for x in store.questions.questions()]
    plan = run(store, path)
    assert plan.counts["unchanged"] == 2 and plan.counts["new"] == 0
    assert [x.uid for x in store.questions.questions()] == before


def test_uids_are_deterministic_across_databases(tmp_path):
    from persian_tui.store import Store

    path = write_file(tmp_path, "bench.json", [benchmark_item(6)])
    uids = []
    for name in ("a.db", "b.db"):
        with Store(tmp_path / name) as s:
            run(s, path)
            uids.append(s.questions.uids())
    assert uids[0] == uids[1]


@pytest.mark.parametrize("item,reason", [
    ({"id": 1, "options": ["a - b"] * 3, "correct_answer_index": 0}, "3 option(s), expected 4"),
    ({"id": 1, "options": ["الف - ب", "ج - ", "د - ه", "و - ز"], "correct_answer_index": 0},
     "option 2: empty hemistich"),
    (benchmark_item(1, index=4), "correct_answer_index 4 out of range 0..3"),
    ({"id": 1, "options": [f"{a} - {b}" for a, b in COUPLETS]}, "key missing"),
    ({"id": 1, "options": ["الف", "ب", "ج", "د"], "correct_answer_index": 0},
     "single phrases, not couplets (another question type)"),
    ({"id": 1, "options": ["الف - ب", "ج", "د - ه", "و - ز"], "correct_answer_index": 0},
     "1 option(s) are single phrases"),
])
def test_bad_record_aborts_and_names_record(store, tmp_path, item, reason):
    path = write_file(tmp_path, "bad.json", [benchmark_item(5, OTHER_COUPLETS), item])
    with pytest.raises(ImportFailed) as e:
        run(store, path)
    msg = str(e.value)
    assert "bad.json" in msg and "record 2 (id 1)" in msg and reason in msg
    assert store.questions.counts().total == 0 and list(store.imports.iter_imports()) == []


def test_skip_invalid_imports_the_rest(store, tmp_path):
    path = write_file(tmp_path, "bad.json", [benchmark_item(5, OTHER_COUPLETS), {"id": 9, "options": []}])
    plan = run(store, path, skip_invalid=True)
    assert plan.counts["new"] == 1 and plan.counts["rejected"] == 1
    assert store.questions.counts().total == 1
    assert next(store.imports.iter_imports())["rejected"] == 1


def test_dry_run_plan_writes_nothing(store, tmp_path):
    plan = plan_import(store, write_file(tmp_path, "b.json", [benchmark_item(6)]))
    assert plan.counts["new"] == 1 and store.questions.counts().total == 0


def test_near_duplicate_linked_not_added(store, tmp_path):
    run(store, write_file(tmp_path, "a.json", [benchmark_item(6)]))
    (first,) = store.questions.questions()
    near = [COUPLETS[0], ("گر نور عشق حق به دل و جانت افتد", "بالله از آفتاب فلک خوب‌تر شوی"),
            COUPLETS[2], COUPLETS[3]]
    plan = run(store, write_file(tmp_path, "b.json", [benchmark_item(60, near), benchmark_item(7, OTHER_COUPLETS)]))
    assert plan.counts["linked"] == 1 and plan.counts["new"] == 1
    (linked,) = plan.of("linked")
    assert "near-duplicate of q-" in linked.reason and linked.target == first.uid
    refs = store.questions.get_question(first.uid).references()
    assert [(r.name, r.id) for r in refs] == [("a", "6"), ("b", "60")]
    assert refs[1].file == str(tmp_path / "b.json") and refs[1].created_at
    assert store.questions.counts().total == 2
    plan = run(store, write_file(tmp_path, "c.json", [benchmark_item(61, near)]), allow_duplicates=True)
    assert plan.counts["new"] == 1


def test_changed_key_is_a_conflict_not_an_overwrite(store, tmp_path):
    run(store, write_file(tmp_path, "a.json", [benchmark_item(6, index=0)]))
    plan = run(store, write_file(tmp_path, "a.json", [benchmark_item(6, index=2)]))
    assert plan.counts["conflict"] == 1
    assert "stored with different key (stored 1, file 3)" in plan.of("conflict")[0].reason
    assert [q.key for q in store.questions.questions()] == [1]


SOURCES = DATA / "sources"


KEYS = SOURCES / "book-keys.json"


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


def test_a_question_with_a_couplet_twice_is_rejected_or_a_dirty_draft(tmp_path, capsys):
    c = random_couplets(2)
    items = [{"id": 1, "options": [f"{a} - {b}" for a, b in random_couplets(1)], "correct_answer_index": 0},
             {"id": 2, "options": [f"{c[0][0]} - {c[0][1]}", f"{c[1][0]} - {c[1][1]}",
                                   f"{c[2][0]} - {c[2][1]}", f"{c[0][1]} - {c[0][0]}"],  # 1 again, swapped
              "correct_answer_index": 1},
             {"id": 3, "options": ["123 - 456", *[f"{a} - {b}" for a, b in random_couplets(3)[1:]]],
              "correct_answer_index": 2}]
    path = tmp_path / "dirty.json"
    path.write_text(json.dumps(items, ensure_ascii=False), "utf-8")
    db = tmp_path / "d.db"
    assert main(["--db", str(db), "import", str(path), "--format", "benchmark"]) == 1
    err = capsys.readouterr().err
    assert "couplets 1 and 4 are the same" in err and "--allow-dirty" in err
    assert "option 1 has no words" in err and "single phrases" not in err
    assert main(["--db", str(db), "import", str(path), "--format", "benchmark", "--allow-dirty",
                 "--skip-invalid"]) == 0
    with Store(db) as store:
        dirty = [q for q in store.questions.questions() if "dirty" in q.tags]
        assert len(dirty) == 1 and dirty[0].status == "draft" and store.questions.counts().total == 2


def test_seeding_rechecks_inside_the_write_transaction(tmp_path):
    """Another process stores a question between the app's look and its write: no sample then."""
    db = tmp_path / "race.db"
    with Store(db) as app_store, Store(db) as other:
        assert app_store.questions.never_held_a_question()
        plan = plan_import(app_store, sample_file(tmp_path), fmt="jsonl")
        other.questions.add_questions([make_question("q-theirs")])
        assert apply_import(app_store, plan, skip_invalid=True, only_into_empty=True) == 0
        assert app_store.questions.uids() == {"q-theirs"}
        assert not app_store.questions.never_held_a_question()
