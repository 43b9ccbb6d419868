"""Schema migrations: a database left at an older version (built by the frozen migrations up to
it, then given rows) opens at the current version with its rows intact and the new rules in
force. One case per migration that reshapes data; a newer file is refused; schema.sql is current."""

from __future__ import annotations

import sqlite3

import pytest
from factories import SAADI

from persian_tui.models import Prediction, SourceRef
from persian_tui.store import Store, StoreError
from persian_tui.store.db import migrate
from persian_tui.store.rows import add_source, question_id
from persian_tui.store.schema import MIGRATIONS, SCHEMA_VERSION
from persian_tui.store.schema_dump import REGENERATE, SCHEMA_SQL, current, dump


def test_migration_15_reorders_verbatim_reversed_options_except_released(tmp_path):
    from persian_tui.store.db import _connect, migrate

    path = tmp_path / "v13.db"
    conn = _connect(path)
    migrate(conn, 13)
    conn.close()
    conn = _connect(path)
    # a v13 database: two questions, options linked 'swapped'; the second is released
    from persian_tui.text import couplet_key

    for qid, uid in ((1, "q-1"), (2, "q-2")):
        conn.execute("INSERT INTO questions (id, uid, status, created_at, updated_at, fingerprint) "
                     "VALUES (?, ?, 'ready', 't', 't', ?)", (qid, uid, uid))
        conn.execute("INSERT INTO options (question_id, position, mesra1, mesra2, match_key) VALUES (?,1,?,?,?)",
                     (qid, SAADI[1], SAADI[0], couplet_key(*SAADI)))
        conn.execute("INSERT INTO option_links (question_id, position, match_key, status, method, score, "
                     "created_at) VALUES (?, 1, ?, 'linked', 'swapped', 100, 't')", (qid, couplet_key(*SAADI)))
    conn.execute("INSERT INTO option_links (question_id, position, match_key, status, method, created_at) "
                 "VALUES (1, 2, 'x', 'linked', 'hemistich', 't')")
    conn.execute("INSERT INTO releases (name, digest, questions, created_at) VALUES ('v1', 'd', 1, 't')")
    conn.execute("INSERT INTO release_items (release_id, position, uid, sha256, record) "
                 "VALUES (1, 1, 'q-2', 's', '{}')")
    conn.close()
    with Store(path) as s:
        rows = s.conn.execute("SELECT question_id, mesra1 FROM options ORDER BY question_id").fetchall()
        assert [tuple(r) for r in rows] == [(1, SAADI[0]), (2, SAADI[1])]  # q-2 is released: untouched
        assert s.curation.revisions("q-1")[-1].changes == {"hemistich_order": [1]}
        assert s.curation.revisions("q-2") == []
        methods = s.conn.execute("SELECT question_id, position, method, reversed FROM option_links "
                                 "ORDER BY 1, 2").fetchall()
        assert [tuple(r) for r in methods] == [(1, 1, "exact", 0), (1, 2, "one_hemistich", None), (2, 1, "swapped", 1)]
        assert s.links.undo_reorder()["restored"] == 1
        assert s.conn.execute("SELECT mesra1 FROM options WHERE question_id = 1").fetchone()[0] == SAADI[1]


PREDICTION_AND_JUDGMENT = """
    INSERT INTO questions (id, uid, created_at, updated_at, fingerprint) VALUES (1, 'q', 't', 't', 'f');
    INSERT INTO runs (id, kind, model, created_at) VALUES (1, 'llm', 'm', 't');
    INSERT INTO runs (id, kind, model, created_at) VALUES (2, 'judge', 'j', 't');
    INSERT INTO predictions (id, run_id, question_id, predicted, parse_status, created_at)
        VALUES (7, 1, 1, 3, 'ok', 't');
    INSERT INTO judgments (run_id, prediction_id, status, created_at) VALUES (2, 7, 'ok', 't');
"""


def v1_questions_upgrade_in_place(s):
    assert s.version == SCHEMA_VERSION and not s.created
    assert [q.uid for q in s.questions.questions()] == ["q-old"]
    assert list(s.imports.iter_imports()) == []  # table from migration 2 exists


