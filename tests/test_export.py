import json

import pytest
from factories import make_question

from persian_tui.bank.importer import apply_import, plan_import
from persian_tui.bank.jsonl import SCHEMA_VERSION
from persian_tui.files.inputs import InputError
from persian_tui.releases.export import export_jsonl
from persian_tui.store import Store

ZWNJ = "\u200c"


def fill(store):
    store.questions.add_questions([
        make_question("q-b", category="عشق", explanation=f"سه بیت از عشق می{ZWNJ}گویند.",
                      tags=["t1"], source_name="book", source_id="6", author="ali",
                      created_at="2026-01-01T00:00:00Z"),
        make_question("q-a", status="draft", key=None, stem="مفهوم کدام بیت متفاوت است؟",
                      created_at="2026-01-02T00:00:00Z"),
        make_question("q-c", status="curated", key=3, created_at="2026-01-03T00:00:00Z"),
    ])


def test_export_schema_and_order(store, tmp_path):
    fill(store)
    out = tmp_path / "x.jsonl"
    assert export_jsonl(store, out) == 3
    assert out.stat().st_mode & 0o777 == 0o644  # others on the host can read an export
    records = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert [r["uid"] for r in records] == ["q-a", "q-b", "q-c"]
    b = records[1]
    assert list(b) == ["schema_version", "uid", "status", "stem", "options", "key", "explanation",
                       "category", "poet", "sources", "source_page", "tags", "author", "created_at",
                       "updated_at"]
    assert b["schema_version"] == SCHEMA_VERSION and b["sources"] == [{"name": "book", "id": "6"}]
    assert b["options"][0] == {"position": 1, "mesra1": "طریق عشق پرآشوب و فتنه است ای دل",
                               "mesra2": "بیفتد آن که در این راه با شتاب رود", "order": "unverified",
                               "poet": None, "corpus": None}
    assert ZWNJ in b["explanation"] and "\\u" not in out.read_text("utf-8")


def test_status_and_category_filters(store, tmp_path):
    fill(store)
    out = tmp_path / "x.jsonl"
    assert export_jsonl(store, out, status="ready") == 2  # ready includes curated
    assert export_jsonl(store, out, status="curated") == 1
    assert export_jsonl(store, out, category="عشق") == 1
    with pytest.raises(InputError, match="unknown status"):
        export_jsonl(store, out, status="nope")


def test_round_trip_gives_identical_bytes(store, tmp_path):
    fill(store)
    first = tmp_path / "1.jsonl"
    export_jsonl(store, first)
    with Store(tmp_path / "empty.db") as other:
        plan = plan_import(other, first)
        apply_import(other, plan)
        assert plan.counts["new"] == 3
        second = tmp_path / "2.jsonl"
        export_jsonl(other, second)
        assert plan_import(other, first).counts["unchanged"] == 3  # idempotent
    assert first.read_bytes() == second.read_bytes()


def test_write_is_atomic(store, tmp_path, monkeypatch):
    fill(store)
    out = tmp_path / "x.jsonl"
    out.write_text("previous export\n", "utf-8")

    def boom(q, *links):
        raise RuntimeError("disk full")

    monkeypatch.setattr("persian_tui.bank.jsonl.dumps", boom)
    with pytest.raises(RuntimeError):
        export_jsonl(store, out)
    assert out.read_text("utf-8") == "previous export\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_jsonl_copy_of_a_bank_question_is_reported(store, tmp_path):
    fill(store)
    out = tmp_path / "x.jsonl"
    export_jsonl(store, out, status="curated")
    out.write_text(out.read_text("utf-8").replace('"q-c"', '"q-z"'), "utf-8")
    plan = plan_import(store, out)
    # q-c has no source: nothing to link, so the copy is reported as a duplicate
    assert plan.counts["duplicate"] == 1 and "same question as q-" in plan.of("duplicate")[0].reason
