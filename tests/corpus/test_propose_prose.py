"""Prose of corpus couplets (runs/corpus_prose.py, `run paraphrase --corpus`) and `corpus propose
--paraphrases RUN` (corpus/prose.py): the real openai client against the local server over HTTP,
real SQLite, the generated themed corpus. The server's prose puts each couplet in a theme other
than its verse's, so candidates drawn from prose group what the verse does not."""

from __future__ import annotations

import asyncio
import random
import sqlite3

import pytest
from factories import THEMED_POETS, THEMES, copy_mini, write_themed_poems
from llm_server import LLMServer, Reply, chat

from persian_tui.access import solo
from persian_tui.cli import main
from persian_tui.corpus.ganjoor import import_corpus
from persian_tui.corpus.propose import ProposeError, propose
from persian_tui.models.candidates import verse_sha
from persian_tui.runs import RunError, create_llm_run, execute_llm_run
from persian_tui.runs.spec import ParaphraseRunSpec
from persian_tui.store import Store

ADMIN = solo("boss")
THEME_NAMES = list(THEMES)


@pytest.fixture
def themed(store, tmp_path):
    root = copy_mini(tmp_path)
    write_themed_poems(root)
    import_corpus(store, root)
    return store


def prose_themes(store) -> dict[str, str]:
    """Verse ("mesra1\\nmesra2") -> the theme its prose is in: the verse's theme moved by the
    poet's number (so a poet's four poems land in four prose themes, and couplets of one verse
    theme by poets 1 to 3 apart in different ones)."""
    out = {}
    for n, slug in enumerate(THEMED_POETS):
        for k in range(len(THEMES)):
            poem = f"/{slug}/ghazal/sh{k + 1}"
            for i in range(4):
                c = store.corpus.couplet_at(poem, i)
                out[f"{c.mesra1}\n{c.mesra2}"] = THEME_NAMES[(k + n) % len(THEMES)]
    return out


def prose_script(themes: dict[str, str], bad: dict[str, str] | None = None):
    """A paraphrase endpoint: prose of six words of the couplet's prose theme (with a ZWNJ kept),
    seeded by the verse; `bad` gives other replies for some verses."""
    def script(body, n):
        verse = body["messages"][-1]["content"]
        if bad and verse in bad:
            return chat(bad[verse])
        theme = themes.get(verse)
        if theme is None:
            return chat("نمی‌دانم")
        words = random.Random(verse).sample(THEMES[theme].split(), 6)
        return chat("این بیت می‌گوید " + " ".join(words))
    return script


def paraphrase(store, script, **kw) -> tuple[int, object, LLMServer]:
    with LLMServer(script) as server:
        spec = ParaphraseRunSpec(base_url=server.url, model="poet", max_retries=0, corpus=True, **kw)
        run = create_llm_run(store, spec)
        progress = asyncio.run(execute_llm_run(store.path, run.id, overrides={"base_url": server.url}))
    return run.id, progress, server


def test_a_corpus_paraphrase_run_keeps_each_couplets_prose_byte_exact(themed):
    themes = prose_themes(themed)
    run_id, progress, server = paraphrase(themed, prose_script(themes), limit=12, poets=["anvari", "jami"])
    rows = themed.corpus_prose.rows(run_id)
    assert progress.status == "done" and progress.done == 12 == len(rows) == len(server.requests)
    drawn = themed.candidates.drawn(r.couplet_id for r in rows)
    assert {d.couplet.poet_slug for d in drawn.values()} == {"anvari", "jami"}
    for r in rows:
        c = drawn[r.couplet_id].couplet
        assert r.status == "ok" and r.verse_sha == verse_sha(c.mesra1, c.mesra2)
        assert r.prose == r.reply and r.prose.startswith("این بیت می\u200cگوید ")  # ZWNJ kept
    run = themed.runs.get_run(run_id)
    assert run.kind == "paraphrase" and run.params["corpus"] and len(run.params["couplets"]) == 12
    # at most two couplets a poem; the same corpus seed draws the same couplets
    poems = [drawn[i].poem_id for i in run.params["couplets"]]
    assert max(poems.count(p) for p in poems) <= 2
    again = create_llm_run(themed, ParaphraseRunSpec(base_url="http://127.0.0.1:1/v1", model="poet", corpus=True,
                                                     limit=12, poets=["anvari", "jami"]))
    assert again.params["couplets"] == run.params["couplets"]


