"""The JSONL export (releases/export.py): schema and order, filters, byte-identical round trips,
the corpus provenance and labels it carries."""

from __future__ import annotations

import json

import pytest
from factories import BABA, HAFEZ_1, HAFEZ_2, OWN, SAADI, make_question

from persian_tui.bank.importer import apply_import, plan_import
from persian_tui.bank.jsonl import SCHEMA_VERSION
from persian_tui.cli import main
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
                       "updated_at", "origin"]
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


def test_export_carries_provenance_and_reimports(corpus, tmp_path):
    from persian_tui.releases.export import export_jsonl

    corpus.questions.add_questions([make_question("q-e", couplets=[HAFEZ_1, SAADI[::-1], BABA, ("بیتی", "که نیست")])])
    out = tmp_path / "bank.jsonl"
    export_jsonl(corpus, out)
    rec = json.loads(out.read_text())
    from persian_tui.bank.jsonl import SCHEMA_VERSION as JSONL_VERSION

    assert rec["schema_version"] == JSONL_VERSION
    assert rec["options"][0]["corpus"] == {
        "status": "linked", "poem": "/hafez/ghazal/sh1", "couplet": 0, "poet": "حافظ",
        "metre": "مفاعیلن مفاعیلن مفاعیلن مفاعیلن (هزج مثمن سالم)", "method": "exact", "score": 100.0,
        "also_in": []}
    assert rec["options"][1]["corpus"]["method"] == "exact"  # put in the poet's order on import
    assert [o["order"] for o in rec["options"]] == ["poet", "poet", "poet", "unverified"]
    assert rec["options"][3]["corpus"] == {"status": "unlinked"} and rec["options"][0]["poet"] is None
    with Store(tmp_path / "other.db") as other:
        assert main(["--db", str(tmp_path / "other.db"), "import", str(out)]) == 0
        assert other.questions.get_question("q-e").options[1].mesra1 == SAADI[0]
    v1 = tmp_path / "v1.jsonl"
    rec["schema_version"] = 1
    for o in rec["options"]:
        del o["corpus"]
    rec["uid"] = "q-v1"
    v1.write_text(json.dumps(rec, ensure_ascii=False) + "\n")
    assert main(["--db", str(tmp_path / "other.db"), "import", str(v1)]) == 0


def test_export_tells_linked_ambiguous_unlinked_and_quoted_apart(quoting, tmp_path):
    from persian_tui.releases.export import export_jsonl

    quoting.questions.add_questions([make_question("q-x", couplets=[HAFEZ_2, OWN, SAADI, ("بیتی", "که نیست")])])
    out = tmp_path / "x.jsonl"
    export_jsonl(quoting, out)
    corpus = [o["corpus"] for o in json.loads(out.read_text())["options"]]
    assert corpus[0]["status"] == "linked" and corpus[0]["also_in"] == [{"poem": "/naraghi/meraj/bab1/sh1",
                                                                          "couplet": 0}]
    assert corpus[1] == {"status": "unlinked", "method": "quoted",
                         "candidates": [{"poem": "/naraghi/meraj/bab1/sh1", "couplet": 1}]}
    assert corpus[3] == {"status": "unlinked"}
    # ambiguous: two different couplets by two poets tie
    row = quoting.conn.execute("SELECT id FROM questions WHERE uid = 'q-x'").fetchone()[0]
    quoting.conn.execute("UPDATE option_links SET status = 'ambiguous', method = 'fuzzy', others = ? "
                         "WHERE question_id = ? AND position = 3",
                         (json.dumps([["/khayyam/robaee/sh1", 0, "khayyam"]]), row))
    export_jsonl(quoting, out)
    amb = json.loads(out.read_text())["options"][2]["corpus"]
    assert amb["status"] == "ambiguous" and amb["candidates"] == [
        {"poem": "/saadi/golestan/sh10", "couplet": 1}, {"poem": "/khayyam/robaee/sh1", "couplet": 0}]


@pytest.fixture
def bank(store):
    store.questions.add_questions([make_question("q-1", source_name="book", source_id="6"),
                                   make_question("q-2", key=2, source_name="book", source_id="7")])
    return store


def test_export_with_labels_and_anonymized(bank, tmp_path):
    bank.labels.add_label("q-1", "sara", 1, confidence="high")
    bank.labels.add_label("q-1", "ali", 1)
    bank.curation.adjudicate("q-1", "judge", "accept", reason="همه موافق‌اند")
    out = tmp_path / "x.jsonl"
    export_jsonl(bank, out, with_labels=True, anonymize=True)
    first = json.loads(out.read_text("utf-8").splitlines()[0])
    assert [l["annotator"] for l in first["labels"]] == ["A1", "A2"]  # ali, sara by name order
    assert first["agreement"] == {"votes": 2, "majority": 1, "agrees_with_key": True, "unanimous": True}
    assert first["adjudication"]["decision"] == "accept" and first["status"] == "curated"
    assert "sara" not in out.read_text("utf-8")
    export_jsonl(bank, out)  # the plain export stays schema v1 without these keys
    assert "labels" not in json.loads(out.read_text("utf-8").splitlines()[0])
