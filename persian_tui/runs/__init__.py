"""Runs: a validated spec in (`spec`), predictions streamed into the store, progress out; the
clients, prompts and parser they use; the published answers imported as runs.

`progress` (RunProgress, question selection, RunError), `lifecycle` (lease, heartbeat, breaker,
writes retried while the database is busy, the final status), `llm` (LLM and paraphrase runs,
and the session judge runs share: judging/run.py), `embedding`. Every `execute_*` takes the
database path and opens its own connection, so a worker thread can run any of them. Their public
names are re-exported here: `from persian_tui.runs import execute_llm_run`.

What they use: `llm_client` (chat completions through the `openai` client, with the one retry
layer), `embedders` (TF-IDF, sentence-transformers, OpenAI-compatible endpoints), `outlier` (the
scorers over embeddings), `prompts` (the prompt strategies), `parse` and `parse_vocab` (the one
answer parser). Published answers and reasoning become imported runs: `prediction_files`,
`reasoning_files`."""

from .embedding import couplet_text, create_embedding_run, execute_embedding_run, run_embedding
from .lifecycle import BUSY_RETRIES, LEASE_SECONDS, Breaker
from .llm import LLMSession, cached_reply, create_llm_run, execute_llm_run, resume_overrides, stored_spec
from .progress import Callback, RunError, RunProgress, select_questions
from .spec import (
    MAX_SAMPLES,
    RESUME_OVERRIDES,
    SPECS,
    EmbedRunSpec,
    JudgeRunSpec,
    LLMRunSpec,
    ParaphraseRunSpec,
    check_base_url,
    describe,
    field_errors,
    resume_command,
)

__all__ = [
    "BUSY_RETRIES", "LEASE_SECONDS", "MAX_SAMPLES", "RESUME_OVERRIDES", "SPECS", "Breaker", "Callback",
    "EmbedRunSpec", "JudgeRunSpec", "LLMRunSpec", "LLMSession", "ParaphraseRunSpec", "RunError",
    "RunProgress", "cached_reply", "check_base_url", "couplet_text", "create_embedding_run",
    "create_llm_run", "describe", "execute_embedding_run",
    "execute_llm_run", "field_errors", "resume_command", "resume_overrides", "run_embedding", "select_questions",
    "stored_spec",
]
