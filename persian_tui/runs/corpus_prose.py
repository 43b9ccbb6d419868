"""Paraphrase runs of corpus couplets (`run paraphrase --corpus`): an LLM writes the prose of
couplets drawn from poems none of whose couplets is in the bank, so that `corpus propose
--paraphrases RUN` can embed prose rather than verse.

The couplets are fixed when the run is made (`limit` of them, CORPUS_LIMIT by default: a seeded
draw of at most PER_POEM couplets from each poem of the chosen poets, in a seeded poem order);
each reply is committed as it comes back, one row per (run, couplet) with the sha256 of the
verse asked, so a resume asks only the couplets without a row (`retry_errors`: the API errors
again). A reply is prose when it is not empty, at most MAX_PROSE characters and mostly in the
Persian script; anything else is kept as given with its status (`empty`, `invalid`) and never
embedded. Same session as an LLM run (runs/llm.py LLMSession): client, cache, concurrency,
lease, breaker, end."""

from __future__ import annotations

import random
import threading
from collections.abc import Sequence
from pathlib import Path

from ..models import Prediction, Run
from ..models.candidates import MIN_WORDS, CoupletProse, verse_sha
from ..models.vocabulary import ParseStatus
from ..store import Store
from .progress import Callback, RunError, RunProgress
from .session import LLMSession
from .spec import ParaphraseRunSpec

CORPUS_LIMIT = 500  # couplets a corpus paraphrase run asks when no --limit is given
MAX_COUPLETS = 100_000  # at most, per run
PER_POEM = 2  # couplets drawn from one poem at most (candidates need four poems)
MAX_PROSE = 2_000  # characters: a longer reply is no paraphrase of one couplet
MIN_PERSIAN = 0.5  # share of a reply's letters in the Persian script


class CorpusError(Exception):
    """No corpus, or a poet it does not have (one line)."""


def corpus_poet_ids(store: Store, poets: Sequence[str]) -> list[int] | None:
    """The corpus poet ids `poets` name (None: every poet); CorpusError for a database without
    a corpus or a poet the corpus does not have."""
    if not store.corpus.has_corpus():
        raise CorpusError(f"{store.path} has no corpus: import one first with `persian-tui corpus import FOLDER`")
    if not poets:
        return None
    ids: list[int] = []
    for name in poets:
        found = store.corpus.poet_ids(name)
        if not found:
            raise CorpusError(f"poet {name!r} is not in the corpus (`persian-tui corpus stats` lists the poets)")
        ids += found
    return sorted(set(ids))


def create_corpus_paraphrase_run(store: Store, spec: ParaphraseRunSpec) -> Run:
    """Record a new corpus paraphrase run (its couplets fixed now). RunError: no corpus, an
    unknown poet, a limit too large or nothing to draw."""
    from .prompts import PARAPHRASE_HASH, PARAPHRASE_TEMPLATE

    limit = spec.limit or CORPUS_LIMIT
    if limit > MAX_COUPLETS:
        raise RunError(f"a corpus paraphrase run asks at most {MAX_COUPLETS} couplets (limit {limit})")
    try:
        poet_ids = corpus_poet_ids(store, spec.poets or ())
    except CorpusError as e:
        raise RunError(str(e)) from None
    banned = store.candidates.bank_poems()
    bank_keys = store.candidates.bank_keys()
    poems = [p for p in store.candidates.poems(poet_ids) if p not in banned]
    rng = random.Random(spec.corpus_seed)
    rng.shuffle(poems)
    chosen: list[int] = []
    for poem in poems:
        fresh = [d.id for d in store.candidates.poem_couplets(poem)
                 if d.key not in bank_keys and len(d.key) == 2 and len(d.norm.split()) >= MIN_WORDS]
        chosen += sorted(rng.sample(fresh, min(PER_POEM, len(fresh), limit - len(chosen))))
        if len(chosen) >= limit:
            break
    if not chosen:
        raise RunError("no corpus couplet to paraphrase: every poem of " + ("these poets" if spec.poets else
                       "the corpus") + " has a couplet in the bank, or none has two whole hemistichs")
    params = {**spec.stored(), "strategy": "paraphrase", "corpus": True, "uids": [], "couplets": chosen}
    run = store.runs.create_run("paraphrase", spec.model, params, total=len(chosen),
                                prompt_template=PARAPHRASE_TEMPLATE, prompt_hash=PARAPHRASE_HASH)
    assert run is not None  # (None only for once_per_file)
    return run


