"""Migrations 19 to 28."""

MIGRATIONS: list[list[str]] = [
    # 19: people and their roles (models/users.py); a removed user keeps the row (their labels
    # keep the name); the password hash is for a later web front (none is set now)
    [
        """
            CREATE TABLE users (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 64),
                role TEXT NOT NULL CHECK (role IN ('annotator', 'reviewer', 'admin')),
                created_at TEXT NOT NULL,
                disabled_at TEXT,
                password_hash TEXT
            )
        """,
    ],
    # 20: a verbatim hemistich is found by a lookup, not a ranked FTS OR (store/links.py): each
    # couplet's hemistichs as keys (corpus_query.hemistich_token: the first and last 4 letters of
    # the hemistich without spaces, one FTS5 token) in a contentless index of rowids only, kept by
    # triggers. FTS5 (segments merged, 16 at a time) rather than a B-tree: an import's scattered
    # B-tree inserts wrote most of its bytes (see migration 15). Its row sizes are kept (no
    # columnsize=0): without them a contentless table cannot be scanned, and dumps of the file
    # (Python's iterdump, `sqlite-utils dump`) fail on it
    [
        "CREATE VIRTUAL TABLE corpus_keys USING fts5(k, content='', detail='none')",
        "INSERT INTO corpus_keys (corpus_keys, rank) VALUES ('automerge', 16)",
        "INSERT INTO corpus_keys (corpus_keys, rank) VALUES ('crisismerge', 64)",
        """
            CREATE TRIGGER corpus_couplets_keys_ai AFTER INSERT ON corpus_couplets BEGIN
                INSERT INTO corpus_keys (rowid, k) VALUES (new.id,
                    substr(replace(new.norm1, ' ', ''), 1, 4) || substr(replace(new.norm1, ' ', ''), -4) || ' ' ||
                    substr(replace(new.norm2, ' ', ''), 1, 4) || substr(replace(new.norm2, ' ', ''), -4));
            END
        """,
        """
            CREATE TRIGGER corpus_couplets_keys_ad AFTER DELETE ON corpus_couplets BEGIN
                INSERT INTO corpus_keys (corpus_keys, rowid, k) VALUES ('delete', old.id,
                    substr(replace(old.norm1, ' ', ''), 1, 4) || substr(replace(old.norm1, ' ', ''), -4) || ' ' ||
                    substr(replace(old.norm2, ' ', ''), 1, 4) || substr(replace(old.norm2, ' ', ''), -4));
            END
        """,
        """
            INSERT INTO corpus_keys (rowid, k) SELECT id,
                substr(replace(norm1, ' ', ''), 1, 4) || substr(replace(norm1, ' ', ''), -4) || ' ' ||
                substr(replace(norm2, ' ', ''), 1, 4) || substr(replace(norm2, ' ', ''), -4)
            FROM corpus_couplets
        """,
        "INSERT INTO corpus_keys (corpus_keys) VALUES ('optimize')",
    ],
    # 21: recall probes (runs/recall.py): run kind 'recall' (runs rebuilt for its CHECK) and one row
    # per probed couplet of a recall run: (run, question, option position), UNIQUE, so a resume
    # never asks or stores a probe twice
    [
        """
            CREATE TABLE runs_new (
                id INTEGER PRIMARY KEY,
                kind TEXT NOT NULL CHECK (kind IN
                    ('embedding', 'llm', 'paraphrase', 'judge', 'imported', 'baseline', 'recall')),
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
        """
            CREATE TABLE probes (
                id INTEGER PRIMARY KEY,
                run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
                question_id INTEGER NOT NULL REFERENCES questions (id) ON DELETE CASCADE,
                position INTEGER NOT NULL CHECK (position BETWEEN 1 AND 4),
                poem TEXT,
                couplet INTEGER,
                poet TEXT,
                gold TEXT NOT NULL,
                cue TEXT NOT NULL,
                choices TEXT,
                answer INTEGER CHECK (answer BETWEEN 1 AND 4),
                predicted INTEGER CHECK (predicted BETWEEN 1 AND 4),
                reply TEXT,
                status TEXT NOT NULL CHECK (status IN
                    ('ok', 'invalid', 'empty', 'refusal', 'api_error', 'ambiguous')),
                score TEXT CHECK (score IN ('complete', 'partial', 'none')),
                cer REAL,
                tokens_in INTEGER,
                tokens_out INTEGER,
                latency REAL,
                cost REAL,
                error TEXT,
                created_at TEXT NOT NULL,
                UNIQUE (run_id, question_id, position)
            )
        """,
        "CREATE INDEX probes_question ON probes (question_id, position)",
    ],
    # 22: sweeps (runs/sweep.py): one spec expanded to runs, each run named by its slot
    # (endpoint/model/strategy[/shuffle-seed]); the retries every request of a run made, kept
    [
        """
            CREATE TABLE sweeps (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 100),
                spec TEXT NOT NULL,
                created_at TEXT NOT NULL
            )
        """,
        """
            CREATE TABLE sweep_runs (
                sweep_id INTEGER NOT NULL REFERENCES sweeps (id) ON DELETE CASCADE,
                run_id INTEGER NOT NULL UNIQUE REFERENCES runs (id) ON DELETE CASCADE,
                slot TEXT NOT NULL,
                PRIMARY KEY (sweep_id, slot)
            )
        """,
        """
            CREATE TABLE request_retries (
                id INTEGER PRIMARY KEY,
                run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
                at TEXT NOT NULL,
                attempt INTEGER NOT NULL,
                status INTEGER,
                kind TEXT NOT NULL,
                delay REAL NOT NULL,
                message TEXT NOT NULL
            )
        """,
        "CREATE INDEX request_retries_run ON request_retries (run_id)",
    ],
    # 23: where a question came from (`origin`: book, fresh, authored; imported from a seed book ->
    # book, anything else -> authored), and candidate questions drawn from the corpus (corpus
    # propose): four couplet ids, the intended outlier, the generator's reasons, and the admins'
    # decision (who, when, why; an accepted one names the draft question it became)
    [
        "ALTER TABLE questions ADD COLUMN origin TEXT NOT NULL DEFAULT 'authored' "
        "CHECK (origin IN ('book', 'fresh', 'authored'))",
        """
            UPDATE questions SET origin = 'book' WHERE source_name IN
                (SELECT source_name FROM imports WHERE format IN ('book', 'benchmark', 'exp1')
                 AND source_name IS NOT NULL)
        """,
        """
            CREATE TABLE candidates (
                id INTEGER PRIMARY KEY,
                couplet1 INTEGER NOT NULL REFERENCES corpus_couplets (id) ON DELETE CASCADE,
                couplet2 INTEGER NOT NULL REFERENCES corpus_couplets (id) ON DELETE CASCADE,
                couplet3 INTEGER NOT NULL REFERENCES corpus_couplets (id) ON DELETE CASCADE,
                couplet4 INTEGER NOT NULL REFERENCES corpus_couplets (id) ON DELETE CASCADE,
                outlier INTEGER NOT NULL CHECK (outlier BETWEEN 1 AND 4),
                embedder TEXT NOT NULL,
                reasons TEXT NOT NULL DEFAULT '{}',
                state TEXT NOT NULL DEFAULT 'proposed' CHECK (state IN ('proposed', 'accepted', 'rejected')),
                proposed_by TEXT,
                created_at TEXT NOT NULL,
                decided_by TEXT,
                decided_at TEXT,
                reason TEXT,
                question_uid TEXT
            )
        """,
        "CREATE INDEX candidates_state ON candidates (state)",
    ],
    # 24: users' history: every addition (with its role) and removal, kept; a re-added user's
    # `created_at` is the new addition's date. Back-filled from the users as they stand.
    [
        """
            CREATE TABLE user_events (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL,
                event TEXT NOT NULL CHECK (event IN ('added', 'removed')),
                role TEXT NOT NULL CHECK (role IN ('annotator', 'reviewer', 'admin')),
                at TEXT NOT NULL
            )
        """,
        "CREATE INDEX user_events_name ON user_events (name, id)",
        "INSERT INTO user_events (name, event, role, at) SELECT name, 'added', role, created_at FROM users ORDER BY id",
        """
            INSERT INTO user_events (name, event, role, at)
            SELECT name, 'removed', role, disabled_at FROM users WHERE disabled_at IS NOT NULL ORDER BY id
        """,
    ],
    # 25: a paraphrase run of corpus couplets (`run paraphrase --corpus`): one row per (run, corpus
    # couplet), the prose byte-exact, and the sha256 of the verse as asked (prose is used only
    # while the corpus still holds that exact text)
    [
        """
            CREATE TABLE corpus_paraphrases (
                run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
                couplet_id INTEGER NOT NULL REFERENCES corpus_couplets (id) ON DELETE CASCADE,
                verse_sha TEXT NOT NULL,
                status TEXT NOT NULL CHECK (status IN
                    ('ok', 'invalid', 'empty', 'refusal', 'api_error', 'ambiguous')),
                prose TEXT,
                reply TEXT,
                error TEXT,
                tokens_in INTEGER,
                tokens_out INTEGER,
                latency REAL,
                cost REAL,
                created_at TEXT NOT NULL,
                PRIMARY KEY (run_id, couplet_id)
            )
        """,
    ],
    # 26: a role changed in place (`users role NAME ROLE`) is a line of the users' history
    [
        """
            CREATE TABLE user_events_new (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL,
                event TEXT NOT NULL CHECK (event IN ('added', 'removed', 'role')),
                role TEXT NOT NULL CHECK (role IN ('annotator', 'reviewer', 'admin')),
                at TEXT NOT NULL
            )
        """,
        "INSERT INTO user_events_new (id, name, event, role, at) SELECT id, name, event, role, at FROM user_events",
        "DROP TABLE user_events",
        "ALTER TABLE user_events_new RENAME TO user_events",
        "CREATE INDEX user_events_name ON user_events (name, id)",
    ],
]
