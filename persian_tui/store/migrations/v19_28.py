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
]
