"""Label files made elsewhere, imported (annotation/label_files.py): by uid or source id, bad
rows named by line, several processes importing at once, an older file never reverting later labels."""

from __future__ import annotations

import json
import re

import pytest
from factories import make_question, random_couplets, write_file
from processes import together

from persian_tui.annotation.label_files import apply_labels, plan_labels
from persian_tui.cli import main
from persian_tui.files.inputs import InputError
from persian_tui.store import Store


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


@pytest.fixture
def bank(store):
    store.questions.add_questions([make_question("q-1", source_name="book", source_id="6"),
                                   make_question("q-2", key=2, source_name="book", source_id="7")])
    return store


def test_csv_labels_by_uid_and_source_id(bank, tmp_path):
    path = write_file(tmp_path, "l.csv", "annotator,uid,source_id,answer,confidence,note\n"
                      "ali,q-1,,۱,high,\nsara,,7,2,,بیت دوم مبهم است\nreza,,6,skip,,\n")
    plan = plan_labels(bank, path)
    assert plan.summary() == "3 new, 0 unchanged, 0 rejected"
    apply_labels(bank, plan)
    got = {(l.uid, l.annotator): (l.answer, l.skipped, l.confidence, l.note) for l in bank.labels.labels()}
    assert got == {("q-1", "ali"): (1, False, "high", None), ("q-2", "sara"): (2, False, None, "بیت دوم مبهم است"),
                   ("q-1", "reza"): (None, True, None, None)}
    assert plan_labels(bank, path).summary() == "0 new, 3 unchanged, 0 rejected"  # idempotent


def test_bad_rows_abort_with_line_numbers(bank, tmp_path):
    path = write_file(tmp_path, "l.jsonl", "\n".join([
        json.dumps({"annotator": "ali", "uid": "q-1", "answer": 1}),
        "{oops",
        json.dumps({"annotator": "ali", "uid": "q-9", "answer": 1}),
        json.dumps({"annotator": "ali", "uid": "q-2", "answer": 5}),
        json.dumps({"annotator": "", "uid": "q-2", "answer": 1}),
        json.dumps({"annotator": "ali", "uid": "q-2", "answer": 1, "confidence": "sure"}),
    ]))
    plan = plan_labels(bank, path)
    with pytest.raises(InputError) as e:
        apply_labels(bank, plan)
    msg = str(e.value)
    for part in ("line 2: malformed JSON", "line 3: no question with uid q-9", "line 4: answer 5",
                 "line 5: annotator is empty", "line 6: confidence 'sure'"):
        assert part in msg
    assert bank.labels.labels() == []
    apply_labels(bank, plan, skip_invalid=True)
    assert len(bank.labels.labels()) == 1


@pytest.mark.parametrize("line, reason", [
    ('{"annotator": "ali\\u0000", "uid": "q-0", "answer": 1}', "annotator holds a control character (U+0000)"),
    ('{"annotator": "ali", "uid": "q-0", "answer": 1, "note": "a\\u0000b"}', "note holds a NUL character"),
    ('{"annotator": "ali", "uid": "q-0", "answer": 1, "note": "a\\u001bb"}', "a note holds no control character"),
    ('{"annotator": "ali", "uid": "q-0", "answer": 1, "note": "' + "x" * 3000 + '"}', "a note is at most 2,000"),
    ('{"annotator": "ali", "annotator": "reza", "uid": "q-0", "answer": 1}', "given twice"),
])
def test_label_rows_with_nul_or_duplicate_keys_are_rejected(small_db, tmp_path, line, reason, capsys):
    src = tmp_path / "l.jsonl"
    src.write_text(line + "\n", encoding="utf-8")
    assert main(["--db", str(small_db), "import-labels", str(src)]) == 1
    out, err = capsys.readouterr()
    assert "line 1:" in out + err and reason in out + err, (out, err)
    with Store(small_db) as s:
        assert s.labels.labels() == []


@pytest.mark.parametrize("annotator, reason", [
    ("a" * 10_000, "annotator: a user's name is at most 64 characters"),
    ("ali\u202e", "annotator: a user's name has no control characters"),
    ("ali\u200d", "annotator: a user's name has no control characters"),
    ("\u3164", "annotator: a user's name has no invisible characters (U+3164)"),
    ("bоss", "annotator: a user's name does not mix Cyrillic and Latin letters"),
    ("علي", "annotator علي looks like the user علی"),
    ("ALI", "annotator ALI looks like the user ali"),
], ids=["long", "rlo", "zwj", "hangul-filler", "cyrillic-o", "arabic-yeh", "case"])
def test_an_annotator_name_follows_the_rule_users_add_follows(bank, tmp_path, annotator, reason):
    bank.users.add("boss", "admin")
    bank.users.add("ali", "annotator")
    bank.users.add("علی", "annotator")
    path = write_file(tmp_path, "l.jsonl", json.dumps({"annotator": annotator, "uid": "q-1", "answer": 1}) + "\n")
    plan = plan_labels(bank, path)
    with pytest.raises(InputError, match=re.escape("line 1: " + reason)):
        apply_labels(bank, plan)
    assert bank.labels.labels() == []