def v5_predictions_and_judgments_survive_the_table_rebuild(s):
    assert [tuple(r) for r in s.conn.execute("SELECT id, predicted FROM predictions")] == [(7, 3)]
    assert [tuple(r) for r in s.conn.execute("SELECT prediction_id FROM judgments")] == [(7,)]
    assert s.conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    s.conn.execute("INSERT INTO predictions (run_id, question_id, parse_status, created_at) "
                   "VALUES (1, 1, 'ambiguous', 't') ON CONFLICT DO NOTHING")
    with pytest.raises(sqlite3.IntegrityError):  # the reference is still enforced
        s.conn.execute("INSERT INTO judgments (run_id, prediction_id, status, created_at) "
                       "VALUES (2, 999, 'ok', 't')")
    s.conn.execute("DELETE FROM predictions WHERE id = 7")  # and still cascades
    assert s.conn.execute("SELECT COUNT(*) FROM judgments").fetchone()[0] == 0


def v8_runs_keep_their_lifecycle(s):
    assert [tuple(r) for r in s.conn.execute("SELECT kind, model, reason, archived, lease_holder FROM runs")] == [
        ("llm", "m", "why", 1, "me")]
    assert s.runs.create_run("baseline", "cue:poet", {}).kind == "baseline"
    with pytest.raises(sqlite3.IntegrityError):
        s.conn.execute("INSERT INTO runs (kind, model, created_at) VALUES ('bogus', 'm', 't')")


def v11_references_backfilled_from_the_question_columns(store):
    assert store.version == SCHEMA_VERSION
    rows = store.conn.execute("SELECT q.uid, s.source_name, s.source_id, s.created_at FROM question_sources s "
                              "JOIN questions q ON q.id = s.question_id ORDER BY s.id").fetchall()
    assert [tuple(r) for r in rows] == [("q-a", "book", "6", "t1"), ("q-c", "exam", None, "t3")]
    with store.tx() as conn:  # one row per (question, name, id), NULL id included
        assert not add_source(conn, question_id(conn, "q-c"), SourceRef("exam", None), "t")


def v12_predictions_and_judgments_become_sample_0(s):
    assert [tuple(r) for r in s.conn.execute("SELECT id, sample, predicted FROM predictions")] == [(7, 0, 3)]
    assert [j.sample for j in s.judging.judgments()] == [0]
    s.runs.save_predictions(1, [Prediction("q", 2, "ok", sample=1)])
    with pytest.raises(sqlite3.IntegrityError):  # (run, question, sample) is unique
        s.conn.execute("INSERT INTO predictions (run_id, question_id, sample, parse_status, created_at) "
                       "VALUES (1, 1, 1, 'ok', 't')")
    s.conn.execute("DELETE FROM predictions WHERE id = 7")  # still cascades
    assert s.conn.execute("SELECT COUNT(*) FROM judgments").fetchone()[0] == 0


def v16_book_pages_backfilled_from_the_importers_ids(s):
    pages = {q.uid: q.source_page for q in s.questions.questions()}
    assert pages == {"q-a": 12, "q-b": None, "q-c": None, "q-d": None, "q-e": 0}
    assert s.questions.get_question("q-a").source_id == "p12-3"  # the id itself is kept


def v17_the_corpus_index_is_merged_by_the_import_not_by_fts5(s):
    config = dict(tuple(r) for r in s.conn.execute("SELECT k, v FROM corpus_fts_config"))
    assert (config["automerge"], config["usermerge"], config["crisismerge"]) == (0, 16, 128)
    assert [c.mesra1 for c in s.corpus.search_couplets("بلبل")] == ["بلبل به شاخ"]  # the old index still answers
    s.conn.execute("INSERT INTO corpus_fts (corpus_fts) VALUES ('integrity-check')")


