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
    # 21: where a question came from (`origin`: book, fresh, authored; imported from a seed book ->
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
]
