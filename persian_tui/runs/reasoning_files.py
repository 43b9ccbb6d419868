"""Attach published reasoning traces ({model_id, question_id, reasoning_text} JSON files, the
seed's exp-6 format) to the matching predictions of imported runs, so they can be judged."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..bank.references import References
from ..files.inputs import InputError
from ..files.records import read_json
from ..store import Store
from .llm_client import cut_long


@dataclass
class ReasoningImport:
    attached: int = 0
    unmatched: list[str] = field(default_factory=list)  # "file: why"
    notes: list[str] = field(default_factory=list)  # "file: reasoning_text of N characters cut ..."


def import_reasoning(store: Store, paths: list[Path], *, source: str | None = None) -> ReasoningImport:
    files = []
    for path in paths:
        files += sorted(path.glob("*.json")) if path.is_dir() else [path]
    if not files:
        raise InputError(f"no .json files in {', '.join(map(str, paths))}")
    # --source names the questions' source; a run imported under that source is preferred,
    # one imported without naming a source (as the documentation's commands do) serves too
    runs: dict[str, int] = {}
    imported = [r for r in store.runs.runs() if r.kind == "imported"
                and (source is None or r.params.get("source") in (source, None))]
    for run in sorted(imported, key=lambda r: source is not None and r.params.get("source") != source):
        runs.setdefault(run.model, run.id)
    refs = References(store, source)  # through any of a question's references
    result, updates = ReasoningImport(), []
    for f in files:
        data = read_json(f)
        if not isinstance(data, dict) or not all(k in data for k in ("model_id", "question_id", "reasoning_text")):
            raise InputError(f"{f}: expected an object with model_id, question_id and reasoning_text")
        model, sid, text = str(data["model_id"]), str(data["question_id"]), data["reasoning_text"]
        if model not in runs:
            result.unmatched.append(f"{f.name}: no imported run of {model}")
        elif why := refs.why_not_one(sid):
            result.unmatched.append(f"{f.name}: question {sid}: " +
                                    ("not in the bank" if sid not in refs else why))
        elif not isinstance(text, str) or not text.strip():
            result.unmatched.append(f"{f.name}: empty reasoning_text")
        else:  # capped like a reply: a 30 MB trace is not a 30 MB judge prompt
            notes: list[str] = []
            updates.append((runs[model], refs.find(sid)[0], cut_long(text, "reasoning_text", notes)))
            result.notes += [f"{f.name}: {note}" for note in notes]
    missing = store.runs.set_reasoning(updates)
    result.unmatched += [f"run {r}: no prediction for {u}" for r, u in missing]
    result.attached = len(updates) - len(missing)
    return result