def v19_hemistich_keys_built_for_the_couplets_there(s):
    """Migration 20: corpus_keys holds every couplet's hemistich keys, so the old couplets are
    linked by the key lookup; its triggers keep it as couplets come and go."""
    d = s.links.link_option("سرو", "بلبل به شاخ")
    assert (d.status, d.method, d.candidate.poem) == ("linked", "swapped", "/hafez/sh1")
    s.conn.execute("DELETE FROM corpus_couplets")
    assert s.conn.execute("SELECT COUNT(*) FROM corpus_keys WHERE corpus_keys MATCH '\"سروسرو\"'").fetchone()[0] == 0
    s.conn.execute("INSERT INTO corpus_keys (corpus_keys) VALUES ('integrity-check')")


def v20_questions_imported_from_a_book_have_origin_book(s):
    """Migration 21: a question whose source a seed format imported (book, benchmark, exp1) is
    `book`; the sample bank, a JSONL import and anything authored are `authored`."""
    origins = {q.uid: q.origin for q in s.questions.questions()}
    assert origins == {"q-book": "book", "q-exp": "book", "q-sample": "authored", "q-own": "authored"}
    with pytest.raises(sqlite3.IntegrityError):
        s.conn.execute("UPDATE questions SET origin = 'web' WHERE uid = 'q-own'")


def users_history_backfilled_from_the_users(s):
    """The users' history migration: each user as they stand is one addition at their `added`
    date, a removed one a removal too; what follows is recorded as it happens."""
    assert [(e.name, e.event, e.role, e.at) for e in s.users.history()] == [
        ("boss", "added", "admin", "t1"), ("ali", "added", "annotator", "t2"), ("ali", "removed", "annotator", "t3")]
    s.users.add("ali", "reviewer")
    assert [(e.event, e.role) for e in s.users.history("ali")][-1] == ("added", "reviewer")


# the version before the users' history migration (found by its table: migrations are renumbered at merges)
USERS_HISTORY = next(i for i, m in enumerate(MIGRATIONS) if any("CREATE TABLE user_events" in x for x in m))
# the version before the role-change migration
USERS_ROLES = next(i for i, m in enumerate(MIGRATIONS) if any("CREATE TABLE user_events_new" in x for x in m))


def users_history_takes_role_changes(s):
    """The users' history rebuilt to hold role changes (`users role`): its lines kept, in order."""
    s.users.set_role("ali", "reviewer")
    assert [(e.name, e.event, e.role) for e in s.users.history()] == [
        ("boss", "added", "admin"), ("ali", "added", "annotator"), ("ali", "role", "reviewer")]


