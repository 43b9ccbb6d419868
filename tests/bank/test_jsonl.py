"""The project's JSONL (bank/jsonl.py): errors named by line, every Unicode line separator kept
inside a record, older schema versions still read."""

from __future__ import annotations

import json

import pytest
from factories import COUPLETS, make_question, run_import, write_file
from factories import run_import as run

from persian_tui.bank.importer import ImportFailed
from persian_tui.cli import main
from persian_tui.models import SourceRef
from persian_tui.releases.export import export_jsonl
from persian_tui.store import Store


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


SEPARATORS = "\u2028\u2029\u0085\x0b\x0c\x1c\x1d\x1e\r"


def test_every_unicode_line_separator_is_escaped_and_only_text_ones_come_back(tmp_path, capsys):
    """Whatever a database holds (one written before text was checked may hold controls), its
    export escapes every line separator; an import takes back the text ones (U+2028, U+2029)
    byte-exact and refuses a control character (U+0085, VT, FF, ...) in one line naming the record."""
    tricky = [(f"مصراع{c}اول {i}", f"دوم {i}") for i, c in enumerate(SEPARATORS[:4])]
    q = make_question("q-sep", tricky, stem="".join(f"پرسش{c}" for c in SEPARATORS) + "پایان")
    text_only = make_question("q-text", tricky[:2], stem="پرسش\u2028دوم\u2029پایان")
    text_only.options += make_question("x").options[2:]
    with Store(tmp_path / "a.db") as store:
        store.questions.add_questions([q])
        export_jsonl(store, tmp_path / "out.jsonl")
    raw = (tmp_path / "out.jsonl").read_bytes()
    assert raw.count(b"\n") == 1  # one record, one line
    for c in "\u2028\u2029\u0085":
        assert c.encode() not in raw  # escaped: no reader splits the line there
    assert main(["--db", str(tmp_path / "b.db"), "import", str(tmp_path / "out.jsonl")]) == 1
    err = capsys.readouterr().err
    assert "line 1 (uid q-sep): stem: a stem holds no control character (U+0085)" in err
    with Store(tmp_path / "c.db") as store:
        store.questions.add_questions([text_only])
        export_jsonl(store, tmp_path / "text.jsonl")
        original = store.questions.get_question("q-text")
    assert main(["--db", str(tmp_path / "d.db"), "import", str(tmp_path / "text.jsonl")]) == 0
    with Store(tmp_path / "d.db") as store:
        back = store.questions.get_question("q-text")
    assert back.stem == original.stem and back.options == original.options
