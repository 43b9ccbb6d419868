"""The closed vocabularies of the data model, each defined once as a `Literal` (checked by mypy)
with its values as a tuple for choices and checks (as `users.py` does for roles)."""

from __future__ import annotations

from typing import Literal, get_args

QuestionStatus = Literal["draft", "ready", "curated", "retired"]
ShownStatus = QuestionStatus | Literal[""]  # "": hidden from a blind person (access.py)
RunKind = Literal["embedding", "llm", "paraphrase", "judge", "imported", "baseline", "recall"]
RunStatus = Literal["running", "done", "cancelled", "failed"]
ParseStatus = Literal["ok", "invalid", "empty", "refusal", "api_error", "ambiguous"]
JudgmentStatus = Literal["ok", "unscored", "api_error"]
LinkStatus = Literal["linked", "ambiguous", "unlinked"]
QueueMode = Literal["overlap", "spread"]

QUESTION_STATUSES: tuple[QuestionStatus, ...] = get_args(QuestionStatus)
RUN_KINDS: tuple[RunKind, ...] = get_args(RunKind)
RUN_STATUSES: tuple[RunStatus, ...] = get_args(RunStatus)
PARSE_STATUSES: tuple[ParseStatus, ...] = get_args(ParseStatus)
JUDGMENT_STATUSES: tuple[JudgmentStatus, ...] = get_args(JudgmentStatus)
LINK_STATUSES: tuple[LinkStatus, ...] = get_args(LinkStatus)
QUEUE_MODES: tuple[QueueMode, ...] = get_args(QueueMode)