# (the version left at: the last one before the migration under test, its rows, what must hold after)
CASES = [
    (1, "INSERT INTO questions (uid, created_at, updated_at, fingerprint) VALUES ('q-old', 't', 't', 'f')",
     v1_questions_upgrade_in_place),
    (5, PREDICTION_AND_JUDGMENT, v5_predictions_and_judgments_survive_the_table_rebuild),
    (8, "INSERT INTO runs (kind, model, created_at, reason, archived, lease_holder) "
        "VALUES ('llm', 'm', 't', 'why', 1, 'me')", v8_runs_keep_their_lifecycle),
    (11, "INSERT INTO questions (uid, source_name, source_id, created_at, updated_at, fingerprint) "
         "VALUES ('q-a', 'book', '6', 't1', 't1', 'f1'), ('q-b', NULL, NULL, 't2', 't2', 'f2'), "
         "('q-c', 'exam', NULL, 't3', 't3', 'f3')", v11_references_backfilled_from_the_question_columns),
    (12, PREDICTION_AND_JUDGMENT, v12_predictions_and_judgments_become_sample_0),
    (16, "INSERT INTO questions (uid, source_name, source_id, created_at, updated_at, fingerprint) VALUES "
         "('q-a', 'book', 'p12-3', 't', 't', 'f1'), ('q-b', 'book', '6', 't', 't', 'f2'), "
         "('q-c', 'book', 'px-1', 't', 't', 'f3'), ('q-d', 'book', 'p1x2-3', 't', 't', 'f4'), "
         "('q-e', 'book', 'p0-1', 't', 't', 'f5')", v16_book_pages_backfilled_from_the_importers_ids),
    (17, "INSERT INTO corpus_poets (id, slug) VALUES (1, 'hafez'); "
         "INSERT INTO corpus_poems (id, poet_id, path, sha256, imported_at) VALUES (1, 1, '/hafez/sh1', 'x', 't'); "
         "INSERT INTO corpus_couplets (poem_id, idx, mesra1, mesra2, norm1, norm2) "
         "VALUES (1, 0, 'بلبل به شاخ', 'سرو', 'بلبل به شاخ', 'سرو')",
     v17_the_corpus_index_is_merged_by_the_import_not_by_fts5),
    (19, "INSERT INTO corpus_poets (id, slug) VALUES (1, 'hafez'); "
         "INSERT INTO corpus_poems (id, poet_id, path, sha256, imported_at) VALUES (1, 1, '/hafez/sh1', 'x', 't'); "
         "INSERT INTO corpus_couplets (poem_id, idx, mesra1, mesra2, norm1, norm2) "
         "VALUES (1, 0, 'بلبل به شاخ', 'سرو', 'بلبل به شاخ', 'سرو')",
     v19_hemistich_keys_built_for_the_couplets_there),
    (20, "INSERT INTO imports (path, sha256, format, source_name, new, unchanged, duplicate, conflict, rejected, "
         "created_at) VALUES ('b.json', 'x', 'book', 'book-full', 1, 0, 0, 0, 0, 't'), "
         "('e.json', 'y', 'exp1', 'exam', 1, 0, 0, 0, 0, 't'), "
         "('s.jsonl', 'z', 'jsonl', 'persian-tui sample bank', 1, 0, 0, 0, 0, 't'); "
         "INSERT INTO questions (uid, source_name, source_id, created_at, updated_at, fingerprint) VALUES "
         "('q-book', 'book-full', '6', 't', 't', 'f1'), ('q-exp', 'exam', '1', 't', 't', 'f2'), "
         "('q-sample', 'persian-tui sample bank', '1', 't', 't', 'f3'), ('q-own', NULL, NULL, 't', 't', 'f4')",
     v20_questions_imported_from_a_book_have_origin_book),
    (USERS_HISTORY, "INSERT INTO users (name, role, created_at, disabled_at) VALUES "
     "('boss', 'admin', 't1', NULL), ('ali', 'annotator', 't2', 't3')", users_history_backfilled_from_the_users),
    (USERS_ROLES, "INSERT INTO users (name, role, created_at) VALUES ('boss', 'admin', 't1'), "
     "('ali', 'annotator', 't2'); INSERT INTO user_events (name, event, role, at) VALUES "
     "('boss', 'added', 'admin', 't1'), ('ali', 'added', 'annotator', 't2')", users_history_takes_role_changes),
]


@pytest.mark.parametrize("version, rows, holds", [pytest.param(*c, id=c[2].__name__) for c in CASES])
def test_an_older_database_upgrades_and_keeps_its_rows(tmp_path, version, rows, holds):
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path, isolation_level=None)
    assert migrate(conn, target=version) == version
    conn.executescript(rows)
    conn.close()
    with Store(path) as s:
        holds(s)
        assert dump(s.conn) == SCHEMA_SQL.read_text("utf-8")  # upgraded to exactly the current schema


def test_newer_file_is_refused(tmp_path):
    path = tmp_path / "new.db"
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(StoreError, match="newer"):
        Store(path)


def test_schema_sql_is_the_schema_a_new_database_gets():
    """store/schema.sql (committed, for reading) is what every migration makes of a new database."""
    assert SCHEMA_SQL.read_text("utf-8") == current(), f"{SCHEMA_SQL} is out of date; regenerate it: {REGENERATE}"


def test_a_new_store_file_has_the_schema_of_schema_sql(store):
    assert dump(store.conn) == SCHEMA_SQL.read_text("utf-8")


def test_a_database_with_the_corpus_can_be_dumped(corpus):
    """Every table can be read whole, so Python's iterdump (what `sqlite-utils dump` and backup
    scripts use) writes the file out: a contentless FTS5 index without its row sizes (the
    hemistich keys of migration 20 were first made so) refuses to be scanned."""
    conn = sqlite3.connect(corpus.path)
    try:
        dump = "\n".join(conn.iterdump())
    finally:
        conn.close()
    assert "corpus_keys" in dump and "INSERT INTO \"corpus_couplets\"" in dump
