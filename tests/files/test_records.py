"""Reading input files into records (files/records.py): hostile JSON and CSV (nested 200,000
deep, 5,000-digit numbers, lone surrogates, duplicate keys, huge fields), non-UTF-8 files and
names: one line naming the file, the line and the reason, never a traceback; nothing written."""

from __future__ import annotations

import json
import os

import pytest
from factories import make_question

from persian_tui.cli import main
from persian_tui.models import MAX_HEMISTICH
from persian_tui.store import Store

DEEP = "[" * 200_000 + "]" * 200_000


BIG = "7" * 5000


OPTIONS = '["a b - c d", "e f - g h", "i j - k l", "m n - o p"]'


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "t.db"
    with Store(path) as s:
        s.questions.add_questions([make_question("q-1", source_name="book", source_id="6")])
    return str(path)


def run(db, capsys, *args) -> tuple[int, str]:
    code = main(["--db", db, *args])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err + captured.out
    return code, captured.err


def unchanged(db) -> bool:
    with Store(db) as s:
        return (s.questions.counts().total, len(s.labels.labels()), len(s.runs.runs())) == (1, 0, 0)


CASES = {
    "deep.json": (DEEP, ["import", "--format", "benchmark"], "JSON nested too deeply"),
    "deep.jsonl": (DEEP + "\n", ["import"], "line 1: JSON nested too deeply"),
    "deep-labels.jsonl": ('{"annotator": "a", "uid": "q-1", "answer": ' + DEEP + "}\n", ["import-labels"],
                          "line 1: JSON nested too deeply"),
    "big-key.json": (f'[{{"id": 6, "options": {OPTIONS}, "correct_answer_index": {BIG}}}]',
                     ["import", "--format", "benchmark"], "a number with 5000 digits (at most 30)"),
    "big-id.json": (f'[{{"id": {BIG}, "options": {OPTIONS}, "correct_answer_index": 1}}]',
                    ["import", "--format", "benchmark"], "a number with 5000 digits"),
    "big-label.jsonl": (f'{{"annotator": "a", "uid": "q-1", "answer": {BIG}}}\n', ["import-labels"],
                        "line 1: a number with 5000 digits"),
    "surrogate.json": ('[{"id": 6, "options": ["a \\ud800 b - c d", "e f - g h", "i j - k l", "m n - o p"], '
                       '"correct_answer_index": 1}]', ["import", "--format", "benchmark"],
                       "a lone surrogate \\ud800"),
    "surrogate.jsonl": ('{"schema_version": 3, "uid": "q-s", "options": [], "sources": [{"name": "\\udc00"}]}\n',
                        ["import"], "line 1: a lone surrogate \\udc00"),
    "surrogate-labels.jsonl": ('{"annotator": "\\ud83d", "uid": "q-1", "answer": 1}\n', ["import-labels"],
                               "line 1: a lone surrogate \\ud83d"),
    "deep-trace.json": (DEEP, ["import-reasoning"], "JSON nested too deeply"),
    "book-list.json": ('{"pages": [{"page_number": 1, "data": [1, 2]}]}', ["import", "--format", "book",
                                                                           "--answers", "KEYS"],
                       "page 1: no 'data.questions' list"),
    "big-field.csv": ("annotator,uid,answer,note\nali,q-1,1,ok\nsara,q-1,2,\"a\nb\"\nali,q-1,1," + "x" * 140_000
                      + "\n", ["import-labels"], None),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_file_is_one_line_and_writes_nothing(db, tmp_path, capsys, name):
    text, args, expected = CASES[name]
    path = tmp_path / name
    path.write_text(text, "utf-8")
    keys = tmp_path / "keys.json"
    keys.write_text('{"6": 1}', "utf-8")
    args = [str(keys) if a == "KEYS" else a for a in args]
    code, err = run(db, capsys, *args[:1], str(path), *args[1:])
    if expected is None:  # a long field is read (16 MB is the limit), and its line is right
        # sara's note spans lines 3-4 (a line break: refused), so ali's 140,000-character note is on line 5
        assert code == 1 and "line 5: a note is at most 2,000 characters (this one has 140,000)" in err
    else:
        assert code == 1 and expected in err, err
        assert err.splitlines()[0].startswith(f"persian-tui: error: {path}"), err
    assert unchanged(db)


def test_csv_errors_name_physical_lines(db, tmp_path, capsys):
    path = tmp_path / "answers.csv"
    path.write_text('model_name,question_id,model_answer\nm,6,"Answer:\n\n2"\nm,,1\n', "utf-8")
    code, err = run(db, capsys, "import-predictions", str(path))
    assert code == 1 and "line 5: empty model_name or question_id" in err  # record 2 starts on line 5
    huge = tmp_path / "huge.csv"
    huge.write_text("model_name,question_id,model_answer\nm,6,\"" + "x" * (16 * 2**20 + 1) + "\"\n", "utf-8")
    code, err = run(db, capsys, "import-predictions", str(huge))
    assert code == 1 and "line 2: a field longer than 16,777,216 characters" in err
    assert unchanged(db)


def test_a_hemistich_longer_than_the_limit_is_rejected(db, tmp_path, capsys):
    path = tmp_path / "long.json"
    long = "دل " * 400_000
    path.write_text(json.dumps([{"id": 1, "options": [f"{long} - یار", "a b - c d", "e f - g h", "i j - k l"],
                                 "correct_answer_index": 0}], ensure_ascii=False), "utf-8")
    code, err = run(db, capsys, "import", str(path), "--format", "benchmark")
    assert code == 1 and f"first hemistich is 1,199,999 characters long (at most {MAX_HEMISTICH})" in err
    assert unchanged(db)


def test_a_file_name_that_is_not_utf8_nor_clean(db, tmp_path, capsys):
    src = json.dumps([{"id": 1, "options": ["دل و جان - یار من", "گل و مل - باده ناب", "شب و ماه - راه دراز",
                                            "کوه و دشت - باد صبا"], "correct_answer_index": 0}], ensure_ascii=False)
    name = os.fsencode(tmp_path) + b"/b\xff\x1b[2Jx.json"
    with open(name, "w", encoding="utf-8") as f:
        f.write(src)
    code = main(["--db", db, "import", os.fsdecode(name)])
    out = capsys.readouterr().out
    assert code == 0 and "\x1b" not in out and "␛[2J" in out
    with Store(db) as s:
        (q,) = [q for q in s.questions.questions() if q.uid != "q-1"]
        assert q.source_name == "b\ufffd\x1b[2Jx"  # stored as text, shown with placeholders
        assert q.sources[0].file.endswith("b\ufffd\x1b[2Jx.json")
    code, err = run(db, capsys, "import", os.fsdecode(name), "--source", os.fsdecode(b"a\xffb"))
    assert code == 2 and "--source: not valid UTF-8 text" in err


# ------------------------------------------------------------------ JSON input files, same hostility


def test_json_input_with_lone_surrogates_is_a_one_line_error_never_a_traceback(tmp_path, capsys):
    """"\\ud800" is valid JSON but not text: a question file, a labels file or a JSON file with one
    names the file and line (the question import crashed with UnicodeEncodeError)."""
    import json as _json

    from persian_tui.store import Store

    record = {"schema_version": 1, "uid": "s-1", "status": "ready", "stem": "x", "key": 1,
              "options": [{"position": i, "mesra1": f"الف {i}", "mesra2": f"ب {i}"} for i in range(1, 5)]}
    line = _json.dumps(record).replace('"x"', '"x \\ud800 y"')
    bank = tmp_path / "bank.jsonl"
    bank.write_text(_json.dumps({**record, "uid": "s-0"}) + "\n" + line + "\n", encoding="utf-8")
    db = str(tmp_path / "t.db")
    code = main(["--db", db, "import", str(bank), "--skip-invalid"])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and "line 2" in out + err and "surrogate" in out + err
    with Store(db) as s:
        assert [q.uid for q in s.questions.questions(statuses=("draft", "ready", "curated"))] == ["s-0"]
    labels = tmp_path / "labels.jsonl"
    labels.write_text('{"uid": "s-0", "annotator": "a\\udc00", "answer": 1}\n', encoding="utf-8")
    main(["--db", db, "import-labels", str(labels)])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and "surrogate" in out + err
    assert code in (0, 1)


# ---------------------------------------------------------------- silently accepted before: now refused, named


@pytest.mark.parametrize("content, reason", [
    ('{"1": 4, "1": 1}', "the key '1' given twice in one object"),
    ('{"1": NaN}', "NaN is not a number"),
    ('{"1": 1e400}', "the number 1e400 is too large"),
    ('{"1": -Infinity}', "-Infinity is not a number"),
])
def test_answer_keys_with_duplicate_keys_or_non_finite_numbers_are_refused(small_db, tmp_path, content, reason, capsys):
    keys = tmp_path / "keys.json"
    keys.write_text(content, encoding="utf-8")
    book = tmp_path / "book.json"
    book.write_text('{"pages": []}', encoding="utf-8")
    assert main(["--db", str(small_db), "import", str(book), "--format", "book", "--answers", str(keys)]) == 1
    err = capsys.readouterr().err
    assert f"keys.json: {reason}" in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize("content, reason", [
    ("annotator,uid,answer,answer\na,q-0,1,2\n", "line 1: the column 'answer' appears twice"),
    ('annotator,uid,answer,note\na,q-0,1,"never closed\n', 'line 2: a quoted field is never closed'),
])
def test_malformed_label_csvs_are_refused_naming_the_line(small_db, tmp_path, content, reason, capsys):
    csv = tmp_path / "l.csv"
    csv.write_text(content, encoding="utf-8")
    assert main(["--db", str(small_db), "import-labels", str(csv)]) == 1
    err = capsys.readouterr().err
    assert f"l.csv: {reason}" in err, err


def test_non_utf8_files(small_db, tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_bytes(b"\xff\xfe,x\n")
    for command in ("import", "import-labels", "import-predictions"):
        assert main(["--db", str(small_db), command, str(bad)]) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "bad.csv" in err and "Traceback" not in err, err
