"""Migrations 1-8: the bank, labels, labelling, edit history, adjudication, runs and their
predictions, the caches, the judge and its reviews, the run lifecycle."""

MIGRATIONS: list[list[str]] = [
    # 1: the question bank and append-only labels
    [
        """
            CREATE TABLE questions (
                id INTEGER PRIMARY KEY,
                uid TEXT NOT NULL UNIQUE,
                stem TEXT NOT NULL DEFAULT '',
                key INTEGER CHECK (key BETWEEN 1 AND 4),
                status TEXT NOT NULL DEFAULT 'draft'
                    CHECK (status IN ('draft', 'ready', 'curated', 'retired')),
                explanation TEXT,
                category TEXT,
                poet TEXT,
                source_name TEXT,
                source_id TEXT,
                tags TEXT NOT NULL DEFAULT '[]',
                author TEXT,
                created_at TEXT NOT NULL,
                updated_at TEXT NOT NULL,
                fingerprint TEXT NOT NULL,
                search_text TEXT NOT NULL DEFAULT ''
            )
        """,
        """
            CREATE INDEX questions_source ON questions (source_name, source_id)
        """,
        """
            CREATE INDEX questions_fingerprint ON questions (fingerprint)
        """,
        """
            CREATE TABLE options (
                question_id INTEGER NOT NULL REFERENCES questions (id) ON DELETE CASCADE,
                position INTEGER NOT NULL CHECK (position BETWEEN 1 AND 4),
                mesra1 TEXT NOT NULL,
                mesra2 TEXT NOT NULL,
                poet TEXT,
                match_key TEXT NOT NULL,
                PRIMARY KEY (question_id, position)
            )
        """,
        """
            CREATE TABLE annotations (
                id INTEGER PRIMARY KEY,
                question_id INTEGER NOT NULL REFERENCES questions (id) ON DELETE CASCADE,
                annotator TEXT NOT NULL,
                answer INTEGER CHECK (answer BETWEEN 1 AND 4),
                skipped INTEGER NOT NULL DEFAULT 0,
                confidence TEXT,
                flag TEXT,
                note TEXT,
                created_at TEXT NOT NULL
            )
        """,
        """
            CREATE INDEX annotations_question ON annotations (question_id, annotator)
        """,
    ],
    # 2: provenance of imports (what file, when, with what outcome)
    [
        """
            CREATE TABLE imports (
                id INTEGER PRIMARY KEY,
                path TEXT NOT NULL,
                sha256 TEXT NOT NULL,
                format TEXT NOT NULL,
                source_name TEXT,
                new INTEGER NOT NULL,
                unchanged INTEGER NOT NULL,
                duplicate INTEGER NOT NULL,
                conflict INTEGER NOT NULL,
                rejected INTEGER NOT NULL,
                created_at TEXT NOT NULL
            )
        """,
        """
            CREATE INDEX questions_status ON questions (status)
        """,
    ],
    # 3: labelling (undo as append-only retractions, leases), edit history, adjudication
    [
        """
            ALTER TABLE annotations ADD COLUMN retracts INTEGER REFERENCES annotations (id)
        """,
        """
            ALTER TABLE annotations ADD COLUMN seconds REAL
        """,
        """
            CREATE INDEX annotations_annotator ON annotations (annotator, id)
        """,
        """
            CREATE INDEX annotations_retracts ON annotations (retracts)
        """,
        """
            CREATE VIEW labels AS
                SELECT a.* FROM annotations a
                WHERE a.retracts IS NULL
                  AND NOT EXISTS (SELECT 1 FROM annotations r WHERE r.retracts = a.id)
                  AND NOT EXISTS (
                      SELECT 1 FROM annotations b
                      WHERE b.question_id = a.question_id AND b.annotator = a.annotator AND b.id > a.id
                        AND b.retracts IS NULL
                        AND NOT EXISTS (SELECT 1 FROM annotations r2 WHERE r2.retracts = b.id))
        """,
        """
            CREATE TABLE claims (
                question_id INTEGER NOT NULL REFERENCES questions (id) ON DELETE CASCADE,
                annotator TEXT NOT NULL,
                expires_at REAL NOT NULL,
                PRIMARY KEY (question_id, annotator)
            )
        """,
        """
            CREATE TABLE revisions (
                id INTEGER PRIMARY KEY,
                question_id INTEGER NOT NULL REFERENCES questions (id) ON DELETE CASCADE,
                author TEXT,
                created_at TEXT NOT NULL,
                changes TEXT NOT NULL
            )
        """,
        """
            CREATE INDEX revisions_question ON revisions (question_id, id)
        """,
        """
            CREATE TABLE adjudications (
                id INTEGER PRIMARY KEY,
                question_id INTEGER NOT NULL REFERENCES questions (id) ON DELETE CASCADE,
                adjudicator TEXT NOT NULL,
                decision TEXT NOT NULL CHECK (decision IN ('accept', 'key', 'retire')),
                key INTEGER CHECK (key BETWEEN 1 AND 4),
                reason TEXT,
                created_at TEXT NOT NULL
            )
        """,
        """
            CREATE INDEX adjudications_question ON adjudications (question_id, id)
        """,
        """
            CREATE TABLE settings (
                name TEXT PRIMARY KEY,
                value TEXT NOT NULL
            )
        """,
    ],
    # 4: evaluation runs, their predictions, and the caches
    [
        """
            CREATE TABLE runs (
                id INTEGER PRIMARY KEY,
                kind TEXT NOT NULL CHECK (kind IN ('embedding', 'llm', 'paraphrase', 'judge', 'imported')),
                model TEXT NOT NULL,
                params TEXT NOT NULL DEFAULT '{}',
                prompt_template TEXT,
                prompt_hash TEXT,
                status TEXT NOT NULL DEFAULT 'running'
                    CHECK (status IN ('running', 'done', 'cancelled', 'failed')),
                total INTEGER NOT NULL DEFAULT 0,
                note TEXT,
                created_at TEXT NOT NULL,
                finished_at TEXT
            )
        """,
        """
            CREATE TABLE predictions (
                id INTEGER PRIMARY KEY,
                run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
                question_id INTEGER NOT NULL REFERENCES questions (id) ON DELETE CASCADE,
                predicted INTEGER CHECK (predicted BETWEEN 1 AND 4),
                scores TEXT,
                raw_output TEXT,
                reasoning TEXT,
                parse_status TEXT NOT NULL
                    CHECK (parse_status IN ('ok', 'invalid', 'empty', 'refusal', 'api_error')),
                permutation TEXT,
                prompt_hash TEXT,
                exemplars TEXT,
                tokens_in INTEGER,
                tokens_out INTEGER,
                latency REAL,
                cost REAL,
                error TEXT,
                created_at TEXT NOT NULL,
                UNIQUE (run_id, question_id)
            )
        """,
        """
            CREATE INDEX predictions_question ON predictions (question_id)
        """,
        """
            CREATE TABLE paraphrases (
                run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
                question_id INTEGER NOT NULL REFERENCES questions (id) ON DELETE CASCADE,
                position INTEGER NOT NULL CHECK (position BETWEEN 1 AND 4),
                text TEXT NOT NULL,
                PRIMARY KEY (run_id, question_id, position)
            )
        """,
        """
            CREATE TABLE embedding_cache (
                model_id TEXT NOT NULL,
                revision TEXT NOT NULL,
                prefix TEXT NOT NULL,
                normalization TEXT NOT NULL,
                sha256 TEXT NOT NULL,
                vector BLOB NOT NULL,
                PRIMARY KEY (model_id, revision, prefix, normalization, sha256)
            )
        """,
        """
            CREATE TABLE response_cache (
                key TEXT PRIMARY KEY,
                response TEXT NOT NULL,
                created_at TEXT NOT NULL
            )
        """,
    ],
    # 5: the error taxonomy, the LLM judge's verdicts and human reviews of them
    [
        """
            CREATE TABLE error_categories (
                name TEXT PRIMARY KEY,
                label_fa TEXT NOT NULL,
                label_en TEXT NOT NULL,
                description_fa TEXT NOT NULL DEFAULT '',
                description_en TEXT NOT NULL DEFAULT '',
                example TEXT NOT NULL DEFAULT '',
                position INTEGER NOT NULL DEFAULT 0
            )
        """,
        """
            CREATE TABLE judgments (
                id INTEGER PRIMARY KEY,
                run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
                prediction_id INTEGER NOT NULL REFERENCES predictions (id) ON DELETE CASCADE,
                status TEXT NOT NULL CHECK (status IN ('ok', 'unscored', 'api_error')),
                verdict TEXT CHECK (verdict IN ('sound', 'flawed', 'key_problem')),
                error_category TEXT,
                rationale TEXT,
                prompt TEXT,
                prompt_version TEXT,
                raw_reply TEXT,
                tokens_in INTEGER,
                tokens_out INTEGER,
                latency REAL,
                cost REAL,
                error TEXT,
                created_at TEXT NOT NULL,
                UNIQUE (run_id, prediction_id)
            )
        """,
        """
            CREATE TABLE reviews (
                id INTEGER PRIMARY KEY,
                judgment_id INTEGER NOT NULL REFERENCES judgments (id) ON DELETE CASCADE,
                reviewer TEXT NOT NULL,
                action TEXT NOT NULL CHECK (action IN ('accept', 'override', 'flag', 'note', 'retract')),
                verdict TEXT CHECK (verdict IN ('sound', 'flawed', 'key_problem')),
                error_category TEXT,
                note TEXT,
                retracts INTEGER REFERENCES reviews (id),
                created_at TEXT NOT NULL
            )
        """,
        """
            CREATE INDEX reviews_judgment ON reviews (judgment_id, id)
        """,
    ],
    # 6: parse status 'ambiguous' (two explicit answers, no correction): predictions rebuilt
    [
        # predictions rebuilt: SQLite cannot alter a CHECK constraint, and parse_status's gains 'ambiguous'
        """
            CREATE TABLE predictions_new (
                id INTEGER PRIMARY KEY,
                run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
                question_id INTEGER NOT NULL REFERENCES questions (id) ON DELETE CASCADE,
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
                UNIQUE (run_id, question_id)
            )
        """,
        "INSERT INTO predictions_new SELECT * FROM predictions",
        "DROP TABLE predictions",
        "ALTER TABLE predictions_new RENAME TO predictions",
        "CREATE INDEX predictions_question ON predictions (question_id)",
    ],
    # 7: run lifecycle: the reason of a status, archiving, a lease (one process per run), history
    [
        "ALTER TABLE runs ADD COLUMN reason TEXT",
        "ALTER TABLE runs ADD COLUMN archived INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE runs ADD COLUMN lease_holder TEXT",
        "ALTER TABLE runs ADD COLUMN lease_expires REAL",
        """
            CREATE TABLE run_history (
                id INTEGER PRIMARY KEY,
                run_id INTEGER NOT NULL,
                event TEXT NOT NULL,
                detail TEXT NOT NULL DEFAULT '{}',
                who TEXT,
                created_at TEXT NOT NULL
            )
        """,
        "CREATE INDEX run_history_run ON run_history (run_id, id)",
    ],
    # 8: shipped empty (reserved once); source references are migration 12
    [],
]
