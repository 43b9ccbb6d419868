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

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# each public name's module, imported at the first use of the name (PEP 562): a command that
# needs only RunError does not import pydantic, asyncio and the clients' modules
_WHERE = {
    "couplet_text": "embedding", "create_embedding_run": "embedding", "execute_embedding_run": "embedding",
    "run_embedding": "embedding",
    "BUSY_RETRIES": "lifecycle", "LEASE_SECONDS": "lifecycle", "Breaker": "lifecycle",
    "LLMSession": "session", "cached_reply": "session", "create_llm_run": "llm", "execute_llm_run": "llm",
    "resume_overrides": "llm", "stored_spec": "session",
    "create_recall_run": "recall", "execute_recall_run": "recall",
    "Callback": "progress", "RunError": "progress", "RunProgress": "progress", "select_questions": "progress",
    "MAX_SAMPLES": "spec", "RESUME_OVERRIDES": "spec", "SPECS": "spec", "EmbedRunSpec": "spec",
    "JudgeRunSpec": "spec", "LLMRunSpec": "spec", "ParaphraseRunSpec": "spec", "RecallRunSpec": "spec",
    "check_base_url": "spec",
    "describe": "spec", "field_errors": "spec", "resume_command": "spec",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
    from .embedding import couplet_text, create_embedding_run, execute_embedding_run, run_embedding
    from .lifecycle import BUSY_RETRIES, LEASE_SECONDS, Breaker
    from .llm import create_llm_run, execute_llm_run, resume_overrides
    from .progress import Callback, RunError, RunProgress, select_questions
    from .recall import create_recall_run, execute_recall_run
    from .session import LLMSession, cached_reply, stored_spec
    from .spec import (
        MAX_SAMPLES,
        RESUME_OVERRIDES,
        SPECS,
        EmbedRunSpec,
        JudgeRunSpec,
        LLMRunSpec,
        ParaphraseRunSpec,
        RecallRunSpec,
        check_base_url,
        describe,
        field_errors,
        resume_command,
    )

__all__ = [
    "BUSY_RETRIES", "LEASE_SECONDS", "MAX_SAMPLES", "RESUME_OVERRIDES", "SPECS", "Breaker", "Callback",
    "EmbedRunSpec", "JudgeRunSpec", "LLMRunSpec", "LLMSession", "ParaphraseRunSpec", "RecallRunSpec", "RunError",
    "RunProgress", "cached_reply", "check_base_url", "couplet_text", "create_embedding_run",
    "create_llm_run", "create_recall_run", "describe", "execute_recall_run", "execute_embedding_run",
    "execute_llm_run", "field_errors", "resume_command", "resume_overrides", "run_embedding", "select_questions",
    "stored_spec",
]
