"""Plain dataclasses passed between the store, importers, exporters, CLI and TUI."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction

STATUSES = ("draft", "ready", "curated", "retired")
# the question sets a run, a report or an item analysis is built over: name -> the statuses in it
QUESTION_SETS: dict[str, tuple[str, ...]] = {"ready": ("ready", "curated"), "curated": ("curated",),
                                             "all": ("draft", "ready", "curated")}
# The one accuracy rule (runs list, run detail, report, judge form): a prediction is scored when its
# question has a key and is not retired; correct when it picked that key.
SCORED_STATUSES = QUESTION_SETS["all"]
RELEASE_NAME = re.compile(r"[^\W_][\w.\-]{0,99}")  # letters of any script (v1.0, نسخه-۱), digits, . _ -
# longest texts a question may hold, in characters (the longest classical hemistich is under 100;
# the limits keep a pasted book or a hostile file out of the duplicate search and the screen)
MAX_HEMISTICH = 400
MAX_STEM = 2_000


def scored_key(key: int | None, status: str) -> int | None:
    """The key a prediction is scored against: None for a keyless or retired question."""
    return key if status in SCORED_STATUSES else None


MAX_TEXT = 20_000  # explanation
MAX_PAGE = 1_000_000  # a source page number (Question.source_page)


def check_release_name(value: str | None) -> str | None:
    """A release's name: letters, digits, '.', '_' and '-', starting with a letter or digit
    (it names a folder: no '/', no '..', nothing hidden)."""
    if value is None:
        return None
    if not isinstance(value, str) or not RELEASE_NAME.fullmatch(value) or ".." in value \
            or unicodedata.normalize("NFC", value) != value:
        raise ValueError("must be letters, digits, '.', '_' or '-' (at most 100, starting with a "
                         "letter or digit), e.g. v1.0")
    return value


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
    status: str = "draft"
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
    # every reference (the first is source_name/source_id); filled when read from the store
    sources: list[SourceRef] = field(default_factory=list)

    def references(self) -> list[SourceRef]:
        """The question's references, its own source first, each once."""
        if not self.sources:  # the common case, kept cheap (called per question on import)
            own = self.source_name is not None or self.source_id is not None
            return [SourceRef(self.source_name, self.source_id)] if own else []
        refs = list(dict.fromkeys(self.sources))
        if self.source_name is not None or self.source_id is not None:
            own = SourceRef(self.source_name, self.source_id)
            refs = [next((r for r in refs if r == own), own), *(r for r in refs if r != own)]
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
        for name, text, limit in (("stem", self.stem, MAX_STEM), ("explanation", self.explanation, MAX_TEXT)):
            if len(text or "") > limit:
                out.append(f"{name} is {len(text):,} characters long (at most {limit:,})")
        if self.key is not None and self.key not in (1, 2, 3, 4):
            out.append(f"key {self.key} out of range 1..4")
        if self.status not in STATUSES:
            out.append(f"status {self.status!r} is not one of {', '.join(STATUSES)}")
        elif self.status in ("ready", "curated") and self.key is None:
            out.append(f"status {self.status} needs a key")
        return out


@dataclass(frozen=True)
class QuestionRow:
    """One line of the bank table."""

    uid: str
    source_id: str | None
    first_couplet: str
    category: str | None
    status: str
    key: int | None
    labels: int


@dataclass(frozen=True)
class BankCounts:
    total: int
    by_status: dict[str, int]
    categories: list[str]


CONFIDENCES = ("low", "medium", "high")


@dataclass(frozen=True)
class Label:
    """An annotator's current (effective) label of a question."""

    uid: str
    annotator: str
    answer: int | None  # 1..4, None when skipped
    skipped: bool = False
    confidence: str | None = None
    flag: str | None = None  # reason the item is defective
    note: str | None = None
    seconds: float | None = None
    created_at: str | None = None


@dataclass(frozen=True)
class Adjudication:
    uid: str
    adjudicator: str
    decision: str  # accept | key | retire
    key: int | None
    reason: str | None
    created_at: str


@dataclass(frozen=True)
class Revision:
    uid: str
    author: str | None
    created_at: str
    changes: dict  # field -> [old, new]


@dataclass(frozen=True)
class Progress:
    mine: int  # questions I have answered (skips not counted)
    queue_left: int  # questions still offered to me under the label target
    bank: int  # questions open for labelling (draft/ready/curated) in the queue's scope
    target: int
    skipped: int = 0  # questions I skipped
    complete: int = 0  # questions of the scope that have `target` answers (anyone's)
    flagged: int = 0  # questions I only flagged (a flag is not an answer)


QUEUE_MODES = ("overlap", "spread")


LABELLED_STATUSES = ("draft", "ready", "curated")  # the statuses a labelling queue serves by default


