"""The poetry corpus (the Ganjoor export) and what it tells about the bank's couplets.

`ganjoor` (read the export into the corpus tables), `similar` (couplets of the corpus like a
given one), `provenance` (breakdown values from the couplets' links: poet, form, metre). The
linking rules are models.linking (pure); the tables and queries are store/corpus.py."""
