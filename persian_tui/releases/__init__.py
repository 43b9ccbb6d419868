"""Releases and other harnesses: what leaves the project, and what comes back from elsewhere.

`build` (`persian-tui release NAME`: freeze the curated set and write its folder),
`dataset_card` (the datasheet's column types), `inspect_task` and `lmeval_task` (the release's
tasks for Inspect and lm-evaluation-harness; `harness_files` gathers them, `task_names` names
them for the release), `hub` (upload to a Hugging Face dataset repository), `harness_logs`
(those harnesses' logs imported as runs), `export` (questions as JSONL)."""