def prose_of(reply: str | None) -> tuple[ParseStatus, str | None, str | None]:
    """(status, prose, error) of a paraphrase reply: its text without reasoning blocks when
    that is prose, else `empty` or `invalid` with why."""
    from ..text import persian_script_share
    from .parse import split_reasoning

    text = split_reasoning(reply or "")[0].strip()
    if not text:
        return "empty", None, "no prose"
    if len(text) > MAX_PROSE:
        return "invalid", None, f"a reply of {len(text):,} characters is no paraphrase (at most {MAX_PROSE:,})"
    if persian_script_share(text) < MIN_PERSIAN:
        return "invalid", None, "the reply is not in the Persian script"
    return "ok", text, None


async def execute_corpus_paraphrase_run(db_path: str | Path, run_id: int, *, retry_errors: bool = False,
                                        on_progress: Callback | None = None,
                                        cancel: threading.Event | None = None,
                                        overrides: dict | None = None) -> RunProgress:
    """Ask every couplet of the run that has no row yet (with retry_errors, the failed ones
    again); one committed row per couplet. One process at a time (the lease)."""
    from .llm_client import LLMError
    from .prompts import render_paraphrase

    store = Store(db_path)
    try:
        session = await LLMSession.open(store, run_id, ("paraphrase",), "paraphrase", overrides, cancel)
        run, cancel = session.run, session.cancel
        ids: list[int] = run.params.get("couplets") or []
        drawn = store.candidates.drawn(ids)
        gone = [i for i in ids if i not in drawn]
        done = store.corpus_prose.done(run_id)
        if retry_errors:
            done -= store.corpus_prose.done(run_id, statuses=("api_error",))
        todo = session.limited([drawn[i] for i in ids if i in drawn and i not in done])
        progress = RunProgress(run.id, len(ids) - len(gone))
        skip = {d.id for d in todo}
        for row in store.corpus_prose.rows(run_id):
            if row.couplet_id not in skip:
                progress.count(Prediction(str(row.couplet_id), None, row.status), None)
        progress.new = progress.answered_new = 0
        if gone:
            progress.message = f"{len(gone)} couplet(s) of the run are no longer in the corpus: skipped"
        await session.start(lambda rows: store.corpus_prose.save(run_id, rows))
        breaker = session.breaker

        async def paraphrase(d) -> None:
            reply = None
            async with session.slot():
                if cancel.is_set():
                    return
                c = d.couplet
                row = CoupletProse(d.id, verse_sha(c.mesra1, c.mesra2))
                try:
                    reply = await session.reply(render_paraphrase(c.mesra1, c.mesra2))
                    breaker.record()
                except LLMError as e:
                    row.error = str(e)
                    breaker.record(e)
            if reply is not None:
                row.reply = reply.text
                row.status, row.prose, row.error = prose_of(reply.text)
                row.tokens_in, row.tokens_out, row.latency = reply.tokens_in, reply.tokens_out, reply.latency
                row.cost = reply.cost if reply.cost is not None else \
                    session.spec.priced(reply.tokens_in, reply.tokens_out)
            await session.writer.save(row)
            progress.count(Prediction(str(d.id), None, row.status), None)
            if row.status != "ok":
                progress.message = f"{c.poem} couplet {c.couplet + 1}: {row.error or row.status}"[:200]
            if on_progress:
                on_progress(progress)

        await session.drive(paraphrase, todo)
        finished = store.corpus_prose.done(run_id) >= {i for i in ids if i in drawn}
        return await session.finish(progress, finished, on_progress)
    finally:
        store.close()