@dataclass(frozen=True)
class QueueScope:
    """Which questions a labelling queue serves; empty fields do not restrict."""

    tag: str | None = None
    category: str | None = None
    source: str | None = None
    status: str | None = None  # draft | ready | curated (default: all three)
    uids: tuple[str, ...] = ()

    @property
    def statuses(self) -> tuple[str, ...]:
        """The question statuses this queue serves (retired questions never)."""
        return (self.status,) if self.status else LABELLED_STATUSES

    def refusal(self, uid: str, status: str) -> str | None:
        """Why a question of this status cannot be labelled in this queue (None: it can)."""
        if status in self.statuses:
            return None
        if status == "retired":
            return f"{uid} is retired: retired questions are not labelled"
        return f"{uid} is {status}: this labelling queue serves {' and '.join(self.statuses)} questions only"

    def describe(self) -> str:
        parts = [f"{k} {v}" for k, v in (("tag", self.tag), ("category", self.category),
                                         ("source", self.source), ("status", self.status)) if v]
        if self.uids:
            parts.append(f"{len(self.uids)} chosen question{'s' if len(self.uids) != 1 else ''}")
        return ", ".join(parts) or "the whole bank"




@dataclass
class Run:
    id: int
    kind: str  # embedding | llm | paraphrase | judge | imported
    model: str
    params: dict
    status: str  # running | done | cancelled | failed
    total: int
    created_at: str
    finished_at: str | None = None
    prompt_template: str | None = None
    prompt_hash: str | None = None
    note: str | None = None
    reason: str | None = None  # why it ended failed/cancelled (secrets redacted)
    archived: bool = False  # hidden from lists and default reports

    @property
    def label(self) -> str:
        """The model, with what else tells runs of it apart in a list: samples per question
        ("×3") and the release it was run on ("@v1.0")."""
        k = int(self.params.get("samples") or 1)
        release = self.params.get("release")
        return self.model + (f" ×{k}" if k > 1 else "") + (f" @{release}" if release else "")


@dataclass
class Prediction:
    uid: str
    predicted: int | None  # original option 1..4 (after undoing a shuffle)
    parse_status: str  # ok | invalid | empty | refusal | api_error | ambiguous
    scores: list[float] | None = None
    raw_output: str | None = None
    reasoning: str | None = None
    permutation: list[int] | None = None
    prompt_hash: str | None = None
    exemplars: list[str] | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    latency: float | None = None
    cost: float | None = None
    error: str | None = None
    created_at: str | None = None
    sample: int = 0  # which of a run's K replies to the question (0 when asked once)

    @property
    def usable(self) -> int:
        """The chosen option 1..4, 0 when the reply is unusable (not ok, no answer)."""
        return (self.predicted or 0) if self.parse_status == "ok" and self.predicted in (1, 2, 3, 4) else 0


@dataclass(frozen=True)
class Vote:
    """The samples of one question in one run, voted: `answer` the majority's option (0 when no
    sample is usable; on a tie the option first given, which only picks the representative: a
    score uses `credit`, which never breaks a tie), `top` how many samples gave it,
    `asked` the samples that got a reply (API errors left out), `chosen` the representative
    sample (the majority's first; else the first that got a reply; else the first), `answers`
    every sample's usable answer in sample order (0 = unusable or failed)."""
    answer: int
    top: int
    asked: int
    chosen: Prediction
    answers: tuple[int, ...]

    @property
    def agreement(self) -> float | None:
        """Share of the replied samples that gave the majority's answer (None: no reply)."""
        return self.top / self.asked if self.asked else None

    @property
    def tied(self) -> tuple[int, ...]:
        """The options sharing the top count (2+ = a tied majority; empty: nothing usable)."""
        counts = Counter(a for a in self.answers if a)
        top = max(counts.values(), default=0)
        return tuple(sorted(o for o, c in counts.items() if c == top)) if top else ()

    def credit(self, key: int | None) -> Fraction:
        """The majority's score against `key`: 1 when the key alone is the most common answer,
        1/t when it is one of t tied options (the expected score of a random tie-break), else 0."""
        tied = self.tied
        return Fraction(1, len(tied)) if key in tied else Fraction(0)


def tally(answers: list[int], replied: list[bool]) -> tuple[int, int, int, int]:
    """The vote of one question's samples in sample order: (answer, top, asked, index of the
    chosen sample). answers: usable option or 0; replied: False for an API error."""
    counts: dict[int, int] = {}
    for a in answers:
        if a:
            counts[a] = counts.get(a, 0) + 1
    asked = sum(replied)
    if counts:
        answer = max(counts, key=counts.__getitem__)  # dict order: the first given wins a tie
        return answer, counts[answer], asked, answers.index(answer)
    return 0, 0, asked, replied.index(True) if asked else 0


def vote(samples: list[Prediction]) -> Vote:
    """Majority vote over one question's samples (in any order; sorted by sample index)."""
    ordered = sorted(samples, key=lambda p: p.sample)
    answers = [p.usable for p in ordered]
    answer, top, asked, i = tally(answers, [p.parse_status != "api_error" for p in ordered])
    return Vote(answer, top, asked, ordered[i], tuple(answers))


