"""Fresh questions from the corpus (`corpus propose`): candidate outlier questions drawn from poems
none of whose couplets is in the bank.

For each seed couplet (a random couplet of a random poem, seeded): its pool is the couplets that
share its rarer words (the similar-couplets search, store.corpus.related_couplets) and couplets
of other poems in its metre and rhyme (store.candidates.form_mates). The meaning embedder
(TF-IDF fitted on the pool, or a model) ranks them: the two closest in meaning to the seed, each
from another poem, make the three close couplets when all three pairs are close (COHESION). The
outlier shares words or form with them but is far in meaning: its mean similarity to the three at
least MARGIN under theirs to each other. So that lexical overlap does not give it away, the
lexical baseline (the project's TF-IDF embedder fitted on the four, centroid scorer) must not
pick it (adversarial filtering, Zellers et al. 2018). Four couplets, four poems; their order
seeded. The reasons (every similarity) are kept with the candidate.

TF-IDF as the meaning embedder works offline but is weaker (its "meaning" is shared words);
a sentence-transformers model or an OpenAI-compatible endpoint reads meaning better."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ..access import Access
from ..models.candidates import MIN_WORDS, Drawn
from ..store import Store
from .prose import Prose

if TYPE_CHECKING:
    from ..runs.tfidf_rows import Counts

# each embedder has its own scale of cosines (a model's are all high): the thresholds are the
# seed pool's own, with a floor for TF-IDF
COHESION = {"tfidf": 0.12, "model": -1.0}  # least similarity of each pair of the three close couplets (floor) ...
COHESION_QUANTILE = 0.5  # ... and at least this quantile of the seed's similarities to its pool
MARGIN = {"tfidf": 0.05, "model": 0.0}  # the outlier's mean similarity to them is lower by this (floor) ...
MARGIN_SD = 0.5  # ... and by this many standard deviations of the seed's similarities to its pool
NEAREST = 12  # couplets closest to the seed among which the two others are chosen
TRIES_PER = 40  # seeds tried per candidate asked for, at most
MAX_COUNT = 10_000
REFERENCE = 2_000  # random corpus couplets the lexical baseline's word weights come from
OUTLIERS_TRIED = 40  # outliers tried against the lexical baseline per seed, most shared words first

Progress = Callable[[int, int, int], None]  # (candidates made, asked for, seeds tried)


class ProposeError(Exception):
    """Bad input (one line), nothing written."""


@dataclass
class Proposal:
    """What one run of the generator made."""

    ids: list[int] = field(default_factory=list)
    asked: int = 0
    tried: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0  # this process's CPU time (the machine may be shared)
    embedder: str = "tfidf"
    prose: Prose | None = None  # the prose embedded (--paraphrases), with its share of the pools


@dataclass(frozen=True)
class _Made:
    couplets: tuple[Drawn, ...]  # in option order
    outlier: int  # 1..4
    reasons: dict[str, Any]


def check_request(store: Store, count: int, poets: Sequence[str]) -> list[int] | None:
    """The poet ids the request names (None: every poet); ProposeError for a count below 1 or
    too large, a database without a corpus, or a poet the corpus does not have."""
    if count < 1:
        raise ProposeError(f"--count must be at least 1 (got {count})")
    if count > MAX_COUNT:
        raise ProposeError(f"--count is at most {MAX_COUNT} per run (got {count})")
    from ..runs.corpus_prose import CorpusError, corpus_poet_ids

    try:
        return corpus_poet_ids(store, poets)
    except CorpusError as e:
        raise ProposeError(str(e)) from None


def _unit(vectors: npt.ArrayLike) -> npt.NDArray[np.float32]:
    v = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(v, axis=1)
    norms[norms == 0] = 1.0
    return v / norms[:, None]


def _similarities(texts: list[str], embedder, counts: Counts | None = None) -> npt.NDArray[np.float32]:
    """Cosine similarities of every pair of texts, by the meaning embedder (None: TF-IDF fitted
    on these texts, as the similar-couplets search ranks; from their `counts` when given, read
    once for the lexical baseline too: the same values)."""
    if embedder is None:
        from ..runs.embedders import TfidfEmbedder
        from ..runs.tfidf_rows import Fit

        fit = Fit(counts) if counts is not None else None
        if fit is not None and not fit.cut and counts is not None:
            m = fit.sparse_rows(counts, range(len(texts)), stored_order=True)
        else:
            m = TfidfEmbedder.fitted_sparse(texts)
        norms = np.sqrt(np.asarray(m.multiply(m).sum(axis=1), dtype=np.float32).ravel())
        norms[norms == 0] = 1.0
        return np.asarray((m @ m.T).toarray(), dtype=np.float32) / np.outer(norms, norms)
    u = _unit(embedder.embed(texts))
    return u @ u.T


class LexicalBaseline:
    """The lexical baseline a candidate must not be easy for: the project's TF-IDF (the values of
    the embedder `run embed tfidf` uses) fitted on a seed's texts and REFERENCE random couplets of
    the corpus, so its word weights are near the corpus's, as a bank-wide fit's are (a fit on
    the four alone is not); fitted when first asked. The reference's counts may be given read
    once (runs/tfidf_rows.py: the same values as a fit on all the texts, without reading the
    reference again for every seed)."""

    def __init__(self, reference: list[str] | Counts, texts: list[str], counts: Counts | None = None):
        self.reference, self.texts, self.counts = reference, texts, counts  # counts: the texts' own
        self._matrix: Any = None  # scipy's CSR matrix

    def pick(self, rows: Sequence[int]) -> tuple[int, list[float]]:
        """Its answer (1..4) and scores (centroid scorer, lowest is the outlier) on four of the
        texts (their indices, in option order)."""
        from ..runs.outlier import predict
        from ..runs.tfidf_rows import Counts, Fit

        if self._matrix is None:  # every text's row, once per seed (each pick reads four)
            reference = self.reference if isinstance(self.reference, Counts) else Counts(self.reference)
            counts = self.counts or Counts(self.texts)
            self._matrix = Fit(counts, reference).sparse_rows(counts, range(len(self.texts)))
        vectors = self._matrix[list(rows)].toarray()
        picked, scores = predict(vectors[None, :, :], "centroid")
        return int(picked[0]), [round(float(x), 4) for x in scores[0]]


def _overlap(a: str, b: str) -> float:
    """Shared words over the words of both (Jaccard), on normalized text."""
    wa, wb = set(a.split()), set(b.split())
    return len(wa & wb) / len(wa | wb) if wa | wb else 0.0


def _make(seed: Drawn, pool: list[Drawn], sims: npt.NDArray[np.float32], kind: str, rng: random.Random,
          form_ids: set[int], lexical: LexicalBaseline) -> _Made | None:
    """The candidate a seed gives (sims: the seed and its pool, in that order), or None."""
    order = np.argsort(-sims[0, 1:], kind="stable")[:NEAREST]
    near = [int(i) + 1 for i in order]
    everyone = [seed, *pool]
    best: tuple[float, int, int] | None = None
    for x, i in enumerate(near):
        for j in near[x + 1:]:
            if len({seed.poem_id, everyone[i].poem_id, everyone[j].poem_id}) < 3:
                continue
            least = float(min(sims[0, i], sims[0, j], sims[i, j]))
            if best is None or least > best[0]:
                best = (least, i, j)
    pool_sims = sims[0, 1:]
    if best is None or best[0] < max(COHESION[kind], float(np.quantile(pool_sims, COHESION_QUANTILE))):
        return None
    margin = max(MARGIN[kind], MARGIN_SD * float(np.std(pool_sims)))
    trio = [0, best[1], best[2]]
    pair_sims = [float(sims[a, b]) for a, b in ((0, best[1]), (0, best[2]), (best[1], best[2]))]
    cohesion = float(np.mean(pair_sims))
    poems = {everyone[t].poem_id for t in trio}
    texts = [everyone[t].norm for t in trio]
    trio_overlap = float(np.mean([_overlap(texts[a], texts[b]) for a, b in ((0, 1), (0, 2), (1, 2))]))
    options: list[tuple[float, int]] = []
    for k in range(1, len(everyone)):
        if k in trio or everyone[k].poem_id in poems:
            continue
        meaning = float(np.mean(sims[k, trio]))
        if meaning <= cohesion - margin:
            options.append((cohesion - meaning, k))
    # most lexical overlap with the three first (what a lexical reader sees), then the meaning gap
    options.sort(key=lambda o: (-float(np.mean([_overlap(everyone[o[1]].norm, t) for t in texts])), -o[0], o[1]))
    for gap, k in options[:OUTLIERS_TRIED]:
        out = everyone[k]
        rows = [*trio, k]
        rng.shuffle(rows)
        four = [everyone[i] for i in rows]
        key = rows.index(k) + 1
        picked, scores = lexical.pick(rows)
        if picked == key:
            continue  # lexical overlap would give it away
        overlap = float(np.mean([_overlap(out.norm, t) for t in texts]))
        form = {"metre": out.couplet.metre == seed.couplet.metre and bool(seed.couplet.metre),
                "rhyme": out.couplet.rhyme == seed.couplet.rhyme and bool(seed.couplet.rhyme),
                "form_mate": out.id in form_ids}
        reasons = {
            "seed": four.index(seed) + 1,
            "close": {"pairs": [round(s, 4) for s in pair_sims], "cohesion": round(cohesion, 4)},
            "outlier": {"to_close": [round(float(sims[k, t]), 4) for t in trio], "gap": round(gap, 4),
                        "word_overlap": round(overlap, 4), "close_word_overlap": round(trio_overlap, 4), **form},
            "baseline": {"embedder": "tfidf", "fitted_on": f"{REFERENCE} corpus couplets", "scorer": "centroid",
                         "picks": picked, "scores": scores},
        }
        return _Made(tuple(four), key, reasons)
    return None


PROSE_POOL = 200  # couplets with prose a seed's pool is filled up to (--paraphrases)


def _prose_pool(prose: Prose, pool: list[Drawn], with_prose: list[Drawn], seen: set, seed: Drawn, fresh,
                rng: random.Random) -> list[Drawn]:
    """A seed's pool when prose is embedded: its word-and-form pool's couplets with prose (the
    share is counted), filled up to PROSE_POOL with random couplets with prose of other poems
    (prose may be close in meaning without a shared word)."""
    kept = [d for d in pool if d.id in prose.texts]
    prose.seen[0] += len(kept)
    prose.seen[1] += len(pool)
    more = [d for d in with_prose if d.key not in seen and d.poem_id != seed.poem_id and fresh(d)]
    for d in rng.sample(more, min(len(more), max(0, PROSE_POOL - len(kept)))):
        seen.add(d.key)
        kept.append(d)
    return kept


def propose(store: Store, who: Access, count: int, *, embedder_spec: str = "tfidf", poets: Sequence[str] = (),
            seed: int = 0, on_progress: Progress | None = None,
            cancelled: Callable[[], bool] | None = None, tries: int | None = None,
            paraphrases: int | None = None) -> Proposal:
    """Draw `count` candidates (fewer when the corpus runs out of seeds: `tries` seeds, by
    default TRIES_PER per candidate, at most) and write them, a batch per transaction. With
    `paraphrases` (a corpus paraphrase run), the embedder reads the couplets' prose, and only
    couplets with prose are drawn (corpus/prose.py). Admins only (AccessDenied); ProposeError:
    bad input, nothing written."""
    from .prose import ProseError, load_prose
    from .similar import similar_embedder

    who.require("propose")
    proposed_by = who.user
    poet_ids = check_request(store, count, poets)
    try:
        prose = load_prose(store, paraphrases) if paraphrases is not None else None
    except ProseError as e:
        raise ProposeError(str(e)) from None
    try:
        embedder = similar_embedder(embedder_spec)
    except Exception as e:  # EmbedderError and the model loader's own: one line
        raise ProposeError(f"embedder {embedder_spec}: {e}") from None
    kind = "tfidf" if embedder is None else "model"
    name = "tfidf" if embedder is None else str(getattr(embedder, "model_id", embedder_spec))
    banned = store.candidates.bank_poems()
    bank_keys = store.candidates.bank_keys()
    used = store.candidates.used_couplets()
    poems = [p for p in store.candidates.poems(poet_ids) if p not in banned]
    if not poems:
        raise ProposeError("no poem to draw from: every poem of " + ("these poets" if poets else "the corpus")
                           + " has a couplet in the bank")
    allowed = set(poems)  # the drawable poems (of the chosen poets)
    rng = random.Random(seed)
    from ..runs.tfidf_rows import Counts

    reference = Counts(store.candidates.sample_texts(REFERENCE, rng))  # read once for every seed
    if prose is not None:
        name += f" on prose of run {prose.run_id}"
    result = Proposal(asked=count, embedder=name, prose=prose)
    with_prose = sorted((d for d in prose.couplets.values() if d.poem_id in allowed), key=lambda d: d.id) \
        if prose is not None else []
    started, cpu = time.monotonic(), time.process_time()
    batch: list[tuple[Sequence[int], int, str, dict[str, Any]]] = []

    def fresh(d: Drawn) -> bool:
        return (d.poem_id in allowed and d.id not in used and d.key not in bank_keys
                and len(d.norm.split()) >= MIN_WORDS and len(d.key) == 2)

    tries = TRIES_PER * count if tries is None else tries
    while len(result.ids) + len(batch) < count and result.tried < tries:
        if cancelled is not None and cancelled():
            break
        result.tried += 1
        if prose is not None:  # a couplet with prose
            couplets = [rng.choice(with_prose)] if with_prose else []
        else:
            couplets = [d for d in store.candidates.poem_couplets(rng.choice(poems)) if fresh(d)]
        if not couplets or not fresh(couplets[0]):
            continue
        seed_couplet = rng.choice(couplets)
        c = seed_couplet.couplet
        related = store.corpus.related_couplets(f"{c.mesra1} {c.mesra2}", exclude=seed_couplet.key)
        form = store.candidates.form_mates(seed_couplet.poem_id, c.metre, c.rhyme, rng.choice(poems))
        seen = {seed_couplet.key}  # one copy of a couplet quoted elsewhere
        pool: list[Drawn] = []
        for d in [*store.candidates.located(related), *form]:
            if d.key not in seen and d.poem_id != seed_couplet.poem_id and fresh(d):
                seen.add(d.key)
                pool.append(d)
        if prose is not None:
            pool = _prose_pool(prose, pool, with_prose, seen, seed_couplet, fresh, rng)
        if len(pool) < 3:
            continue
        texts = [f"{d.couplet.mesra1} {d.couplet.mesra2}" for d in (seed_couplet, *pool)]
        embedded = [prose.texts[d.id] for d in (seed_couplet, *pool)] if prose is not None else texts
        counts = Counts(texts)  # read once: the TF-IDF embedder's and the lexical baseline's
        try:
            sims = _similarities(embedded, embedder, counts if embedded is texts else None)
        except Exception as e:  # an endpoint or model failing mid-way: what was made is kept
            if batch:
                result.ids += store.candidates.add(batch, proposed_by)
            raise ProposeError(f"embedder {embedder_spec}: {e} ({len(result.ids)} candidate(s) written)") from None
        lexical = LexicalBaseline(reference, texts, counts)
        made = _make(seed_couplet, pool, sims, kind, rng, {d.id for d in form}, lexical)
        if made is None:
            continue
        made.reasons["embedded"] = {"text": "verse"} if prose is None else \
            {"text": "prose", "paraphrase_run": prose.run_id, "prose": [prose.texts[d.id] for d in made.couplets]}
        used.update(d.id for d in made.couplets)
        batch.append(([d.id for d in made.couplets], made.outlier, name, made.reasons))
        if len(batch) >= 10:
            result.ids += store.candidates.add(batch, proposed_by)
            batch = []
        if on_progress is not None:
            on_progress(len(result.ids) + len(batch), count, result.tried)
    if batch:
        result.ids += store.candidates.add(batch, proposed_by)
    result.seconds, result.cpu_seconds = time.monotonic() - started, time.process_time() - cpu
    return result

