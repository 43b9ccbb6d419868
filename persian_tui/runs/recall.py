"""Recall runs: does a model remember the couplets of the questions? (GhazalBench's probes.)

For every couplet of the run's questions, one probe: the cue (poet and first hemistich, with the
prose, the two rarest words or the shuffled words of the second, see models/recall.py), then the
model writes the second hemistich (`complete`, scored by models.recall.score_recall) or picks it
among four (`choose`, read by the one answer parser). A couplet linked to the corpus is asked as
the corpus has it, with its poet; an unlinked one from its own text, the poet said to be unknown.
Each probe is committed as it comes back, one row per (run, question, position): a resume asks
only those without a row (`retry_errors`: the API errors again). Same session as an LLM run
(runs/llm.py LLMSession): client, cache, concurrency, lease, breaker, end."""

from __future__ import annotations

import hashlib
import re
import threading
from dataclasses import dataclass
from pathlib import Path

from ..models import Question, Run
from ..models.recall import Probe, score_recall
from ..store import Store
from .progress import Callback, RunError, RunProgress, select_questions
from .session import LLMSession
from .spec import RecallRunSpec


@dataclass(frozen=True)
class Couplet:
    """One couplet to probe: its question and position, its text as asked, its corpus place."""

    uid: str
    position: int
    first: str
    second: str
    poet: str | None = None  # nickname; None: not linked (unknown)
    poet_slug: str | None = None
    poem: str | None = None
    couplet: int | None = None
    metre: str | None = None
    rhyme: str | None = None


def probe_couplets(store: Store, questions: list[Question]) -> tuple[list[Couplet], list[str]]:
    """The couplets of the questions to probe (the corpus's text and poet when the option is
    linked as one whole couplet), and one line per option that cannot be probed (an empty
    hemistich)."""
    links = store.links.links([q.uid for q in questions])
    out: list[Couplet] = []
    skipped: list[str] = []
    for q in questions:
        for o in sorted(q.options, key=lambda o: o.position):
            link = links.get(q.uid, {}).get(o.position)
            c = link.couplet if link is not None and link.whole else None
            if c is not None and c.mesra1.strip() and c.mesra2.strip():
                out.append(Couplet(q.uid, o.position, c.mesra1, c.mesra2, c.poet or c.poet_slug, c.poet_slug,
                                   c.poem, c.couplet, c.metre, c.rhyme))
            elif o.mesra1.strip() and o.mesra2.strip():
                out.append(Couplet(q.uid, o.position, o.mesra1, o.mesra2))
            else:
                which = "first" if not o.mesra1.strip() else "second"
                skipped.append(f"{q.uid} option {o.position}: empty {which} hemistich, not probed")
    return out, skipped