@dataclass(frozen=True)
class RunSummary:
    run: Run
    done: int  # predictions stored
    correct: int  # predicted == current key
    scored: int  # predictions of questions that have a key and are not retired (scored_key)
    invalid: int  # invalid / empty / refusal / ambiguous
    errors: int  # api_error

    @property
    def accuracy(self) -> float | None:
        """correct / scored; None (shown "—") when nothing is scored or no answer came back."""
        return accuracy(self.correct, self.scored, self.done, self.errors)


def accuracy(correct: int | None, scored: int | None, done: int | None, errors: int | None) -> float | None:
    """A run's accuracy (an invalid answer or API error counts as wrong), or None when there is
    nothing to divide or every request failed: a run that got no answer has no accuracy."""
    if not scored or correct is None or (done and errors is not None and errors >= done):
        return None
    return correct / scored


@dataclass(frozen=True)
class ErrorCategory:
    name: str
    label_fa: str
    label_en: str
    description_fa: str = ""
    description_en: str = ""
    example: str = ""


@dataclass
class JudgmentRow:
    """A judge's verdict on one prediction, with the human review in force (if any)."""

    id: int
    run_id: int  # the judge run
    target_run: int  # the judged run
    uid: str
    model: str  # the judged model
    status: str  # ok | unscored | api_error
    verdict: str | None
    error_category: str | None
    rationale: str | None
    raw_reply: str | None = None
    error: str | None = None
    review_verdict: str | None = None  # after the latest review (accept copies the judge's)
    review_category: str | None = None
    reviewer: str | None = None
    review_note: str | None = None
    flagged: bool = False
    sample: int = 0  # which of the judged run's samples was judged

    @property
    def reviewed(self) -> bool:
        return self.reviewer is not None


@dataclass(frozen=True)
class ReviewFlag:
    """A key problem flagged in judge review (in force), with the judgment it was about:
    what adjudication shows beside the votes."""

    reviewer: str
    note: str | None
    model: str  # the judged model
    predicted: int | None  # its answer
    verdict: str | None  # the judge's
    error_category: str | None
    rationale: str | None
    judge_model: str
    judge_run: int


# ---------------------------------------------------------------- corpus (Ganjoor export)


@dataclass
class CorpusPoem:
    """One poem read from the export; couplets are (index, mesra1, mesra2, norm1, norm2)."""

    path: str  # e.g. /hafez/ghazal/sh134
    ganjoor_id: int | None
    title: str
    form: str | None
    metre: str | None
    rhyme: str | None
    couplets: list[tuple[int, str, str, str, str]]
    sha256: str
    quoting: bool = False  # part of a listed work that quotes other poets
    notes: tuple[str, ...] = ()  # couplets repaired or skipped, one line each


@dataclass(frozen=True)
class CorpusCouplet:
    """A couplet of the corpus with its poem's provenance."""

    poem: str  # poem path
    couplet: int  # couplet index in the poem (0-based, as in the export)
    mesra1: str
    mesra2: str
    poet: str  # nickname
    poet_slug: str
    title: str
    form: str | None
    metre: str | None
    rhyme: str | None


@dataclass(frozen=True)
class OptionLink:
    """Provenance of one option: the corpus couplet it was found to be (never an edit)."""

    uid: str
    position: int
    status: str  # linked | ambiguous | unlinked
    method: str | None  # exact | swapped | fuzzy | one_hemistich | split | quoted | chosen
    score: float | None
    candidates: int
    couplet: CorpusCouplet | None
    # (poem path, couplet index, poet slug): the couplet's other poems when linked (also_in),
    # the other candidates when ambiguous
    others: tuple[tuple[str, int, str], ...] = ()
    reversed: bool | None = None  # the option's hemistichs are the poet's order reversed

    @property
    def whole(self) -> bool:
        """The option is this one couplet (not one hemistich of it, not halves of two)."""
        return self.status == "linked" and self.couplet is not None and self.method not in ("one_hemistich", "split")

    @property
    def order(self) -> str:
        """`poet`: the hemistichs are in the poet's order (checked against the corpus);
        `reversed`: checked and reversed (kept: a released question); else `unverified`."""
        if not self.whole or self.reversed is None:
            return "unverified"
        return "reversed" if self.reversed else "poet"


# ---------------------------------------------------------------- releases


@dataclass(frozen=True)
class ReleaseItem:
    """One frozen question of a release: its record (a JSONL line) and that line's sha256."""
    uid: str
    sha256: str
    key: int | None
    record: str


@dataclass(frozen=True)
class Release:
    name: str
    digest: str  # release_digest of its items
    questions: int
    created_by: str | None
    created_at: str
    items: tuple[ReleaseItem, ...] = ()


def release_digest(items) -> str:
    """sha256 over the items' (uid, content hash, key) in release order: names the content."""
    import hashlib

    blob = "".join(f"{i.uid}\t{i.sha256}\t{i.key if i.key is not None else ''}\n" for i in items)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()
