"""The question bank's files and search: the formats questions come in and go out in.

`seed` (the seed benchmark's formats), `jsonl` (the project's JSONL, what `export` writes),
`question_files` (either, read into records), `importer` (plan and apply an import),
`references` (find questions by a source id through any of their references), `search` (the
bank's incremental search, in memory)."""