def _rank(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def rarest_words(store: Store, text: str, n: int = 2) -> list[str]:
    """The n words of `text` the corpus has in fewest couplets (absent words first), shown as
    written, in their order in the text; fixed per couplet (ties: the later word)."""
    from ..text import corpus_key

    words = [w for w in text.split() if corpus_key(w)]
    df = store.corpus.vocab({corpus_key(w) for w in words})
    ranked = sorted(range(len(words)), key=lambda i: (df.get(corpus_key(words[i]), 0), -i))
    return [words[i] for i in sorted(ranked[:n])]


def shuffled_words(text: str, key: str) -> str:
    """The words of `text` in an order fixed by `key` (never the text's own order when it has
    two different words)."""
    words = text.split()
    order = sorted(range(len(words)), key=lambda i: _rank(f"{key}\x1f{i}"))
    out = [words[i] for i in order]
    if out == words and len(set(words)) > 1:
        out = out[1:] + out[:1]
    return " ".join(out)


class Pool:
    """Second hemistichs to draw distractors from, with their comparison forms made once."""

    def __init__(self, texts: list[str]):
        from ..text import recall_form

        self.texts = texts
        self.forms = [recall_form(t) for t in texts]

    def nearest(self, gold: str) -> list[tuple[str, str]]:
        """(text, form) of the pool, the nearest to `gold` (a comparison form) first (rapidfuzz's
        ratio; ties in pool order)."""
        from rapidfuzz import fuzz, process

        hits = process.extract(gold, self.forms, scorer=fuzz.ratio, limit=None)
        return [(self.texts[i], self.forms[i]) for _, _, i in sorted(hits, key=lambda h: (-h[1], h[2]))]


def distractors(store: Store, c: Couplet, others: Pool, n: int = 3) -> list[str]:
    """n second hemistichs unlike the true one: the poet's couplets in the same metre and rhyme
    where the corpus has them (nearest in text first), else the nearest of the poet's, then of
    the corpus, then of the other couplets probed (`others`)."""
    from ..text import recall_form

    gold = recall_form(c.second)
    chosen: list[str] = []
    seen = {gold}

    def take(pool: Pool) -> None:
        for text, form in pool.nearest(gold):
            if len(chosen) == n:
                return
            if form and form not in seen:
                chosen.append(text)
                seen.add(form)

    if c.poet_slug and c.poem is not None and c.couplet is not None:
        for tier in range(3):
            if len(chosen) < n:
                take(Pool(store.probes.same_form_hemistichs(c.poet_slug, c.metre, c.rhyme, tier=tier,
                                                            exclude=(c.poem, c.couplet))))
    if len(chosen) < n and store.corpus.has_corpus():
        take(Pool([x.mesra2 for x in store.corpus.related_couplets(c.second, limit=100) if x.mesra2]))
    if len(chosen) < n:
        take(others)
    return chosen


def probe_seed_key(c: Couplet, seed: int) -> str:
    return f"{c.uid}\x1f{c.position}\x1f{seed}"


def create_recall_run(store: Store, spec: RecallRunSpec) -> tuple[Run, list[str]]:
    """Record a new recall run (its questions fixed now): the run and one line per couplet left
    out (RunError: nothing to probe, or a paraphrase run that is not one or lacks these questions)."""
    from .prompts import RECALL_HASH, RECALL_VERSION

    questions = select_questions(store, spec.questions, spec.limit, spec.release)
    if not questions:
        raise RunError(f"no questions to probe (set {spec.questions!r})")
    if spec.paraphrase_run is not None:
        check_paraphrases(store, spec.paraphrase_run, questions)
    couplets, skipped = probe_couplets(store, questions)
    if not couplets:
        raise RunError("no couplet to probe: " + (skipped[0] if skipped else "the questions have no options"))
    params = {**spec.stored(), "uids": [q.uid for q in questions], "skipped": skipped}
    run = store.runs.create_run("recall", spec.model, params, total=len(couplets),
                                prompt_template=f"{RECALL_VERSION}/{spec.cue}/{spec.format}", prompt_hash=RECALL_HASH)
    assert run is not None  # (None only for once_per_file)
    return run, skipped


def check_paraphrases(store: Store, run_id: int, questions: list[Question]) -> None:
    run = store.runs.get_run(run_id)
    if run is None or run.kind != "paraphrase":
        other = f"; run {run_id} is of kind {run.kind}" if run is not None else ""
        raise RunError(f"--paraphrases {run_id}: no paraphrase run {run_id}{other} (see persian-tui runs)")
    prose = store.runs.paraphrases(run_id)
    missing = [q.uid for q in questions if len(prose.get(q.uid, ())) < len(q.options)]
    if missing:
        raise RunError(f"--paraphrases {run_id}: no prose for {len(missing)} of the {len(questions)} questions "
                       f"(e.g. {missing[0]}): it was run on other questions; paraphrase these first")


_ANSWER = re.compile(r"<answer>(.*?)(?:</answer>|$)", re.S)


def written_hemistich(text: str | None) -> tuple[str, str | None]:
    """(the hemistich a reply writes, its reasoning): inside <answer> when tagged, else the
    reply without reasoning blocks, quotes and guillemets."""
    from .parse import split_reasoning

    body, blocks = split_reasoning(text or "")
    m = _ANSWER.search(body)
    out = (m.group(1) if m else body).strip().strip("«»\"'“”").strip()
    return out, "\n\n".join(blocks) or None


async def execute_recall_run(db_path: str | Path, run_id: int, *, retry_errors: bool = False,
                             on_progress: Callback | None = None, cancel: threading.Event | None = None,
                             overrides: dict | None = None) -> RunProgress:
    """Ask every probe of the run that has no row yet (with retry_errors, the failed ones again);
    one committed row per probe. As execute_llm_run: one process at a time (the lease)."""
    from .llm_client import LLMError
    from .parse import parse_answer
    from .prompts import recall_cue, render_recall, shuffled_order

    store = Store(db_path)
    try:
        session = await LLMSession.open(store, run_id, ("recall",), "recall", overrides, cancel)
        run, uids, cancel = session.run, session.uids, session.cancel
        spec = session.spec
        assert isinstance(spec, RecallRunSpec)  # stored_spec: a recall run's spec
        by_uid = store.questions.questions_for_uids(uids)
        couplets, _ = probe_couplets(store, [by_uid[u] for u in uids if u in by_uid])
        done = store.probes.probed(run_id)
        if retry_errors:
            done -= store.probes.probed(run_id, statuses=("api_error",))
        todo = session.limited([c for c in couplets if (c.uid, c.position) not in done])
        progress = RunProgress(run.id, len(couplets))
        skip = {(c.uid, c.position) for c in todo}
        for p in store.probes.probes(run_id):
            if (p.uid, p.position) not in skip:
                progress.count(_as_prediction(p), 1)
        progress.new = progress.answered_new = 0
        prose = store.runs.paraphrases(spec.paraphrase_run) if spec.paraphrase_run else {}
        others = Pool([c.second for c in couplets]) if spec.format == "choose" else Pool([])
        await session.start(lambda rows: store.probes.save_probes(run_id, rows))
        breaker = session.breaker

        def cue_of(c: Couplet) -> tuple[str, list[str] | None, int | None]:
            extra = None
            if spec.cue == "prose":
                texts = prose.get(c.uid, [])
                extra = texts[c.position - 1] if len(texts) >= c.position else ""
            elif spec.cue == "words":
                extra = "، ".join(f"«{w}»" for w in rarest_words(store, c.second))
            elif spec.cue == "shuffled":
                extra = shuffled_words(c.second, probe_seed_key(c, spec.probe_seed))
            text = recall_cue(spec.cue, c.poet, c.first, extra)
            if spec.format != "choose":
                return text, None, None
            four = [c.second, *distractors(store, c, others)]
            order = shuffled_order(probe_seed_key(c, spec.probe_seed), 0, len(four))
            return text, [four[i - 1] for i in order], order.index(1) + 1

        async def probe(c: Couplet) -> None:
            reply = None
            async with session.slot():
                if cancel.is_set():
                    return
                cue, choices, answer = cue_of(c)
                row = Probe(c.uid, c.position, gold=c.second, cue=cue, status="api_error", poet=c.poet,
                            poem=c.poem, couplet=c.couplet, choices=choices, answer=answer)
                try:
                    reply = await session.reply(render_recall(spec.cue, cue, choices))
                    breaker.record()
                except LLMError as e:
                    row.error = str(e)
                    breaker.record(e)
            if reply is not None:
                row.reply = reply.text
                row.tokens_in, row.tokens_out = reply.tokens_in, reply.tokens_out
                row.latency, row.cost, row.error = reply.latency, reply.cost, reply.warning
                if choices is not None:
                    parsed = parse_answer(reply.text, reasoning=reply.reasoning, n_options=len(choices))
                    row.status, row.predicted = parsed.status, parsed.answer
                    if parsed.status == "ok":
                        row.score = "complete" if parsed.answer == answer else "none"
                else:
                    written, _ = written_hemistich(reply.text)
                    if written:
                        row.status = "ok"
                        row.score, row.cer = score_recall(c.second, written)
                    else:
                        row.status = "empty"
            await session.writer.save(row)
            progress.count(_as_prediction(row), 1)
            if row.status != "ok":
                progress.message = f"{c.uid} option {c.position}: {row.error or row.status}"[:200]
            if on_progress:
                on_progress(progress)

        await session.drive(probe, todo)
        finished = store.probes.probed(run_id) >= {(c.uid, c.position) for c in couplets}
        return await session.finish(progress, finished, on_progress)
    finally:
        store.close()


def _as_prediction(p: Probe):
    """A probe counted as a run's progress counts answers: recalled as "correct"."""
    from ..models import Prediction

    return Prediction(p.uid, 1 if p.recalled else None, p.status)
