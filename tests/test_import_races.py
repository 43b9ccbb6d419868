"""Imports under concurrency and with every Unicode line separator: several processes importing
the same file end with exactly the rows one import makes, and all of them exit 0."""

from __future__ import annotations

import json
from pathlib import Path

from factories import make_question, random_couplets, together

from persian_tui.cli import main
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


def test_two_processes_import_one_label_file(tmp_path):
    db = tmp_path / "l.db"
    with Store(db) as store:
        store.questions.add_questions([make_question(f"q-{i}", random_couplets(i)) for i in range(30)])
    labels = tmp_path / "labels.csv"
    labels.write_text("annotator,uid,answer\n" + "".join(f"{a},q-{i},{(i % 4) + 1}\n"
                                                         for a in ("ali", "sara") for i in range(30)), "utf-8")
    done = together(db, [["import-labels", str(labels)] for _ in range(3)])
    assert [d.returncode for d in done] == [0, 0, 0], [d.stderr for d in done]
    with Store(db) as store:
        assert store.conn.execute("SELECT COUNT(*) FROM annotations").fetchone()[0] == 60


def test_reimporting_an_older_label_file_never_reverts_later_labels(tmp_path, capsys):
    db = tmp_path / "l.db"
    with Store(db) as store:
        store.questions.add_questions([make_question("q-1", random_couplets(1))])
    old = tmp_path / "old.csv"
    old.write_text("annotator,uid,answer\nali,q-1,2\n", "utf-8")
    assert main(["--db", str(db), "import-labels", str(old)]) == 0
    with Store(db) as store:
        store.labels.add_label("q-1", "ali", 3)  # ali changed their mind in the TUI
    assert main(["--db", str(db), "import-labels", str(old)]) == 0
    with Store(db) as store:
        (label,) = store.labels.labels("q-1")
        assert label.answer == 3


SEPARATORS = "\u2028\u2029\u0085\x0b\x0c\x1c\x1d\x1e\r"


def test_every_unicode_line_separator_round_trips(tmp_path, capsys):
    tricky = [(f"مصراع{c}اول {i}", f"دوم {i}") for i, c in enumerate(SEPARATORS[:4])]
    q = make_question("q-sep", tricky, stem="".join(f"پرسش{c}" for c in SEPARATORS) + "پایان")
    with Store(tmp_path / "a.db") as store:
        store.questions.add_questions([q])
        export_jsonl(store, tmp_path / "out.jsonl")
        original = store.questions.get_question("q-sep")
    raw = (tmp_path / "out.jsonl").read_bytes()
    assert raw.count(b"\n") == 1  # one record, one line
    for c in "\u2028\u2029\u0085":
        assert c.encode() not in raw  # escaped: no reader splits the line there
    assert main(["--db", str(tmp_path / "b.db"), "import", str(tmp_path / "out.jsonl")]) == 0
    with Store(tmp_path / "b.db") as store:
        back = store.questions.get_question("q-sep")
    assert back.stem == original.stem and back.options == original.options


def test_jsonl_labels_split_on_newline_only(tmp_path):
    db = tmp_path / "l.db"
    with Store(db) as store:
        store.questions.add_questions([make_question("q-1", random_couplets(1))])
    path = tmp_path / "labels.jsonl"
    path.write_text(json.dumps({"annotator": "ali", "uid": "q-1", "answer": 2, "note": "یک\u2028دو"},
                               ensure_ascii=False) + "\n", "utf-8")
    assert main(["--db", str(db), "import-labels", str(path)]) == 0
    with Store(db) as store:
        assert store.labels.labels("q-1")[0].note == "یک\u2028دو"


def test_three_processes_import_one_predictions_file(tmp_path):
    import csv

    db = tmp_path / "p.db"
    with Store(db) as store:
        store.questions.add_questions([make_question(f"q-{i}", random_couplets(i), key=2, source_name="book",
                                                     source_id=str(i)) for i in range(20)])
    path = tmp_path / "answers.csv"
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["model_name", "question_id", "model_answer", "correct_answer", "is_correct",
                    "completion_tokens"])
        w.writerows([[f"m/{m}", i, 2, 2, "True", 1] for m in range(5) for i in range(20)])
    done = together(db, [["import-predictions", str(path), "--source", "book"] for _ in range(3)])
    assert [d.returncode for d in done] == [0, 0, 0], [d.stderr for d in done]
    with Store(db) as store:
        assert len(store.runs.runs()) == 5  # one run per model, not 15
        assert store.conn.execute("SELECT COUNT(*) FROM predictions").fetchone()[0] == 100


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
