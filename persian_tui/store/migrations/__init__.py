"""The schema migrations by number range, each module a list in order (store.schema joins them)."""
