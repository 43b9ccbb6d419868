"""Import published answers (the seed's exp-1 and exp-6 CSVs) as `imported` runs, one per model.

Rows are matched to questions through any of their source references (the id a question has in
any file it was imported from or linked to; only `source`'s references when given); unmatched
rows are reported, and an id that names several different questions is reported as ambiguous,
never guessed. Answer cells are read by the one answer parser
(`۳`, `C`, `Answer: 2`, `گزینه سوم`); a cell it cannot read is kept with its parse status
(invalid, ambiguous, empty, refusal) and counted, never dropped."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from ..bank.references import References
from ..files.inputs import InputError, read_input
from ..files.records import read_csv
from ..models import Prediction
from ..store import Store, StoreError
from .llm_client import MAX_TOKENS, cut_long
from .parse import parse_answer

ID_COLUMNS = ("question_id", "question_number")


@dataclass
class PredictionImport:
    path: Path
    runs_new: dict[str, int] = field(default_factory=dict)  # model -> predictions
    runs_unchanged: list[str] = field(default_factory=list)
    unmatched: dict[str, int] = field(default_factory=dict)  # question id -> rows
    ambiguous: dict[str, int] = field(default_factory=dict)  # id answered twice by a model -> rows
    reasons: dict[str, str] = field(default_factory=dict)  # id naming several questions -> why
    invalid: int = 0


def import_predictions(store: Store, path: str | Path, *, source: str | None = None,
                       dry_run: bool = False) -> PredictionImport:
    path = Path(path)
    try:
        data = read_input(path)
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not UTF-8 text (byte {e.start})") from None
    columns, rows = read_csv(path, text)
    id_column = next((c for c in ID_COLUMNS if c in columns), None)
    if "model_name" not in columns or "model_answer" not in columns or id_column is None:
        raise InputError(f"{path}: expected columns model_name, question_id (or question_number) "
                         f"and model_answer; found {', '.join(columns) or 'none'}")
    refs = References(store, source)  # through any of a question's references
    result = PredictionImport(path)
    by_model: dict[str, list[Prediction]] = defaultdict(list)
    answers: dict[tuple[str, str], int] = defaultdict(int)
    dropped: dict[str, int] = defaultdict(int)  # model -> its rows matching no single question
    per_model: dict[str, int] = defaultdict(int)
    for n, row in rows:
        model = (row.get("model_name") or "").strip()
        sid = (row.get(id_column) or "").strip()
        if not model or not sid:
            raise InputError(f"{path}: line {n}: empty model_name or {id_column}")
        tokens = (row.get("completion_tokens") or "").strip()
        if tokens and not (tokens.isascii() and tokens.isdigit() and len(tokens) <= 12 and int(tokens) <= MAX_TOKENS):
            raise InputError(f"{path}: line {n}: completion_tokens {tokens[:20]!r} is not a whole "
                             f"number from 0 to {MAX_TOKENS:,}")
        answers[(model, sid)] += 1
    for _, row in rows:
        model, sid = row["model_name"].strip(), row[id_column].strip()
        per_model[model] += 1
        if answers[(model, sid)] > 1 or sid not in refs or refs.why_not_one(sid):
            dropped[model] += 1
        if answers[(model, sid)] > 1:
            # the source has several questions with this id: which answer is which is unknown
            result.ambiguous[sid] = result.ambiguous.get(sid, 0) + 1
            continue
        if sid not in refs:
            result.unmatched[sid] = result.unmatched.get(sid, 0) + 1
            continue
        if why := refs.why_not_one(sid):  # one id, several different questions: never guessed
            result.ambiguous[sid] = result.ambiguous.get(sid, 0) + 1
            result.reasons.setdefault(sid, why)
            continue
        raw = cut_long((row.get("model_answer") or "").strip(), "model_answer", [])  # as a reply
        tokens = (row.get("completion_tokens") or "").strip()
        parsed = parse_answer(raw)  # the one answer parser: "۳", "C", "Answer: 2", "گزینه سوم"
        answer, status = parsed.answer, parsed.status
        result.invalid += status != "ok"
        by_model[model].append(Prediction(
            refs.find(sid)[0], answer, status, raw_output=raw or None,
            tokens_out=int(tokens) if tokens.isdigit() else None))
    sha = hashlib.sha256(data).hexdigest()
    existing = {(r.model, r.params.get("sha256")) for r in store.runs.runs() if r.kind == "imported"}
    for model, preds in by_model.items():
        if (model, sha) in existing:
            result.runs_unchanged.append(model)
            continue
        if dry_run:
            result.runs_new[model] = len(preds)
            continue
        params = {"file": path.name, "sha256": sha, "source": source, "rows": per_model[model],
                  "dropped": dropped[model]}  # rows kept out: the published figure was on more questions
        try:
            run = store.runs.create_run("imported", model, params,
                                        total=len(preds), status="done", predictions=preds, once_per_file=True)
        except StoreError as e:  # a full disk after some runs: say what was written, not "nothing"
            if not result.runs_new:
                raise
            why = str(e).removesuffix("; nothing was written")
            raise StoreError(f"{path}: {len(result.runs_new)} of {len(by_model)} run(s) were written "
                             f"({', '.join(result.runs_new)}), then the database failed: {why}; importing "
                             "the file again adds the rest (the written runs are kept and skipped)") from None
        if run is None:  # another import of the same file got there first
            result.runs_unchanged.append(model)
        else:
            result.runs_new[model] = len(preds)
    return result
