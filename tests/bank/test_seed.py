"""The seed benchmark's formats (bank/seed.py): exp-1 files with their answer keys, the book's
pages (hemistichs swapped back, OCR labels stripped, the page kept), repeated source ids."""

import json

import pytest
from factories import COUPLETS, OTHER_COUPLETS, write_file
from factories import run_import as run

from persian_tui.bank.importer import ImportFailed, plan_import
from persian_tui.files.inputs import InputError


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


def test_benchmark_dataset(store, seed):
    plan = run(store, seed / "benchmark_dataset.json")
    assert plan.counts["new"] == 41 and plan.counts["rejected"] == 0
    q = store.sources.questions_by_source("benchmark_dataset")["6"][0]
    assert q.key == 1 and q.options[0].mesra1 == "طریق عشق پرآشوب و فتنه است ای دل"
    assert run(store, seed / "benchmark_dataset.json").counts["unchanged"] == 41


def test_book_sample_with_hemistich_order_fixed(store, seed):
    plan = run(store, seed / "gherabat-questions-sample.json", answers=seed / "gherabat-answer-keys.json")
    assert plan.counts["new"] == 40 and plan.counts["rejected"] == 0
    by_id = store.sources.questions_by_source("gherabat-questions-sample")
    q6 = by_id["6"][0]
    assert q6.key == 1
    assert (q6.options[0].mesra1, q6.options[0].mesra2) == (
        "طریق عشق پرآشوب و فتنه است ای دل", "بیفتد آن که در این راه با شتاب رود")
    q93 = by_id["93"][0]  # OCR labels "1)" / ") ... 2" mark the first hemistich and are removed
    assert q93.options[0].mesra1 == "از دل نمی رسد نفس عاشقان به لب"
    assert q93.options[1].mesra1 == "در زبان و دل خالفی نیست عاشق را چوشمع"
    assert not any(")" in o.mesra1 for o in q93.options)


def test_exp1_files_with_their_key(store, seed):
    keys = seed / "exp1-correct-answers.json"
    plan = run(store, seed / "exp1-zero-shot-questions.json", answers=keys, skip_invalid=True)
    assert plan.counts["new"] == 41 and plan.counts["rejected"] == 1
    assert "1 option(s), expected 4" in plan.of("rejected")[0].reason  # question 85
    # the few-shot file holds the same questions: each linked to its question, none added
    plan = run(store, seed / "exp1-few-shot-questions.json", answers=keys, skip_invalid=True)
    assert plan.counts["new"] == 0 and plan.counts["linked"] == 38 and plan.counts["duplicate"] == 0
    assert store.sources.source_counts()[2] == 38


def test_all_seed_question_files_together(store, seed):
    run(store, seed / "benchmark_dataset.json")
    plan = run(store, seed / "gherabat-questions-sample.json", answers=seed / "gherabat-answer-keys.json")
    # the book and the benchmark share questions: linked (the book's ids kept), not added twice
    assert plan.counts["linked"] == 25
    assert plan.counts["new"] + plan.counts["linked"] == 40
    assert store.questions.counts().total == 41 + plan.counts["new"]
