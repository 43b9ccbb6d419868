"""The question bank's data: a question and its options and references, the statuses a question
moves through, the question sets runs and reports are built over, the limits of its texts, and
`Question.problems` (what makes a question invalid)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, get_args

from .limits import TextKind, control_problem, limit, text_problem
from .vocabulary import QUESTION_STATUSES, ShownStatus

STATUSES = QUESTION_STATUSES
# the question sets a run, a report or an item analysis is built over: name -> the statuses in it
QUESTION_SETS: dict[str, tuple[str, ...]] = {"ready": ("ready", "curated"), "curated": ("curated",),
                                             "all": ("draft", "ready", "curated")}
# longest texts a question may hold, in characters (the longest classical hemistich is under 100;
# the limits keep a pasted book or a hostile file out of the duplicate search and the screen)
MAX_HEMISTICH = limit("hemistich")
MAX_STEM = limit("stem")
MAX_TEXT = limit("explanation")
MAX_PAGE = 1_000_000  # a source page number (Question.source_page)
# where a question came from: a seed book's import, a vetted corpus candidate (corpus propose), or
# written by a person (the editor, the sample bank, a JSONL file that does not say)
Origin = Literal["book", "fresh", "authored"]
ORIGINS: tuple[Origin, ...] = get_args(Origin)


def check_origin(value: object) -> Origin:
    """An origin as read from a file; ValueError naming the allowed ones otherwise."""
    for origin in ORIGINS:
        if value == origin:
            return origin
    raise ValueError(f"origin {value!r} must be one of {', '.join(ORIGINS)}")


@dataclass
class Option:
    position: int  # 1..4
    mesra1: str  # first hemistich (right-hand in print)
    mesra2: str  # second hemistich
    poet: str | None = None


@dataclass(frozen=True)
class SourceRef:
    """One reference a question is known by: a source (file or book name) and the id the
    question has there. ``file`` and ``created_at`` say where and when it was learnt; they do
    not take part in equality (two references are the same when name and id are)."""

    name: str | None
    id: str | None
    file: str | None = field(default=None, compare=False)
    created_at: str | None = field(default=None, compare=False)

    def label(self) -> str:
        """How the reference is shown: `name #id`."""
        return " ".join(p for p in (self.name, f"#{self.id}" if self.id is not None else None) if p)


@dataclass
class Question:
    uid: str
    options: list[Option]
    stem: str = ""
    key: int | None = None  # 1..4, the outlier
    status: ShownStatus = "draft"  # "" only in what access.py shows a blind person
    explanation: str | None = None
    category: str | None = None
    poet: str | None = None
    source_name: str | None = None
    source_id: str | None = None
    source_page: int | None = None  # the page of the source it is on (a book's), when known
    tags: list[str] = field(default_factory=list)
    author: str | None = None
    created_at: str | None = None
    updated_at: str | None = None
    origin: Origin = "authored"
    # every reference (the first is source_name/source_id); filled when read from the store
    sources: list[SourceRef] = field(default_factory=list)

    def references(self) -> list[SourceRef]:
        """The question's references, its own source first, each once."""
        if not self.sources:  # the common case, kept cheap (called per question on import)
            own = self.source_name is not None or self.source_id is not None
            return [SourceRef(self.source_name, self.source_id)] if own else []
        refs = list(dict.fromkeys(self.sources))
        if self.source_name is not None or self.source_id is not None:
            mine = SourceRef(self.source_name, self.source_id)
            refs = [next((r for r in refs if r == mine), mine), *(r for r in refs if r != mine)]
        return refs

    def problems(self) -> list[str]:
        """What makes this question invalid (empty list when it is fine)."""
        out = []
        if len(self.options) != 4:
            out.append(f"{len(self.options)} option(s), expected 4")
        positions = sorted(o.position for o in self.options)
        if len(self.options) == 4 and positions != [1, 2, 3, 4]:
            out.append(f"option positions {positions}, expected 1..4")
        for o in self.options:
            empty = [n for n, h in (("first", o.mesra1), ("second", o.mesra2)) if not (h or "").strip()]
            if len(empty) == 2:
                out.append(f"option {o.position} is empty")
            elif empty:
                out.append(f"option {o.position}: empty {empty[0]} hemistich")
            for n, h in (("first", o.mesra1), ("second", o.mesra2)):
                if len(h or "") > MAX_HEMISTICH:
                    out.append(f"option {o.position}: {n} hemistich is {len(h):,} characters long "
                               f"(at most {MAX_HEMISTICH})")
        for name, text, most in (("stem", self.stem, MAX_STEM), ("explanation", self.explanation, MAX_TEXT)):
            if (size := len(text or "")) > most:
                out.append(f"{name} is {size:,} characters long (at most {most:,})")
        out += self._text_problems()
        if self.key is not None and self.key not in (1, 2, 3, 4):
            out.append(f"key {self.key} out of range 1..4")
        if self.status not in STATUSES:
            out.append(f"status {self.status!r} is not one of {', '.join(STATUSES)}")
        elif self.status in ("ready", "curated") and self.key is None:
            out.append(f"status {self.status} needs a key")
        return out

    def _text_problems(self) -> list[str]:
        """A control character in any text, a poet, category or tag past its cap (the lengths
        of the stem, hemistichs and explanation are said above, naming the option)."""
        out = []
        texts: list[tuple[str, TextKind, str | None]] = [
            ("stem", "stem", self.stem), ("explanation", "explanation", self.explanation),
            ("poet", "poet", self.poet), ("category", "category", self.category),
            *(("tag", "tag", t) for t in self.tags)]
        for o in self.options:
            texts += [(f"option {o.position}", "hemistich", o.mesra1), (f"option {o.position}", "hemistich", o.mesra2),
                      (f"option {o.position}", "poet", o.poet)]
        for where, kind, text in texts:
            check = text_problem if kind in ("poet", "category", "tag") else control_problem
            if text and (problem := check(kind, text)):
                out.append(f"{where}: {problem}")
        return out


@dataclass(frozen=True)
class QuestionRow:
    """One line of the bank table."""

    uid: str
    source_id: str | None
    first_couplet: str
    category: str | None
    status: ShownStatus  # "" only in what access.py shows a blind person
    key: int | None
    labels: int


@dataclass(frozen=True)
class BankCounts:
    total: int
    by_status: dict[str, int]
    categories: list[str]
