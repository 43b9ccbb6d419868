"""Writing an import (store/imports.py): several processes importing one file end with the rows
one import makes; batched writes are all or nothing."""

from __future__ import annotations

import json
from pathlib import Path

from factories import make_question, random_couplets
from processes import together

from persian_tui.releases.export import export_jsonl
from persian_tui.store import Store, imports


def benchmark_file(path: Path, n: int = 60) -> Path:
    """The seed benchmark's format: a list of {id, question, options, answer}."""
    items = [{"id": i,
              "options": [f"{a} - {b}" for a, b in random_couplets(i)], "correct_answer_index": i % 4}
             for i in range(n)]
    path.write_text(json.dumps(items, ensure_ascii=False), "utf-8")
    return path


def test_four_processes_import_one_file_under_different_sources(tmp_path):
    src = benchmark_file(tmp_path / "bench.json")
    db = tmp_path / "race.db"
    Store(db).close()
    done = together(db, [["import", str(src), "--format", "benchmark", "--source", f"s{i}"] for i in range(4)])
    assert [d.returncode for d in done] == [0, 0, 0, 0], [d.stderr for d in done]
    assert all("Traceback" not in d.stderr for d in done)
    with Store(db) as store:
        assert store.questions.counts().total == 60  # not 240: the same questions under four names
        imports = list(store.imports.iter_imports())
        assert sum(i["new"] for i in imports) == 60  # the log tells the truth
        # and each question keeps the four references (s0..s3, its id), whoever stored it
        assert sum(i["linked"] for i in imports) == 180 and store.sources.source_counts() == (240, 60, 60)
        q = store.sources.questions_by_source("s3")["7"][0]
        assert sorted((r.name, r.id) for r in q.references()) == [(f"s{i}", "7") for i in range(4)]


def test_three_processes_import_one_jsonl_without_crashing(tmp_path):
    with Store(tmp_path / "a.db") as store:
        store.questions.add_questions([make_question(f"q-{i}", random_couplets(i)) for i in range(40)])
        export_jsonl(store, tmp_path / "bank.jsonl")
    db = tmp_path / "b.db"
    Store(db).close()
    done = together(db, [["import", str(tmp_path / "bank.jsonl")] for _ in range(3)])
    assert [d.returncode for d in done] == [0, 0, 0], [d.stderr for d in done]
    with Store(db) as store:
        assert store.questions.counts().total == 40


def test_batched_writes_are_all_or_nothing(store, monkeypatch):
    qs = [make_question(f"q-{i}", random_couplets(i)) for i in range(7)]
    calls = {"n": 0}
    real = imports.insert_questions

    def failing(conn, rows):
        calls["n"] += 1
        if calls["n"] == 3:  # the third batch fails after two were committed
            raise RuntimeError("disk full")
        return real(conn, rows)

    monkeypatch.setattr(imports, "insert_questions", failing)
    try:
        store.imports.add_new_questions(qs, batch=2)
    except RuntimeError:
        pass
    assert store.questions.counts().total == 0  # the committed batches were taken back
    monkeypatch.setattr(imports, "insert_questions", real)
    done = store.imports.add_new_questions(qs, batch=2)
    assert done.skipped == {} and done.written == [q.uid for q in qs] and store.questions.counts().total == 7
    again = store.imports.add_new_questions(qs, batch=3)
    assert again.written == [] and again.skipped == {q.uid: ("unchanged", q.uid) for q in qs}
