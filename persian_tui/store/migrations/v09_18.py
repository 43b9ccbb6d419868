"""Migrations 9-18: the corpus and option links, source references, samples and releases, the
poets' order of couplets, settled review flags, source pages, the corpus index's merging."""

MIGRATIONS: list[list[str]] = [
    # 9: Ganjoor corpus (poets, poems, couplets, FTS5 index over the normalized copies), option ->
    # couplet links (provenance, never edits), and run kind 'baseline' (runs rebuilt for its CHECK)
    [
        """
            CREATE TABLE corpus_poets (
                id INTEGER PRIMARY KEY,
                slug TEXT NOT NULL UNIQUE,
                ganjoor_id INTEGER,
                name TEXT NOT NULL DEFAULT '',
                nickname TEXT NOT NULL DEFAULT ''
            )
        """,
        """
            CREATE TABLE corpus_poems (
                id INTEGER PRIMARY KEY,
                poet_id INTEGER NOT NULL REFERENCES corpus_poets (id) ON DELETE CASCADE,
                path TEXT NOT NULL UNIQUE,
                ganjoor_id INTEGER,
                title TEXT NOT NULL DEFAULT '',
                form TEXT,
                metre TEXT,
                rhyme TEXT,
                couplets INTEGER NOT NULL DEFAULT 0,
                sha256 TEXT NOT NULL,
                imported_at TEXT NOT NULL
            )
        """,
        "CREATE INDEX corpus_poems_poet ON corpus_poems (poet_id)",
        """
            CREATE TABLE corpus_couplets (
                id INTEGER PRIMARY KEY,
                poem_id INTEGER NOT NULL REFERENCES corpus_poems (id) ON DELETE CASCADE,
                idx INTEGER NOT NULL,
                mesra1 TEXT NOT NULL,
                mesra2 TEXT NOT NULL DEFAULT '',
                norm1 TEXT NOT NULL,
                norm2 TEXT NOT NULL DEFAULT '',
                UNIQUE (poem_id, idx)
            )
        """,
        # exact lookups ignore spaces (ZWNJ is already gone from the normalized copies)
        "CREATE INDEX corpus_couplets_key1 ON corpus_couplets (replace(norm1, ' ', ''))",
        "CREATE INDEX corpus_couplets_key2 ON corpus_couplets (replace(norm2, ' ', ''))",
        """
            CREATE VIRTUAL TABLE corpus_fts USING fts5(
                norm1, norm2, content='corpus_couplets', content_rowid='id')
        """,
        """
            CREATE TRIGGER corpus_couplets_ai AFTER INSERT ON corpus_couplets BEGIN
                INSERT INTO corpus_fts (rowid, norm1, norm2) VALUES (new.id, new.norm1, new.norm2);
            END
        """,
        """
            CREATE TRIGGER corpus_couplets_ad AFTER DELETE ON corpus_couplets BEGIN
                INSERT INTO corpus_fts (corpus_fts, rowid, norm1, norm2)
                VALUES ('delete', old.id, old.norm1, old.norm2);
            END
        """,
        """
            CREATE VIRTUAL TABLE corpus_vocab USING fts5vocab(corpus_fts, 'row')
        """,
        """
            CREATE TABLE option_links (
                question_id INTEGER NOT NULL REFERENCES questions (id) ON DELETE CASCADE,
                position INTEGER NOT NULL CHECK (position BETWEEN 1 AND 4),
                match_key TEXT NOT NULL,
                status TEXT NOT NULL CHECK (status IN ('linked', 'ambiguous', 'unlinked')),
                poem_id INTEGER REFERENCES corpus_poems (id) ON DELETE SET NULL,
                couplet INTEGER,
                method TEXT CHECK (method IN ('exact', 'swapped', 'fuzzy', 'hemistich', 'chosen')),
                score REAL,
                candidates INTEGER NOT NULL DEFAULT 0,
                created_at TEXT NOT NULL,
                PRIMARY KEY (question_id, position)
            )
        """,
        "CREATE INDEX option_links_poem ON option_links (poem_id, couplet)",
        # runs rebuilt: SQLite cannot alter a CHECK constraint, and kind's gains 'baseline'
        """
            CREATE TABLE runs_new (
                id INTEGER PRIMARY KEY,
                kind TEXT NOT NULL CHECK (kind IN
                    ('embedding', 'llm', 'paraphrase', 'judge', 'imported', 'baseline')),
                model TEXT NOT NULL,
                params TEXT NOT NULL DEFAULT '{}',
                prompt_template TEXT,
                prompt_hash TEXT,
                status TEXT NOT NULL DEFAULT 'running'
                    CHECK (status IN ('running', 'done', 'cancelled', 'failed')),
                total INTEGER NOT NULL DEFAULT 0,
                note TEXT,
                created_at TEXT NOT NULL,
                finished_at TEXT,
                reason TEXT,
                archived INTEGER NOT NULL DEFAULT 0,
                lease_holder TEXT,
                lease_expires REAL
            )
        """,
        # explicit columns: a later change to runs must be carried here too (fails loudly if not)
        """
            INSERT INTO runs_new (id, kind, model, params, prompt_template, prompt_hash, status, total,
                                  note, created_at, finished_at, reason, archived, lease_holder,
                                  lease_expires)
            SELECT id, kind, model, params, prompt_template, prompt_hash, status, total, note,
                   created_at, finished_at, reason, archived, lease_holder, lease_expires FROM runs
        """,
        "DROP TABLE runs",
        "ALTER TABLE runs_new RENAME TO runs",
    ],
    # 10: shipped empty (reserved once); samples and releases are migration 13
    [],
    # 11: shipped empty (reserved once; the labelling queue needed no schema change)
    [],
    # 12: question source references: every (source name, id) a question is known by, with the
    # file and time it was learnt; backfilled from the questions' own source columns
    [
        """
            CREATE TABLE question_sources (
                id INTEGER PRIMARY KEY,
                question_id INTEGER NOT NULL REFERENCES questions (id) ON DELETE CASCADE,
                source_name TEXT,
                source_id TEXT,
                file TEXT,
                created_at TEXT NOT NULL
            )
        """,
        # one row per (question, name, id); NULLs compare equal here (plain UNIQUE would not)
        """
            CREATE UNIQUE INDEX question_sources_unique
            ON question_sources (question_id, ifnull(source_name, ''), ifnull(source_id, ''))
        """,
        "CREATE INDEX question_sources_ref ON question_sources (source_id, source_name)",
        """
            INSERT INTO question_sources (question_id, source_name, source_id, file, created_at)
            SELECT q.id, q.source_name, q.source_id,
                   (SELECT i.path FROM imports i WHERE i.source_name = q.source_name
                    ORDER BY i.id LIMIT 1),
                   q.created_at
            FROM questions q WHERE q.source_name IS NOT NULL OR q.source_id IS NOT NULL
            ORDER BY q.id
        """,
        # an import's duplicates that became references of the question they repeat
        "ALTER TABLE imports ADD COLUMN linked INTEGER NOT NULL DEFAULT 0",
    ],
    # 13: repeated samples and releases. predictions get a sample index (0 for every existing
    # row; a run asked K times has K rows per question, UNIQUE (run, question, sample)), rebuilt
    # with explicit columns; releases are frozen, content-hashed lists of questions that
    # triggers keep immutable. Written so it applies after any other migration.
    [
        # predictions rebuilt: SQLite cannot alter a UNIQUE constraint, now (run, question, sample)
        """
            CREATE TABLE predictions_s (
                id INTEGER PRIMARY KEY,
                run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
                question_id INTEGER NOT NULL REFERENCES questions (id) ON DELETE CASCADE,
                sample INTEGER NOT NULL DEFAULT 0 CHECK (sample >= 0),
                predicted INTEGER CHECK (predicted BETWEEN 1 AND 4),
                scores TEXT,
                raw_output TEXT,
                reasoning TEXT,
                parse_status TEXT NOT NULL
                    CHECK (parse_status IN
                           ('ok', 'invalid', 'empty', 'refusal', 'api_error', 'ambiguous')),
                permutation TEXT,
                prompt_hash TEXT,
                exemplars TEXT,
                tokens_in INTEGER,
                tokens_out INTEGER,
                latency REAL,
                cost REAL,
                error TEXT,
                created_at TEXT NOT NULL,
                UNIQUE (run_id, question_id, sample)
            )
        """,
        # explicit columns: a later change to predictions must be carried here too
        """
            INSERT INTO predictions_s (id, run_id, question_id, sample, predicted, scores, raw_output,
                                       reasoning, parse_status, permutation, prompt_hash, exemplars,
                                       tokens_in, tokens_out, latency, cost, error, created_at)
            SELECT id, run_id, question_id, 0, predicted, scores, raw_output, reasoning, parse_status,
                   permutation, prompt_hash, exemplars, tokens_in, tokens_out, latency, cost, error,
                   created_at FROM predictions
        """,
        "DROP TABLE predictions",
        "ALTER TABLE predictions_s RENAME TO predictions",
        "CREATE INDEX predictions_question ON predictions (question_id)",
        """
            CREATE TABLE releases (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL UNIQUE,
                digest TEXT NOT NULL,
                questions INTEGER NOT NULL,
                created_by TEXT,
                created_at TEXT NOT NULL
            )
        """,
        """
            CREATE TABLE release_items (
                release_id INTEGER NOT NULL REFERENCES releases (id),
                position INTEGER NOT NULL,
                uid TEXT NOT NULL,
                sha256 TEXT NOT NULL,
                key INTEGER CHECK (key BETWEEN 1 AND 4),
                record TEXT NOT NULL,
                PRIMARY KEY (release_id, uid),
                UNIQUE (release_id, position)
            )
        """,
        """
            CREATE TRIGGER releases_frozen_update BEFORE UPDATE ON releases
            BEGIN SELECT RAISE(ABORT, 'a release is immutable'); END
        """,
        """
            CREATE TRIGGER releases_frozen_delete BEFORE DELETE ON releases
            BEGIN SELECT RAISE(ABORT, 'a release is immutable'); END
        """,
        """
            CREATE TRIGGER release_items_frozen_update BEFORE UPDATE ON release_items
            BEGIN SELECT RAISE(ABORT, 'a release is immutable'); END
        """,
        """
            CREATE TRIGGER release_items_frozen_delete BEFORE DELETE ON release_items
            BEGIN SELECT RAISE(ABORT, 'a release is immutable'); END
        """,
    ],
    # 14: no row can be added to a frozen release either: a release takes exactly the number of
    # items it was frozen with, inserted in the transaction that froze it
    [
        """
            CREATE TRIGGER release_items_frozen_insert BEFORE INSERT ON release_items
            WHEN (SELECT count(*) FROM release_items WHERE release_id = NEW.release_id)
                 >= (SELECT questions FROM releases WHERE id = NEW.release_id)
            BEGIN SELECT RAISE(ABORT, 'a release is immutable'); END
        """,
    ],
    # 15: couplets as the poets wrote them. Poets get their death year (the export's
    # DeathYearInLHijri; the earliest holder of a couplet is its source); poems that quote others
    # (anthologies, prose works) are marked; links record the couplet's other poems
    # (`others`: also_in for a link, the candidates when ambiguous), whether the option's
    # hemistichs are the poet's order reversed (`reversed`: NULL unknown), and the methods
    # one_hemistich (was hemistich), split (halves of two couplets) and quoted (found only in
    # a work that quotes). Options linked verbatim in reversed order are put in the poet's
    # order, one revision per question (author corpus-order; `corpus reorder --undo` reverts),
    # except in released questions. Written so it applies after any other migration.
    [
        "ALTER TABLE corpus_poets ADD COLUMN death_year INTEGER",
        # exact hemistichs are found through the FTS index: these two B-trees took 4 of every 5
        # bytes an import wrote (each insert dirties a random page of each)
        "DROP INDEX IF EXISTS corpus_couplets_key1",
        "DROP INDEX IF EXISTS corpus_couplets_key2",
        "ALTER TABLE corpus_poems ADD COLUMN quoting INTEGER NOT NULL DEFAULT 0",
        # option_links rebuilt: SQLite cannot alter a CHECK constraint (method: one_hemistich, split, quoted)
        """
            CREATE TABLE option_links_new (
                question_id INTEGER NOT NULL REFERENCES questions (id) ON DELETE CASCADE,
                position INTEGER NOT NULL CHECK (position BETWEEN 1 AND 4),
                match_key TEXT NOT NULL,
                status TEXT NOT NULL CHECK (status IN ('linked', 'ambiguous', 'unlinked')),
                poem_id INTEGER REFERENCES corpus_poems (id) ON DELETE SET NULL,
                couplet INTEGER,
                method TEXT CHECK (method IN ('exact', 'swapped', 'fuzzy', 'one_hemistich', 'split',
                                              'quoted', 'chosen')),
                score REAL,
                candidates INTEGER NOT NULL DEFAULT 0,
                created_at TEXT NOT NULL,
                others TEXT,
                reversed INTEGER,
                PRIMARY KEY (question_id, position)
            )
        """,
        """
            INSERT INTO option_links_new (question_id, position, match_key, status, poem_id, couplet,
                                          method, score, candidates, created_at, reversed)
            SELECT question_id, position, match_key, status, poem_id, couplet,
                   CASE method WHEN 'hemistich' THEN 'one_hemistich' ELSE method END,
                   score, candidates, created_at,
                   CASE WHEN method = 'exact' THEN 0 WHEN method = 'swapped' THEN 1 END
            FROM option_links
        """,
        "DROP TABLE option_links",
        "ALTER TABLE option_links_new RENAME TO option_links",
        "CREATE INDEX option_links_poem ON option_links (poem_id, couplet)",
        # the options linked verbatim in reversed order, outside releases (fresh links only)
        """
            CREATE TEMP TABLE reorder AS
            SELECT l.question_id, l.position FROM option_links l
            JOIN options o ON o.question_id = l.question_id AND o.position = l.position
                AND o.match_key = l.match_key
            JOIN questions q ON q.id = l.question_id
            WHERE l.status = 'linked' AND l.reversed = 1
              AND q.uid NOT IN (SELECT uid FROM release_items)
        """,
        """
            INSERT INTO revisions (question_id, author, created_at, changes)
            SELECT question_id, 'corpus-order', strftime('%Y-%m-%dT%H:%M:%SZ', 'now'),
                   json_object('hemistich_order', json_group_array(position))
            FROM (SELECT * FROM reorder ORDER BY question_id, position) GROUP BY question_id
        """,
        """
            UPDATE options SET mesra1 = mesra2, mesra2 = mesra1
            WHERE (question_id, position) IN (SELECT question_id, position FROM reorder)
        """,
        """
            UPDATE option_links SET method = 'exact', reversed = 0
            WHERE (question_id, position) IN (SELECT question_id, position FROM reorder)
        """,
        "DROP TABLE temp.reorder",
    ],
    # 16: an adjudication settles the judge-review flags raised before it: it records the last
    # review row it saw, so a key-problem flag raised later (on a curated question too) reaches
    # the queue, and one it settled does not come back
    [
        "ALTER TABLE adjudications ADD COLUMN reviews_seen INTEGER",
    ],
    # 17: the page of its source a question is on (a book's page: the report's "source page"
    # clusters); backfilled from the book importer's own ids for questions without one ("p12-3")
    [
        "ALTER TABLE questions ADD COLUMN source_page INTEGER CHECK (source_page >= 0)",
        """
            UPDATE questions SET source_page = CAST(substr(source_id, 2, instr(source_id, '-') - 2) AS INTEGER)
            WHERE source_id GLOB 'p[0-9]*-[0-9]*' AND source_id NOT GLOB 'p*[^0-9]*-*'
              AND instr(source_id, '-') BETWEEN 3 AND 12
        """,
    ],
    # 18: the corpus index is merged in short transactions of its own (CorpusRepo.merge_index):
    # FTS5's automatic merging ran inside the inserting transaction's commit and held the write
    # lock for seconds. Off; merges take 16 segments of a level at a time (fewer levels: fewer
    # rewrites); the emergency merge of level 0 only past twice what an import leaves there.
    [
        "INSERT INTO corpus_fts (corpus_fts, rank) VALUES ('automerge', 0)",
        "INSERT INTO corpus_fts (corpus_fts, rank) VALUES ('usermerge', 16)",
        "INSERT INTO corpus_fts (corpus_fts, rank) VALUES ('crisismerge', 128)",
    ],
]
