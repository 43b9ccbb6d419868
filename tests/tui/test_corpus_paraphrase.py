"""Corpus paraphrase runs in the TUI: the run form points a paraphrase run at the corpus (the
core's spec, draw and errors: runs/corpus_prose.py), the runs table streams and counts its
prose, and the Candidates screen proposes from a finished run's prose. Pilot against the local
LLM test server over HTTP, real SQLite, the generated themed corpus."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from factories import copy_mini, write_themed_poems
from llm_server import Gate, LLMServer, chat
from textual.widgets import DataTable, Input
from tui_helpers import make_app, notices, open_screen, settle, until, wait_for

from persian_tui.access import AccessDenied, acting
from persian_tui.corpus.ganjoor import import_corpus
from persian_tui.corpus.propose import propose
from persian_tui.runs import create_llm_run, execute_llm_run
from persian_tui.runs.corpus_prose import MAX_COUPLETS
from persian_tui.runs.spec import ParaphraseRunSpec
from persian_tui.store import Store
from persian_tui.tui.dialogs.run_form import RunForm, parse_form
from persian_tui.tui.screens.candidates import CandidatesScreen
from persian_tui.tui.screens.runs import RunsScreen

SIZE = (120, 40)


def prose(body, n):
    """Prose of the couplet asked: its own words after a Persian opening (with a ZWNJ)."""
    verse = body["messages"][-1]["content"]
    return chat("این بیت می‌گوید " + " ".join(verse.split()[-12:]))


@pytest.fixture
def db(tmp_path) -> Path:
    """The themed corpus (nine poets), no bank."""
    root = copy_mini(tmp_path)
    write_themed_poems(root)
    path = tmp_path / "corpus.db"
    with Store(path) as s:
        import_corpus(s, root)
    return path


async def open_form(pilot) -> RunForm:
    await open_screen(pilot, "m", RunsScreen)
    await pilot.press("n")
    await pilot.pause()
    assert isinstance(pilot.app.screen, RunForm)
    return pilot.app.screen


async def fill(pilot, form: RunForm, **values) -> None:
    for field, value in values.items():
        form.query_one(f"#{field}").value = value
        await pilot.pause()


def cell(screen, run_id: int, column: str) -> str:
    return str(screen.query_one("#runs-table", DataTable).get_cell(str(run_id), column))


def form_errors(form: RunForm) -> str:
    return str(form.query_one("#run-form-errors").render())


def test_the_form_reads_a_corpus_paraphrase_run_as_the_cli_does():
    url = {"base_url": "http://127.0.0.1:9/v1", "model": "poet"}
    spec, errors = parse_form({"kind": "paraphrase", "source": "corpus", "poets": "anvari، jami ,", "limit": "12",
                               "corpus_seed": "7", "questions": "curated", "release": "r1", **url})
    assert errors == [] and isinstance(spec, ParaphraseRunSpec)
    # the corpus's fields, not the questions' (hidden in the form, never sent)
    assert (spec.corpus, spec.poets, spec.limit, spec.corpus_seed) == (True, ["anvari", "jami"], 12, 7)
    assert (spec.questions, spec.release) == ("ready", None)
    spec, errors = parse_form({"kind": "paraphrase", "poets": "anvari", "corpus_seed": "7", **url})
    assert errors == [] and not spec.corpus and spec.poets is None and spec.corpus_seed == 0
    for seed, why in (("-1", "corpus seed must be greater than or equal to 0"),
                      ("x", "corpus seed must be a whole number"), (str(2**32), "corpus seed must be less than")):
        spec, errors = parse_form({"kind": "paraphrase", "source": "corpus", "corpus_seed": seed, **url})
        assert spec is None and [f for f, _ in errors] == ["corpus_seed"] and why in errors[0][1]


async def test_a_corpus_paraphrase_run_launches_from_the_form_and_streams(db):
    gate = Gate(prose, free=1)  # one reply, the next held until the table has shown it
    app = make_app(db)
    with LLMServer(gate) as server:
        async with app.run_test(size=SIZE) as pilot:
            form = await open_form(pilot)
            await fill(pilot, form, kind="paraphrase")
            assert form.query_one("#row-questions").display and not form.query_one("#row-poets").display
            await fill(pilot, form, source="corpus")
            assert not form.query_one("#row-questions").display and not form.query_one("#row-release").display
            assert form.query_one("#row-poets").display and form.query_one("#row-corpus_seed").display
            assert "couplets (default 500)" in form.query_one("#limit", Input).placeholder
            await fill(pilot, form, poets="anvari, jami", limit="6", concurrency="1", model="poet",
                       base_url=server.url)
            await pilot.press("ctrl+s")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, RunsScreen)  # the form closed
            await until(pilot, lambda: cell(screen, 1, "done") == "1/6", "1/6 in the table")
            assert cell(screen, 1, "status").startswith("▶") and cell(screen, 1, "kind") == "paraphrase"
            gate.open()
            await wait_for(pilot, lambda: cell(screen, 1, "status") == "done", "run 1 done")
            await settle(pilot)
            screen.reload()  # the store's figures, not the worker's
            assert cell(screen, 1, "done") == "6/6" and cell(screen, 1, "errors") == "0"
            await pilot.press("enter")  # the prose is no answers: where it goes
            await pilot.pause()
            assert app.screen is screen and "on the Candidates screen (C), t chooses it" in notices(app)[-1]
    with Store(db) as s:
        run = s.runs.get_run(1)
        rows = s.corpus_prose.rows(1)
        drawn = s.candidates.drawn(r.couplet_id for r in rows)
    assert run.params["corpus"] and run.params["poets"] == ["anvari", "jami"] and len(rows) == 6
    assert {d.couplet.poet_slug for d in drawn.values()} <= {"anvari", "jami"}
    assert all(r.status == "ok" and "می\u200cگوید" in r.prose for r in rows)  # byte-exact, ZWNJ kept


async def test_cancel_a_corpus_paraphrase_run_then_resume_it(db):
    gate = Gate(prose, free=2)  # 2 replies, then the run waits on the test
    app = make_app(db)
    with LLMServer(gate) as server:
        async with app.run_test(size=SIZE) as pilot:
            form = await open_form(pilot)
            await fill(pilot, form, kind="paraphrase", source="corpus", limit="6", concurrency="1", model="poet",
                       base_url=server.url)
            await pilot.press("ctrl+s")
            await pilot.pause()
            screen = app.screen
            with Store(db) as s:
                await until(pilot, lambda: len(s.corpus_prose.rows(1)) == 2 and len(server.requests) == 3,
                            "2 couplets' prose stored, the 3rd asked")
            await pilot.press("c")
            await pilot.pause()
            assert cell(screen, 1, "status") == "▶ cancelling"
            gate.let(1)  # the request in flight is answered and kept; nothing more is asked
            await settle(pilot)
            assert cell(screen, 1, "status") == "cancelled" and cell(screen, 1, "done") == "3/6"
            await pilot.press("u")  # resume: asks only the rest
            await pilot.pause()
            gate.open()
            await settle(pilot)
            assert cell(screen, 1, "status") == "done" and cell(screen, 1, "done") == "6/6"
    assert len(server.requests) == 6  # nothing asked twice
    with Store(db) as s:
        assert s.runs.get_run(1).status == "done" and len(s.corpus_prose.rows(1)) == 6


async def test_the_form_gives_the_cores_one_line_errors_and_creates_nothing(db, tmp_path):
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(pilot)
        await fill(pilot, form, kind="paraphrase", source="corpus", model="poet", base_url="http://127.0.0.1:9/v1")
        for values, error in (({"poets": "nobody"}, "✗ poet 'nobody' is not in the corpus"),
                              ({"poets": "", "limit": str(MAX_COUPLETS + 1)},  # the form has no --limit
                               f"✗ a corpus paraphrase run asks at most {MAX_COUPLETS} couplets "
                               f"(limit {MAX_COUPLETS + 1})"),
                              ({"limit": "", "corpus_seed": "-1"}, "✗ corpus seed must be greater than")):
            await fill(pilot, form, **values)
            await pilot.press("ctrl+s")
            await pilot.pause()
            shown = form_errors(form)
            assert error in shown and len(shown.splitlines()) == 1 and isinstance(app.screen, RunForm), shown
        assert form.query_one("#label-corpus_seed").has_class("-error")
    bare = tmp_path / "bare.db"
    Store(bare).close()
    app = make_app(bare)
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(pilot)
        await fill(pilot, form, kind="paraphrase", source="corpus", model="poet", base_url="http://127.0.0.1:9/v1")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "has no corpus: import one first" in form_errors(form)
    for path in (db, bare):
        with Store(path) as s:
            assert s.runs.runs() == []


async def test_the_form_remembers_a_corpus_launch(db):
    app = make_app(db)
    with LLMServer(prose) as server:
        async with app.run_test(size=SIZE) as pilot:
            form = await open_form(pilot)
            await fill(pilot, form, kind="paraphrase", source="corpus", poets="jami", corpus_seed="3", limit="2",
                       model="poet", base_url=server.url)
            await pilot.press("ctrl+s")
            await settle(pilot)
            await pilot.press("n")
            await pilot.pause()
            form = app.screen
            assert isinstance(form, RunForm) and form.query_one("#row-poets").display
            assert (form.query_one("#poets", Input).value, form.query_one("#corpus_seed", Input).value) == ("jami", "3")
            kept = str(form.query_one("#run-form-kept").render())
            assert "couplets corpus (default questions)" in kept and "poets jami" in kept, kept


async def corpus_prose_run(path: Path) -> int:
    """A finished corpus paraphrase run of every drawable couplet, made with the core."""
    with Store(path) as s, LLMServer(prose) as server:
        run = create_llm_run(s, ParaphraseRunSpec(base_url=server.url, model="poet", max_retries=0, corpus=True,
                                                  limit=200))
        await execute_llm_run(path, run.id, overrides={"base_url": server.url})
        assert s.runs.get_run(run.id).status == "done"
    return run.id


async def test_candidates_propose_from_a_finished_runs_prose(db):
    app = make_app(db, annotator="boss")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, "C", CandidatesScreen)
        await pilot.press("t")  # no corpus paraphrase run yet: says how to make one
        await pilot.pause()
        assert "no finished corpus paraphrase run" in notices(app)[-1] and screen.prose_run is None
    run_id = await corpus_prose_run(db)
    app = make_app(db, annotator="boss")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, "C", CandidatesScreen)
        assert "P embeds" not in str(screen.query_one("#cand-header").render())  # the verse
        await pilot.press("t")
        await pilot.pause()
        assert screen.prose_run == run_id
        head = str(screen.query_one("#cand-header").render())
        assert head.startswith(f"candidates · P embeds the prose of run {run_id} · ")  # first: seen at 80
        await pilot.press("P")
        await wait_for(pilot, lambda: not screen.proposing, "the proposal")
        await settle(pilot)
        assert f"prose of paraphrase run {run_id}:" in notices(app)[-1]
        await pilot.press("t")  # back to the verse
        await pilot.pause()
        assert screen.prose_run is None and "P embeds" not in str(screen.query_one("#cand-header").render())
    with Store(db) as s:
        made = s.candidates.candidates()
        stored = {r.couplet_id: r.prose for r in s.corpus_prose.rows(run_id)}
    assert made and all(c.reasons["embedded"]["paraphrase_run"] == run_id for c in made)
    assert all(p in stored.values() for c in made for p in c.reasons["embedded"]["prose"])


def test_only_admins_propose_from_prose_in_the_core(db):
    """What P does on the Candidates screen, refused in the core for the other roles (act
    `propose`); launching a run is act `run` (admins): the runs screen is refused to them
    (tests/tui/test_roles.py), as `run paraphrase` is (cli/access.py)."""
    run_id = asyncio.run(corpus_prose_run(db))
    with Store(db) as s:
        s.users.add("boss", "admin")
        s.users.add("sara", "annotator")
        s.users.add("reza", "reviewer")
        for name in ("sara", "reza"):
            who = acting(s, name)
            assert not who.may("run")
            with pytest.raises(AccessDenied):
                propose(s, who, 2, paraphrases=run_id)
        assert s.candidates.candidates() == []

