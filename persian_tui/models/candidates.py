"""Candidate questions drawn from the corpus (`corpus propose`): four corpus couplets, the
outlier the generator intends, its reasons, and the admins' decision. A candidate is never a
question; accepting one makes a draft question whose origin is `fresh`. Also the closed
vocabulary of a question's origin. No I/O."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from .corpus import CorpusCouplet
from .vocabulary import ParseStatus

CandidateState = Literal["proposed", "accepted", "rejected"]
CANDIDATE_STATES: tuple[CandidateState, ...] = get_args(CandidateState)
MAX_REASON = 500  # characters of a rejection's reason
GANJOOR = "https://ganjoor.net"
MIN_WORDS = 4  # words a corpus couplet needs to be drawn or paraphrased (a refrain alone says nothing)


def couplet_link(c: CorpusCouplet) -> str:
    """The couplet's page on Ganjoor (the export's poem path, its couplets anchored bn1, bn2, ...)."""
    return f"{GANJOOR}{c.poem}#bn{c.couplet + 1}"


@dataclass(frozen=True)
class Drawn:
    """A corpus couplet as the generator reads it: its row id, its poem's, the couplet, its
    hemistichs' keys (either order) and its normalized text."""

    id: int
    poem_id: int
    couplet: CorpusCouplet
    key: frozenset[str]
    norm: str


@dataclass(frozen=True)
class Candidate:
    """A proposed question: `couplets` in option order (1..4), `outlier` the intended key."""

    id: int
    couplets: tuple[CorpusCouplet, ...]
    outlier: int
    embedder: str
    reasons: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)
    state: CandidateState = "proposed"
    proposed_by: str | None = None
    created_at: str = ""
    decided_by: str | None = None
    decided_at: str | None = None
    reason: str | None = None  # why it was rejected
    question_uid: str | None = None  # the draft it became, when accepted


@dataclass(frozen=True)
class CandidateCounts:
    """How the vetting went: candidates by state, reject reasons with their counts (most first)."""

    proposed: int
    accepted: int
    rejected: int
    reasons: tuple[tuple[str, int], ...]

    @property
    def decided(self) -> int:
        return self.accepted + self.rejected

    @property
    def acceptance(self) -> float | None:
        """Accepted among decided; None before any decision."""
        return self.accepted / self.decided if self.decided else None


@dataclass
class CoupletProse:
    """One corpus couplet of a corpus paraphrase run (`run paraphrase --corpus`): the sha256 of
    its verse as asked, the reply's status, the prose (when `ok`), the reply as given."""

    couplet_id: int
    verse_sha: str
    status: ParseStatus = "api_error"
    prose: str | None = None
    reply: str | None = None
    error: str | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    latency: float | None = None
    cost: float | None = None
    created_at: str = ""


def verse_sha(mesra1: str, mesra2: str) -> str:
    """The sha256 of a couplet's verse as a paraphrase run asks it (byte-exact)."""
    import hashlib

    return hashlib.sha256(f"{mesra1}\n{mesra2}".encode()).hexdigest()
