"""The corpus's data (the Ganjoor export): a poem as read, a couplet with its poem's provenance,
and an option's link to the couplet it was found to be (`OptionLink.whole`, `OptionLink.order`)."""

from __future__ import annotations

from dataclasses import dataclass

from .vocabulary import LinkStatus


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
    status: LinkStatus
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
