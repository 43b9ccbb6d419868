"""Import labels made elsewhere (a paper exam, another tool): CSV or JSONL rows of
annotator, question (uid, or source id with optional source), answer, confidence, note."""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from ..bank.references import References
from ..files.inputs import InputError
from ..files.records import parse_json, read_csv, read_text
from ..models import CONFIDENCES, Label
from ..models.labels import check_note
from ..models.users import User, check_name, same_person
from ..store import Store

_DIGITS = str.maketrans("۰۱۲۳۴۵۶۷۸۹٠١٢٣٤٥٦٧٨٩", "01234567890123456789")
SKIPS = ("skip", "s", "-")


@dataclass
class LabelPlan:
    path: Path
    new: list[Label] = field(default_factory=list)
    unchanged: int = 0
    rejected: list[str] = field(default_factory=list)  # "line N: reason"

    def summary(self) -> str:
        return f"{len(self.new)} new, {self.unchanged} unchanged, {len(self.rejected)} rejected"


def _rows(path: Path) -> list[tuple[int, dict]]:
    text = read_text(path)
    if path.suffix.lower() in (".jsonl", ".json"):
        rows = []
        for n, line in enumerate(text.split("\n"), 1):  # U+2028 and friends are text, not line ends
            if not line.strip():
                continue
            try:
                obj = parse_json(line)
            except json.JSONDecodeError as e:
                rows.append((n, {"__error__": f"malformed JSON at column {e.colno}: {e.msg}"}))
                continue
            except ValueError as e:
                rows.append((n, {"__error__": str(e)}))
                continue
            rows.append((n, obj if isinstance(obj, dict) else {"__error__": "not a JSON object"}))
        return rows
    header, rows = read_csv(path, text)
    if "annotator" not in header or "answer" not in header:
        raise InputError(f"{path}: a labels CSV needs a header with annotator, answer and uid or source_id")
    return rows


def _answer(value: object) -> tuple[int | None, bool]:
    text = str(value if value is not None else "").strip().translate(_DIGITS).lower()
    if text in SKIPS:
        return None, True
    if text in ("1", "2", "3", "4"):
        return int(text), False
    raise ValueError(f"answer {value!r} is not 1..4 or skip")


def _annotator(name: str, people: list[User]) -> str:
    """An annotator's name under the rule `users add` applies (check_name: length, no control or
    invisible character, no look-alike mix of scripts); a name that reads as a user's (the same
    once normalized) but is spelled otherwise is refused."""
    try:
        name = check_name(name)
    except ValueError as e:
        raise ValueError(f"annotator: {e}") from None
    alike = same_person(people, name)
    if alike is not None and alike.name != name:
        raise ValueError(f"annotator {name} looks like the user {alike.name} (the same name once normalized)")
    return name


def plan_labels(store: Store, path: str | Path) -> LabelPlan:
    path = Path(path)
    plan = LabelPlan(path)
    by_uid = store.questions.uids()
    refs = References(store)  # every reference of every question, not only its own source
    current = {(l.uid, l.annotator): l for l in store.labels.labels()}
    people = store.users.users(removed=True)
    seen: set[tuple[str, str]] = set()
    for n, row in _rows(path):
        where = f"line {n}"
        try:
            if "__error__" in row:
                raise ValueError(row["__error__"])
            annotator = str(row.get("annotator") or "").strip()
            if not annotator:
                raise ValueError("annotator is empty")
            if bad := next((c for c in annotator if unicodedata.category(c) in ("Cc", "Cs")), None):
                raise ValueError(f"annotator holds a control character (U+{ord(bad):04X})")
            annotator = _annotator(annotator, people)
            if field := next((k for k, v in row.items() if isinstance(v, str) and "\x00" in v), None):
                raise ValueError(f"{field} holds a NUL character")
            uid = str(row.get("uid") or "").strip()
            if uid:
                if uid not in by_uid:
                    raise ValueError(f"no question with uid {uid}")
            else:
                sid = str(row.get("source_id") or "").strip()
                if not sid:
                    raise ValueError("needs a uid or a source_id")
                source = str(row.get("source") or "").strip() or None
                why = refs.why_not_one(sid, source, hint="add a source column")
                if why:
                    raise ValueError(why)
                uid = refs.find(sid, source)[0]
            answer, skipped = _answer(row.get("answer"))
            confidence = str(row.get("confidence") or "").strip().lower() or None
            if confidence is not None and confidence not in CONFIDENCES:
                raise ValueError(f"confidence {confidence!r} is not one of {', '.join(CONFIDENCES)}")
            note = check_note(str(row.get("note") or ""))
            if (uid, annotator) in seen:
                raise ValueError(f"a second label by {annotator} for {uid} in this file")
            seen.add((uid, annotator))
        except ValueError as e:
            plan.rejected.append(f"{where}: {e}")
            continue
        label = Label(uid, annotator, answer, skipped, confidence, None, note)
        old = current.get((uid, annotator))
        if old and (old.answer, old.skipped, old.confidence, old.note) == (answer, skipped, confidence, note):
            plan.unchanged += 1
        else:
            plan.new.append(label)
    return plan


def apply_labels(store: Store, plan: LabelPlan, *, skip_invalid: bool = False) -> int:
    if plan.rejected and not skip_invalid:
        shown = "\n".join(f"  {r}" for r in plan.rejected[:20])
        more = f"\n  ... and {len(plan.rejected) - 20} more" if len(plan.rejected) > 20 else ""
        raise InputError(f"{plan.path}: {len(plan.rejected)} invalid row(s); nothing imported "
                         f"(--skip-invalid imports the {len(plan.new)} valid ones)\n{shown}{more}")
    return store.labels.add_labels(plan.new)