def test_propose_embeds_the_prose_and_its_trios_agree_in_prose(themed, capsys):
    themes = prose_themes(themed)
    run_id, progress, _ = paraphrase(themed, prose_script(themes), limit=200)
    assert progress.status == "done"
    result = propose(themed, ADMIN, 4, seed=3, paraphrases=run_id)
    made = themed.candidates.candidates()
    assert len(made) == len(result.ids) >= 3 and result.embedder == f"tfidf on prose of run {run_id}"
    stored = {r.couplet_id: r.prose for r in themed.corpus_prose.rows(run_id)}
    verse_agree = 0
    for c in made:
        embedded = c.reasons["embedded"]
        assert embedded["text"] == "prose" and embedded["paraphrase_run"] == run_id
        assert embedded["prose"] == [stored[i] for i in _ids(themed, c)]  # the prose embedded, by option
        prose = [themes[f"{x.mesra1}\n{x.mesra2}"] for x in c.couplets]
        close = [t for i, t in enumerate(prose, 1) if i != c.outlier]
        assert len(set(close)) == 1 and prose[c.outlier - 1] != close[0]  # close in prose, the outlier not
        verse = [x.poem.rsplit("sh", 1)[1] for x in c.couplets]
        verse_agree += len({t for i, t in enumerate(verse, 1) if i != c.outlier}) == 1
    assert verse_agree < len(made)  # the verse's themes would have grouped them otherwise
    share = result.prose.share()
    assert result.prose.texts and share is not None and 0 < share <= 1
    assert "couplets without prose are left out" in result.prose.summary()


def _ids(store, candidate) -> list[int]:
    with sqlite3.connect(store.path) as conn:
        return list(conn.execute("SELECT couplet1, couplet2, couplet3, couplet4 FROM candidates WHERE id = ?",
                                 (candidate.id,)).fetchone())


def test_bad_replies_are_kept_with_their_status_and_never_embedded(themed):
    themes = prose_themes(themed)
    verses = sorted(themes)
    bad = {verses[0]: "", verses[1]: "This couplet says that contentment is wealth.",
           verses[2]: "نثر " * 3000, verses[3]: "<think>…</think>"}
    run_id, progress, _ = paraphrase(themed, prose_script(themes, bad), limit=200)
    rows = {r.couplet_id: r for r in themed.corpus_prose.rows(run_id)}
    drawn = themed.candidates.drawn(rows)
    by_verse = {f"{d.couplet.mesra1}\n{d.couplet.mesra2}": rows[i] for i, d in drawn.items()}
    asked = [v for v in verses[:4] if v in by_verse]
    assert asked, "the draw asks some of the bad verses"
    for v in asked:
        r = by_verse[v]
        assert r.status in ("empty", "invalid") and r.prose is None and r.reply == bad[v]
    assert progress.status == "done" and progress.invalid == len(asked)
    result = propose(themed, ADMIN, 2, seed=3, paraphrases=run_id)
    assert result.prose.not_prose == len(asked)
    bad_ids = {by_verse[v].couplet_id for v in asked}
    assert not bad_ids & {i for c in themed.candidates.candidates() for i in _ids(themed, c)}


