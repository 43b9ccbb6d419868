"""Candidate questions from the corpus (table candidates): what the generator may draw from
(poems none of whose couplets is in the bank, couplets no open candidate uses), the couplets it
reads, the candidates it writes, and the admins' decisions (each one short, race-free write)."""

from __future__ import annotations

import json
import random
import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

from ..models import CorpusCouplet
from ..models.candidates import Candidate, CandidateCounts, CandidateState, Drawn
from ..models.keys import now
from ..models.limits import check_text
from ..text import corpus_key
from .corpus import COUPLET_FIELDS
from .db import Database
from .rows import to_json

_SELECT = (
    "SELECT c.id, c.norm1, c.norm2, p.path AS poem, c.idx AS couplet, c.mesra1, c.mesra2, pt.nickname AS poet, "
    "pt.slug AS poet_slug, p.title, p.form, p.metre, p.rhyme, p.id AS poem_id "
    "FROM corpus_couplets c JOIN corpus_poems p ON p.id = c.poem_id JOIN corpus_poets pt ON pt.id = p.poet_id "
)
FORM_MATES = 60  # couplets of poems in the seed's metre and rhyme read per seed


def _drawn(r: sqlite3.Row) -> Drawn:
    return Drawn(r["id"], r["poem_id"], CorpusCouplet(**{f: r[f] for f in (*COUPLET_FIELDS, "mesra1", "mesra2")}),
                 halves_key(r["norm1"], r["norm2"]), f"{r['norm1']} {r['norm2']}".strip())


def halves_key(norm1: str, norm2: str) -> frozenset[str]:
    """A couplet's hemistichs as spacing-free corpus keys, in either order."""
    return frozenset(k for k in (norm1.replace(" ", ""), norm2.replace(" ", "")) if k)


