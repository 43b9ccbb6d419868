"""The only package that speaks SQL.

Rows are read one way, by column name: every connection has ``sqlite3.Row`` as its row
factory, and the repositories build the dataclasses of ``persian_tui.models`` (below the store,
with its pure rules: keys, merge, linking) from named columns (``Run(**row)``, an ``AS`` alias
where a column's name differs from the field's). Not sqlite-utils: its
``insert_all`` measured 1.3-2x slower than one ``executemany`` inside the write lock
(bench/bench_inserts.py), so writes were plain sqlite3 already; ``sqlite3.Row`` gives reads the
same names without a second library or a dict per row, and leaves each write's single
``BEGIN IMMEDIATE`` transaction exactly as it was.

Layout, bottom up:
- ``errors``: the exceptions; ``registry``: the database files this process opened;
- ``schema``: the ordered migrations (kept by number range in ``migrations/``); ``schema.sql``,
  written by ``schema_dump``, is the schema after all of them; ``db``: ``Database``, the one
  connection (opening, migrating, ``tx()``, ``timing()``, ``data_version()``) every repository
  shares;
- ``rows``: a question's rows prepared before the lock, and the writes several repositories make
  inside their transactions (bulk insert, source references, the import log, a uid's row id);
- one repository per table group, each a plain class over the ``Database`` and given, in its
  constructor, any other repository it needs (never reached implicitly): ``questions``
  (questions, options), ``sources`` (question_sources), ``imports`` (an import's write, its log),
  ``curation`` (edits with revisions, adjudications), ``labels`` (labels, queue, settings),
  ``runs`` (runs, predictions, caches), ``judging`` (taxonomy, judgments, reviews), ``corpus``
  (poems, FTS index, search; ``corpus_query`` builds its FTS text), ``links`` (option -> couplet
  links), ``releases``, ``users`` (people and their roles);
- ``store``: ``Store``, a ``Database`` with the repositories as attributes by those names:
  ``store.labels.add_label(...)``, ``store.runs.predictions(run_id)``."""

from .db import discard_if_unused, is_there
from .errors import Changed, DatabaseError, EditConflict, LeaseHeld, ReleaseExists, StoreBusy, StoreError
from .store import Store

__all__ = ["Changed", "DatabaseError", "EditConflict", "LeaseHeld", "ReleaseExists", "Store", "StoreBusy", "StoreError",
           "discard_if_unused", "is_there"]