def test_a_run_that_cannot_give_prose_is_one_line_and_writes_nothing(themed, tmp_path):
    themes = prose_themes(themed)
    llm = themed.runs.create_run("llm", "x", {}, total=0, status="done")
    bank = themed.runs.create_run("paraphrase", "p", {"uids": []}, total=0, status="done")
    unfinished = themed.runs.create_run("paraphrase", "p", {"uids": [], "corpus": True, "couplets": [1]}, total=1)
    latin, _, _ = paraphrase(themed, lambda body, n: chat("in English"), limit=5)
    cases = [(999, "no paraphrase run 999 in"), (llm.id, f"no paraphrase run {llm.id}"),
             (bank.id, "paraphrased the bank's questions, not corpus couplets"),
             (unfinished.id, f"is running, not finished (`persian-tui run paraphrase --resume {unfinished.id}`"),
             (latin, "no usable prose: none of its 5 replies is prose")]
    for run_id, message in cases:
        with pytest.raises(ProposeError, match=message.replace("(", r"\(").replace("`", ".")) as e:
            propose(themed, ADMIN, 2, paraphrases=run_id)
        assert "\n" not in str(e.value) and str(e.value).startswith(f"--paraphrases {run_id}: ")
    with pytest.raises(ProposeError, match=f"run {llm.id} is of kind llm"):  # what it is instead
        propose(themed, ADMIN, 2, paraphrases=llm.id)
    # a run whose couplets' verse is no longer this corpus's (another database, a re-import)
    good, _, _ = paraphrase(themed, prose_script(themes), limit=5)
    with sqlite3.connect(themed.path) as conn:
        conn.execute("UPDATE corpus_paraphrases SET verse_sha = 'x' WHERE run_id = ?", (good,))
    with pytest.raises(ProposeError, match="the verse of its 5 couplet.s. is not this corpus's"):
        propose(themed, ADMIN, 2, paraphrases=good)
    assert themed.candidates.candidates() == []


def test_failed_requests_are_asked_again_on_resume(themed):
    themes = prose_themes(themed)
    run_id, progress, _ = paraphrase(themed, lambda body, n: Reply(status=500, body={"error": {"message": "x"}}),
                                     limit=6, max_failures=100)
    assert progress.errors == 6 and {r.status for r in themed.corpus_prose.rows(run_id)} == {"api_error"}
    with LLMServer(prose_script(themes)) as server:
        again = asyncio.run(execute_llm_run(themed.path, run_id, retry_errors=True,
                                            overrides={"base_url": server.url}))
    rows = themed.corpus_prose.rows(run_id)
    assert again.status == "done" and len(rows) == 6 and {r.status for r in rows} == {"ok"}


def test_corpus_paraphrase_requests_are_checked(themed):
    spec = ParaphraseRunSpec(base_url="http://127.0.0.1:1/v1", model="m", corpus=True, poets=["nobody"])
    with pytest.raises(RunError, match="poet 'nobody' is not in the corpus"):
        create_llm_run(themed, spec)
    with pytest.raises(RunError, match=r"a corpus paraphrase run asks at most 100000 couplets \(limit 100001\)"):
        create_llm_run(themed, spec.model_copy(update={"poets": None, "limit": 100_001}))


def test_the_cli_paraphrases_the_corpus_and_proposes_from_prose(themed, capsys):
    themes = prose_themes(themed)
    db = str(themed.path)
    with LLMServer(prose_script(themes)) as server:
        code = main(["--db", db, "run", "paraphrase", "--corpus", "--limit", "200", "--base-url", server.url,
                     "--model", "poet"])
    out, err = capsys.readouterr()
    assert code == 0 and "prose of 84 corpus couplets" in err and "run 1 done: 84/84" in out
    code = main(["--db", db, "corpus", "propose", "--count", "2", "--seed", "3", "--paraphrases", "1"])
    out, _ = capsys.readouterr()
    assert code == 0 and "by tfidf on prose of run 1" in out
    assert "prose of paraphrase run 1: 84 couplets; " in out and "had prose; couplets without prose are left out" in out
    code = main(["--db", db, "corpus", "propose", "--count", "2", "--paraphrases", "7"])
    _, err = capsys.readouterr()
    assert code == 1 and err.startswith("persian-tui: error: --paraphrases 7: no paraphrase run 7 in ")
    code = main(["--db", db, "run", "paraphrase", "--poet", "jami", "--base-url", "http://127.0.0.1:1/v1",
                 "--model", "m"])
    _, err = capsys.readouterr()
    assert code == 1 and "--poet and --corpus-seed choose corpus couplets: give --corpus too" in err
    with Store(themed.path) as s:
        assert len(s.runs.runs()) == 1