class CandidatesRepo:
    def __init__(self, db: Database):
        self.db = db

    # ------------------------------------------------------------ what may be drawn

    def bank_poems(self) -> set[int]:
        """The corpus poems holding a couplet of the bank: linked options, and the poems an
        ambiguous link could not choose between."""
        ids = {r[0] for r in self.db.conn.execute(
            "SELECT DISTINCT poem_id FROM option_links WHERE poem_id IS NOT NULL AND status != 'unlinked'")}
        for r in self.db.conn.execute("SELECT others FROM option_links WHERE others IS NOT NULL"):
            paths = [o[0] for o in json.loads(r[0])]
            for start in range(0, len(paths), 500):
                chunk = paths[start:start + 500]
                ids.update(x[0] for x in self.db.conn.execute(
                    f"SELECT id FROM corpus_poems WHERE path IN ({','.join('?' * len(chunk))})", chunk))
        return ids

    def bank_keys(self) -> set[frozenset[str]]:
        """Every bank option's hemistichs as corpus keys (a copy of one elsewhere in the corpus is
        a bank couplet too)."""
        return {halves_key(corpus_key(r[0]), corpus_key(r[1]))
                for r in self.db.conn.execute("SELECT mesra1, mesra2 FROM options")}

    def used_couplets(self) -> set[int]:
        """Couplets of candidates not rejected (never proposed twice)."""
        return {r[0] for r in self.db.conn.execute(
            "SELECT couplet1 FROM candidates WHERE state != 'rejected' UNION SELECT couplet2 FROM candidates "
            "WHERE state != 'rejected' UNION SELECT couplet3 FROM candidates WHERE state != 'rejected' "
            "UNION SELECT couplet4 FROM candidates WHERE state != 'rejected'")}

    def poems(self, poet_ids: Sequence[int] | None = None) -> list[int]:
        """Ids of the poems with two couplets or more (of these poets) that quote no one (a
        work quoting others holds their couplets), in id order."""
        if poet_ids is None:
            return [r[0] for r in self.db.conn.execute(
                "SELECT id FROM corpus_poems WHERE couplets > 1 AND quoting = 0 ORDER BY id")]
        out: list[int] = []
        for start in range(0, len(poet_ids), 500):
            chunk = list(poet_ids[start:start + 500])
            marks = ",".join("?" * len(chunk))
            out += [r[0] for r in self.db.conn.execute(
                f"SELECT id FROM corpus_poems WHERE couplets > 1 AND quoting = 0 AND poet_id IN ({marks})", chunk)]
        return sorted(out)

    def sample_texts(self, n: int, rng: random.Random) -> list[str]:
        """The texts ("mesra1 mesra2") of about n random couplets (ids drawn with `rng`; a gap
        in the ids draws nothing)."""
        low, high = self.db.conn.execute("SELECT MIN(id), MAX(id) FROM corpus_couplets").fetchone()
        if low is None:
            return []
        ids = sorted({rng.randint(low, high) for _ in range(n)})
        out: list[str] = []
        for start in range(0, len(ids), 500):
            chunk = ids[start:start + 500]
            out += [f"{r[0]} {r[1]}" for r in self.db.conn.execute(
                f"SELECT mesra1, mesra2 FROM corpus_couplets WHERE id IN ({','.join('?' * len(chunk))})", chunk)]
        return out

    def poem_couplets(self, poem_id: int) -> list[Drawn]:
        return [_drawn(r) for r in self.db.conn.execute(f"{_SELECT} WHERE c.poem_id = ? ORDER BY c.idx", (poem_id,))]

    def drawn(self, ids: Iterable[int]) -> dict[int, Drawn]:
        ids = list(ids)
        out: dict[int, Drawn] = {}
        for start in range(0, len(ids), 500):
            chunk = ids[start:start + 500]
            out.update((r["id"], _drawn(r)) for r in self.db.conn.execute(
                f"{_SELECT} WHERE c.id IN ({','.join('?' * len(chunk))})", chunk))
        return out

    def located(self, couplets: Iterable[CorpusCouplet]) -> list[Drawn]:
        """The couplets (as related_couplets gives them: poem path and index) with their ids."""
        out: list[Drawn] = []
        for c in couplets:
            r = self.db.conn.execute(f"{_SELECT} WHERE p.path = ? AND c.idx = ?", (c.poem, c.couplet)).fetchone()
            if r is not None:
                out.append(_drawn(r))
        return out

    def form_mates(self, poem_id: int, metre: str | None, rhyme: str | None, start: int) -> list[Drawn]:
        """Up to FORM_MATES couplets of other poems in the same metre and rhyme, from the poem
        ids after `start` (wrapping round): the outlier may share a poem's form."""
        if not metre or not rhyme:
            return []
        sql = (f"{_SELECT} WHERE c.poem_id IN (SELECT id FROM corpus_poems WHERE metre = ? AND rhyme = ? "
               "AND id != ? AND id {} ? ORDER BY id LIMIT 12) LIMIT ?")
        rows = self.db.conn.execute(sql.format(">="), (metre, rhyme, poem_id, start, FORM_MATES)).fetchall()
        if len(rows) < FORM_MATES:
            rows += self.db.conn.execute(sql.format("<"), (metre, rhyme, poem_id, start, FORM_MATES - len(rows)))
        return [_drawn(r) for r in rows]

    # ------------------------------------------------------------ candidates

    def add(self, rows: Sequence[tuple[Sequence[int], int, str, dict[str, Any]]], proposed_by: str | None) -> list[int]:
        """Write candidates ((four couplet ids in option order, outlier 1..4, embedder, reasons))
        in one transaction; their ids."""
        stamp = now()
        ids: list[int] = []
        with self.db.tx() as conn:
            for couplets, outlier, embedder, reasons in rows:
                ids.append(int(conn.execute(
                    "INSERT INTO candidates (couplet1, couplet2, couplet3, couplet4, outlier, embedder, reasons, "
                    "proposed_by, created_at) VALUES (?,?,?,?,?,?,?,?,?)",
                    (*couplets, outlier, embedder, to_json(reasons), proposed_by, stamp)).lastrowid or 0))
        return ids

    def _candidates(self, where: str, params: tuple[object, ...]) -> list[Candidate]:
        rows = self.db.conn.execute(f"SELECT * FROM candidates {where} ORDER BY id", params).fetchall()
        couplets = self.drawn({r[f"couplet{i}"] for r in rows for i in range(1, 5)})
        return [Candidate(r["id"], tuple(couplets[r[f"couplet{i}"]].couplet for i in range(1, 5)), r["outlier"],
                          r["embedder"], json.loads(r["reasons"]), r["state"], r["proposed_by"], r["created_at"],
                          r["decided_by"], r["decided_at"], r["reason"], r["question_uid"])
                for r in rows if all(r[f"couplet{i}"] in couplets for i in range(1, 5))]

    def candidates(self, state: CandidateState | None = None) -> list[Candidate]:
        """Candidates in id order, of one state or all."""
        return self._candidates("WHERE state = ?", (state,)) if state else self._candidates("", ())

    def get(self, candidate_id: int) -> Candidate | None:
        found = self._candidates("WHERE id = ?", (candidate_id,))
        return found[0] if found else None

    def decide(self, candidate_id: int, state: CandidateState, who: str | None, *, reason: str | None = None,
               question_uid: str | None = None) -> bool:
        """Move a proposed candidate to `state` (one conditional write: of two admins deciding at
        once, one wins); False when it was no longer proposed. ValueError for a reason past its
        cap or holding a control character."""
        if reason is not None:
            check_text("reason", reason)
        with self.db.tx() as conn:
            return conn.execute(
                "UPDATE candidates SET state = ?, decided_by = ?, decided_at = ?, reason = ?, question_uid = ? "
                "WHERE id = ? AND state = 'proposed'",
                (state, who, now(), reason, question_uid, candidate_id)).rowcount == 1

    def reopen(self, candidate_id: int, question_uid: str) -> None:
        """Undo an acceptance whose draft could not be written (back to proposed)."""
        with self.db.tx() as conn:
            conn.execute("UPDATE candidates SET state = 'proposed', decided_by = NULL, decided_at = NULL, "
                         "question_uid = NULL WHERE id = ? AND question_uid = ?", (candidate_id, question_uid))

    def counts(self) -> CandidateCounts:
        by = {r["state"]: r["n"] for r in self.db.conn.execute(
            "SELECT state, COUNT(*) AS n FROM candidates GROUP BY state")}
        reasons = tuple((r["reason"], r["n"]) for r in self.db.conn.execute(
            "SELECT reason, COUNT(*) AS n FROM candidates WHERE state = 'rejected' GROUP BY reason "
            "ORDER BY n DESC, reason"))
        return CandidateCounts(by.get("proposed", 0), by.get("accepted", 0), by.get("rejected", 0), reasons)
