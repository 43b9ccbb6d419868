"""Import the real seed files from ../shared/seed-data (skipped when it is absent)."""

from factories import run_import as run


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
