"""Importers on files the tests write themselves: good, dirty and malformed input."""

import json

import pytest
from factories import COUPLETS, OTHER_COUPLETS, benchmark_item, write_file
from factories import run_import as run

from persian_tui.bank.importer import ImportFailed, plan_import
from persian_tui.files.inputs import InputError


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


def test_malformed_json_names_file_and_line(store, tmp_path):
    path = write_file(tmp_path, "broken.json", '[\n  {"id": 1,\n  "options": [}\n]')
    with pytest.raises(InputError, match=r"broken.json: malformed JSON at line 3"):
        plan_import(store, path)


def test_unknown_format(store, tmp_path):
    with pytest.raises(InputError, match="cannot tell the format"):
        plan_import(store, write_file(tmp_path, "x.json", {"foo": 1}))


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


def exp1(questions):
    return {"questions": [
        {"question_number": n, "question_text": "مفهوم کدام بیت متفاوت است؟",
         "answers": [{"answer_number": i, "answer_text_1": a, "answer_text_2": b}
                     for i, (a, b) in enumerate(c, 1)]}
        for n, c in questions]}


def test_exp1_needs_answers_and_reports_missing_key(store, tmp_path):
    path = write_file(tmp_path, "exp1.json", exp1([(6, COUPLETS), (7, OTHER_COUPLETS)]))
    with pytest.raises(InputError, match="pass --answers"):
        plan_import(store, path)
    keys = write_file(tmp_path, "keys.json", {"6": 2})
    with pytest.raises(ImportFailed, match=r"record 2 \(question_number 7\): no key for id 7"):
        run(store, path, answers=keys)
    keys = write_file(tmp_path, "keys.json", {"6": 2, "7": 5})
    with pytest.raises(ImportFailed, match="key 5 for id 7 .* out of range 1..4"):
        run(store, path, answers=keys)
    keys = write_file(tmp_path, "keys.json", {"6": 2, "7": 4})
    plan = run(store, path, answers=keys)
    assert plan.counts["new"] == 2
    assert sorted(q.key for q in store.questions.questions()) == [2, 4]


def test_malformed_key_file(store, tmp_path):
    path = write_file(tmp_path, "exp1.json", exp1([(6, COUPLETS)]))
    with pytest.raises(InputError, match="keys.json: key of id '6' is 'x'"):
        plan_import(store, path, answers=write_file(tmp_path, "keys.json", {"6": "x"}))


def book(questions):
    return {"source_pdf": "x.pdf", "pages": [{"page_number": 1, "data": {"questions": [
        {"id": id_, "stem": "مفهوم کدام گزینه متفاوت است؟",
         "options": [{"label": i, "mesra1": m1, "mesra2": m2} for i, (m1, m2) in enumerate(opts, 1)]}
        for id_, opts in questions]}}]}


def test_book_swaps_hemistichs_and_strips_ocr_labels(store, tmp_path):
    swapped = [(b, a) for a, b in COUPLETS]  # the file's mesra1 is the second hemistich
    labelled = [(f"{i})  {a}" if i % 2 else f") {a} {i}", b) for i, (a, b) in enumerate(OTHER_COUPLETS, 1)]
    path = write_file(tmp_path, "book.json", book([(6, swapped), (7, labelled)]))
    keys = write_file(tmp_path, "keys.json", {"6": 1, "7": 3})
    plan = run(store, path, answers=keys)
    assert plan.counts["new"] == 2
    by_id = store.sources.questions_by_source("book")
    assert [(o.mesra1, o.mesra2) for o in by_id["6"][0].options] == COUPLETS
    # a label marks the first hemistich: those options keep the file's order, label removed
    assert [(o.mesra1, o.mesra2) for o in by_id["7"][0].options] == OTHER_COUPLETS
    assert any("OCR label" in n for d in plan.decisions for n in d.record.notes)


def test_book_pages_are_kept_as_the_questions_source_page(store, tmp_path):
    data = book([(6, COUPLETS)])
    page = data["pages"][0]
    data["pages"] = [{**page, "page_number": 12},
                     {"data": {"questions": [{**page["data"]["questions"][0], "id": 7, "options": [
                         {"label": i, "mesra1": b, "mesra2": a} for i, (a, b) in enumerate(OTHER_COUPLETS, 1)]}]}},
                     {**page, "page_number": "x\x1b[31m", "data": {"questions": [
                         {**page["data"]["questions"][0], "id": 8, "options": [
                             {"label": i, "mesra1": f"مصراع دوم تازه {i}", "mesra2": f"مصراع یکم تازه {i}"}
                             for i in range(1, 5)]}]}}]
    run(store, write_file(tmp_path, "book.json", data),
        answers=write_file(tmp_path, "keys.json", {"6": 1, "7": 2, "8": 3}))
    pages = {sid: qs[0].source_page for sid, qs in store.sources.questions_by_source("book").items()}
    assert pages == {"6": 12, "7": 2, "8": None}  # the file's page; else its place; a bad one: unknown
    from persian_tui.releases.export import export_jsonl

    export_jsonl(store, tmp_path / "out.jsonl")
    exported = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text("utf-8").splitlines()]
    assert {r["sources"][0]["id"]: r["source_page"] for r in exported} == pages


def test_repeated_source_id_with_different_content(store, tmp_path):
    path = write_file(tmp_path, "book.json", book([(6, COUPLETS), (6, OTHER_COUPLETS)]))
    plan = run(store, path, answers=write_file(tmp_path, "keys.json", {"6": 1}))
    assert plan.counts["new"] == 2
    assert any("id 6 repeats with different content" in w for w in plan.warnings)
    stored = store.sources.questions_by_source("book")["6"]
    assert len(stored) == 2 and {q.key for q in stored} == {None}
    assert {q.status for q in stored} == {"draft"}
    plan = run(store, path, answers=write_file(tmp_path, "keys.json", {"6": 1}))
    assert plan.counts["unchanged"] == 2


def test_jsonl_errors_name_the_line(store, tmp_path):
    good = {"schema_version": 1, "uid": "q-1", "status": "ready", "stem": "",
            "options": [{"position": i, "mesra1": a, "mesra2": b} for i, (a, b) in enumerate(COUPLETS, 1)],
            "key": 2}
    lines = [json.dumps(good, ensure_ascii=False), "{not json", json.dumps({**good, "uid": "q-2", "key": 9}),
             json.dumps({**good, "uid": "q-3", "schema_version": 7}),
             json.dumps({**good, "uid": "q-4", "key": None})]
    path = write_file(tmp_path, "x.jsonl", "\n".join(lines) + "\n")
    with pytest.raises(ImportFailed) as e:
        run(store, path)
    msg = str(e.value)
    assert "line 2: malformed JSON" in msg
    assert "line 3 (uid q-2): key 9 out of range 1..4" in msg
    assert "line 4: schema_version 7 is not supported" in msg
    assert "line 5 (uid q-4): status ready needs a key" in msg
    assert store.questions.counts().total == 0
