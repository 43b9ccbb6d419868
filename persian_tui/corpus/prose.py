"""The prose `corpus propose --paraphrases RUN` embeds: a corpus paraphrase run's replies that
are prose (runs/corpus_prose.py), for the couplets whose verse is still the one asked.

Couplets without prose are left out of the generator's pools rather than embedded as verse:
a similarity between a prose text and a verse one is not on the scale of two prose texts,
and the generator's thresholds are quantiles of each pool's similarities."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..models.candidates import Drawn, verse_sha
from ..store import Store


class ProseError(Exception):
    """The run cannot give prose (one line)."""


@dataclass
class Prose:
    """The usable prose of one paraphrase run, by corpus couplet id, and what was left out."""

    run_id: int
    texts: dict[int, str]
    couplets: dict[int, Drawn]  # the couplets with prose, as the generator reads them
    not_prose: int = 0  # rows whose reply was empty, in another script, too long, or failed
    changed: int = 0  # rows whose couplet's verse is no longer the one asked (or is gone)
    seen: list[int] = field(default_factory=lambda: [0, 0])  # pool couplets: [with prose, all]

    def share(self) -> float | None:
        return self.seen[0] / self.seen[1] if self.seen[1] else None

    def summary(self) -> str:
        """One line: what the run gave and what share of the seeds' pools had prose."""
        share = self.share()
        pools = (f"; {self.seen[0]:,} of the {self.seen[1]:,} couplets of the seeds' word-and-form pools "
                 f"({share:.1%}) had prose" if share is not None else "")
        left = [f"{n:,} {what}" for n, what in ((self.not_prose, "replies not prose"),
                                                 (self.changed, "couplets changed since")) if n]
        return (f"prose of paraphrase run {self.run_id}: {len(self.texts):,} couplets"
                + (f" ({', '.join(left)}: left out)" if left else "") + pools
                + "; couplets without prose are left out")


def load_prose(store: Store, run_id: int) -> Prose:
    """The prose of paraphrase run `run_id`; ProseError when it is no corpus paraphrase run of
    this database, is not finished, or has no prose for this corpus's couplets."""
    run = store.runs.get_run(run_id)
    flag = f"--paraphrases {run_id}"
    if run is None or run.kind != "paraphrase":
        other = f"; run {run_id} is of kind {run.kind}" if run is not None else ""
        raise ProseError(f"{flag}: no paraphrase run {run_id} in {store.path}{other} (see persian-tui runs)")
    if not run.params.get("corpus"):
        raise ProseError(f"{flag}: run {run_id} paraphrased the bank's questions, not corpus couplets "
                         "(make one with `persian-tui run paraphrase --corpus`)")
    if run.status != "done":
        raise ProseError(f"{flag}: run {run_id} is {run.status}, not finished "
                         f"(`persian-tui run paraphrase --resume {run_id}` goes on)")
    rows = store.corpus_prose.rows(run_id)
    drawn = store.candidates.drawn(r.couplet_id for r in rows)
    texts: dict[int, str] = {}
    out = Prose(run_id, texts, {})
    for r in rows:
        d = drawn.get(r.couplet_id)
        if d is None or verse_sha(d.couplet.mesra1, d.couplet.mesra2) != r.verse_sha:
            out.changed += 1
        elif r.status != "ok" or not r.prose:
            out.not_prose += 1
        else:
            texts[r.couplet_id] = r.prose
            out.couplets[r.couplet_id] = d
    if not texts:
        why = (f"the verse of its {out.changed} couplet(s) is not this corpus's (a run of another database, or "
               "a corpus imported again)" if out.changed and not out.not_prose else
               f"none of its {len(rows)} replies is prose")
        raise ProseError(f"{flag}: no usable prose: {why}")
    return out
