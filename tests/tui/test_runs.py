"""The runs screen and the run detail, driven with Pilot against the local LLM test server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from factories import couplets, make_question, question_index
from llm_server import Gate, LLMServer, Reply, chat
from rich.cells import cell_len
from textual.widgets import DataTable, Input, Select
from tui_helpers import eventually, make_app, notices, open_screen, settle, until, wait_for

from persian_tui import bidi
from persian_tui.models import Prediction
from persian_tui.runs import EmbedRunSpec, LLMRunSpec
from persian_tui.store import Store
from persian_tui.tui.dialogs.run_form import RunForm, parse_form
from persian_tui.tui.jobs import RunFigures, RunProgressed, jobs_for
from persian_tui.tui.screens.run_detail import RunDetailScreen, mixed_lines
from persian_tui.tui.screens.runs import RunsScreen

SIZE = (120, 40)
N = 8


def key_of(body) -> int:
    return question_index(body) % 4 + 1


@pytest.fixture
def db(tmp_path) -> Path:
    path = tmp_path / "runs.db"
    with Store(path) as store:
        store.questions.add_questions([make_question(f"q-{i:03d}", couplets=couplets(i), key=i % 4 + 1)
                                       for i in range(N)])
    return path


async def open_runs(pilot) -> RunsScreen:
    return await open_screen(pilot, "m", RunsScreen)


async def open_form(pilot) -> RunForm:
    await pilot.press("n")
    await pilot.pause()
    assert isinstance(pilot.app.screen, RunForm)
    return pilot.app.screen


async def fill(pilot, form: RunForm, **values) -> None:
    for field, value in values.items():  # Input or Select
        form.query_one(f"#{field}").value = value
    await pilot.pause()


async def launch_llm(pilot, url: str | None, typed: bool = False, **values) -> None:
    form = await open_form(pilot)
    if typed:  # as a user would (slower: one key at a time)
        form.query_one("#model", Input).focus()
        await pilot.press(*"test-model")
    else:
        values.setdefault("model", "test-model")
    if url is not None:
        values["base_url"] = url
    await fill(pilot, form, **values)
    await pilot.press("enter")
    await pilot.pause()


def table_rows(screen) -> list[list[str]]:
    table = screen.query_one(DataTable)
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


def cell(screen, run_id: int, column: str) -> str:
    return str(screen.query_one("#runs-table", DataTable).get_cell(str(run_id), column))


def answer(delay: float = 0.02, wrong=(), invalid=()):
    def script(body, n):
        i = question_index(body)
        given = key_of(body) % 4 + 1 if i in wrong else key_of(body)
        text = "Options 1 and 3 share love" if i in invalid else f"Answer: {given}"
        return Reply(body=chat(text).body, delay=delay)
    return script


# ------------------------------------------------------------------ LLM runs


async def test_launch_llm_run_from_the_form(db):
    seen = []
    app = make_app(db)
    with LLMServer(answer(wrong={3}, invalid={5})) as server:
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_runs(pilot)
            assert "no run in progress" in screen.query_one("#run-panel").text
            await launch_llm(pilot, server.url, typed=True, concurrency="2")
            assert app.screen is screen  # the form closed
            seen.append(screen.query_one("#run-panel").text)
            await settle(pilot)
            assert cell(screen, 1, "status") == "done"
            assert cell(screen, 1, "done") == f"{N}/{N}"
            assert cell(screen, 1, "accuracy") == "75.0% (6/8)"
            assert cell(screen, 1, "invalid") == "1"
            panel = screen.query_one("#run-panel").text
            assert "run 1 · llm · test-model · done" in panel and f"{N}/{N} done" in panel
    assert "run 1 · llm · test-model" in seen[0]
    with Store(db) as store:
        run = store.runs.get_run(1)
        assert run.status == "done" and run.params["concurrency"] == 2
        assert run.params["api_key_env"] == "OPENAI_API_KEY"
        assert len(store.runs.predictions(1)) == N


async def test_progress_reaches_the_table_while_running(db):
    gate = Gate(answer(delay=0), free=1)  # one reply, the next held until the table has shown it
    app = make_app(db)
    with LLMServer(gate) as server:
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_runs(pilot)
            await launch_llm(pilot, server.url, concurrency="1")
            await until(pilot, lambda: cell(screen, 1, "done") == f"1/{N}", "1/8 in the table")
            assert cell(screen, 1, "status").startswith("▶")  # a row arrived while the run goes
            gate.open()
            await wait_for(pilot, lambda: cell(screen, 1, "status") == "done", "run 1 done")
            assert cell(screen, 1, "done") == f"{N}/{N}"
            await settle(pilot)


async def test_form_validation_messages(db):
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await open_runs(pilot)
        form = await open_form(pilot)
        await fill(pilot, form, base_url="", model="", concurrency="0")
        await pilot.press("ctrl+s")
        await pilot.pause()
        errors = field_errors_shown(form)
        assert errors["base_url"] == "✗ base URL is required" and "model is required" in errors["model"]
        assert "concurrency must be greater than or equal to 1" in errors["concurrency"]
        await fill(pilot, form, base_url="http://127.0.0.1:9/v1")  # fixed: its error goes at once
        assert "base_url" not in field_errors_shown(form) and "model" in field_errors_shown(form)
        secret = "sk-proj-abcdef1234567890"
        await fill(pilot, form, base_url="ftp://x", model="m", concurrency="2", api_key_env=secret)
        await pilot.press("ctrl+s")
        await pilot.pause()
        errors = field_errors_shown(form)
        assert "http(s) URL" in errors["base_url"] and "NAME of an environment variable" in errors["api_key_env"]
        assert secret not in str(errors)
        assert form.query_one("#api_key_env", Input).password  # not shown on screen either
        # a spec the core rejects: the error shows in the form, nothing is created
        await fill(pilot, form, base_url="http://127.0.0.1:9/v1", api_key_env="OPENAI_API_KEY",
                   questions="curated")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "no questions to ask" in str(form.query_one("#run-form-errors").render())
        assert isinstance(app.screen, RunForm)
        await pilot.press("escape", "y")  # the form holds typed text: it asks first
        await pilot.pause()
        assert isinstance(app.screen, RunsScreen)
    with Store(db) as store:
        assert store.runs.runs() == []


def field_errors_shown(form) -> dict[str, str]:
    """The form's error lines about its fields, by field (shown in the lines kept for them, the
    field's label marked)."""
    area = str(form.query_one("#run-form-errors").render())
    return {f: f"✗ {m}" for f, m in form.shown_errors.items()
            if f"✗ {m}" in area.split("\n") and form.query_one(f"#label-{f}").has_class("-error")}


def test_parse_form():
    spec, errors = parse_form({"kind": "llm", "base_url": "http://127.0.0.1:8000/v1", "model": "m",
                               "temperature": "", "shuffle_seed": "7", "limit": "3"})
    assert errors == [] and isinstance(spec, LLMRunSpec)
    assert (spec.temperature, spec.shuffle_seed, spec.limit, spec.concurrency) == (None, 7, 3, 4)
    _, errors = parse_form({"kind": "llm", "base_url": "http://h/v1", "model": "m", "temperature": "3"})
    assert [f for f, _ in errors] == ["temperature"]
    spec, errors = parse_form({"kind": "embedding"})
    assert errors == [] and isinstance(spec, EmbedRunSpec) and spec.model == "tfidf" and spec.prefix is None
    _, errors = parse_form({"kind": "embedding", "prefix": "query: "})
    assert [f for f, _ in errors] == ["prefix"]
    _, errors = parse_form({"kind": "embedding", "embed_model": "openai:text-embedding-3-small"})
    assert [f for f, _ in errors] == ["embed_base_url"]
    _, errors = parse_form({"kind": "embedding", "embed_model": "st:/no/such/folder"})
    assert "no folder: /no/such/folder" in errors[0][1]
    spec, errors = parse_form({"kind": "judge", "base_url": "http://h/v1", "model": "j", "target_run": "3",
                               "only_wrong": "yes"})
    assert errors == [] and (spec.target_run, spec.only_wrong) == (3, True)
    _, errors = parse_form({"kind": "judge", "base_url": "http://h/v1", "model": "j"})
    assert [f for f, _ in errors] == ["target_run"]
    spec, errors = parse_form({"kind": "paraphrase", "base_url": "http://h/v1", "model": "p"})
    assert errors == [] and spec.strategy == "paraphrase"


async def test_cancel_a_slow_run_then_resume_it(db):
    gate = Gate(answer(delay=0), free=2)  # 2 replies, then the run waits on the test
    app = make_app(db)
    with LLMServer(gate) as server:
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_runs(pilot)
            await launch_llm(pilot, server.url, concurrency="1")
            with Store(db) as store:
                await until(pilot, lambda: len(store.runs.predictions(1)) == 2 and len(server.requests) == 3
                            and cell(screen, 1, "done") in (f"1/{N}", f"2/{N}"),
                            "2 answers stored and shown, the 3rd asked")
            assert cell(screen, 1, "status").startswith("▶")
            await pilot.press("c")
            await pilot.pause()
            assert cell(screen, 1, "status") == "▶ cancelling"
            gate.let(1)  # the request in flight is answered and kept; nothing more is asked
            await settle(pilot)
            assert cell(screen, 1, "status") == "cancelled"
            with Store(db) as store:
                done = len(store.runs.predictions(1))
                assert store.runs.get_run(1).status == "cancelled" and done == 3
            assert cell(screen, 1, "done") == f"{done}/{N}"
            await pilot.press("u")  # resume: asks only the rest
            await pilot.pause()
            assert cell(screen, 1, "status").startswith("▶")
            gate.open()
            await settle(pilot)
            assert cell(screen, 1, "status") == "done" and cell(screen, 1, "done") == f"{N}/{N}"
            await pilot.press("u")
            await pilot.pause()
            assert "complete" in notices(app)[-1]
    assert len(server.requests) == N  # nothing asked twice
    with Store(db) as store:
        assert store.runs.get_run(1).status == "done" and len(store.runs.predictions(1)) == N


async def test_runs_go_on_when_the_screen_is_closed(db):
    gate = Gate(answer(delay=0))  # no reply before the screen has closed
    app = make_app(db)
    with LLMServer(gate) as server:
        async with app.run_test(size=SIZE) as pilot:
            await open_runs(pilot)
            await launch_llm(pilot, server.url, concurrency="1")
            await pilot.press("escape")  # back to the bank
            await pilot.pause()
            assert app.screen is app.bank
            assert jobs_for(app).listener is None
            gate.open()
            await settle(pilot)
            assert any("run 1 done" in n for n in notices(app))
            await pilot.press("m")
            await pilot.pause()
            assert cell(app.screen, 1, "status") == "done"
    with Store(db) as store:
        assert store.runs.get_run(1).status == "done" and len(store.runs.predictions(1)) == N


async def test_quitting_cancels_runs_in_progress(db):
    gate = Gate(answer(delay=0))  # no reply until the app has closed
    app = make_app(db)
    with LLMServer(gate) as server:
        async with app.run_test(size=SIZE) as pilot:
            await open_runs(pilot)
            await launch_llm(pilot, server.url, concurrency="1")
            await until(pilot, lambda: len(server.requests) == 1, "the first request in flight")
        # the app closed with a request in flight: the run stops and says so
        with Store(db) as store:
            await eventually(lambda: store.runs.get_run(1).status != "running", "run 1 stopped")
            assert store.runs.get_run(1).status == "cancelled" and len(store.runs.predictions(1)) < N
        gate.open()


async def test_two_runs_at_once(db):
    gate = Gate(answer(delay=0))  # no reply until both runs are seen in progress (no race on a busy machine)
    app = make_app(db)
    with LLMServer(gate) as server:
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_runs(pilot)
            await launch_llm(pilot, server.url, concurrency="2")
            await launch_llm(pilot, None, strategy="json", concurrency="2")  # the form remembers the URL
            head = screen.query_one("#runs-head")
            await until(pilot, lambda: "2 in progress here" in str(head.render()), "2 runs in progress")
            gate.open()
            await settle(pilot)
            assert [cell(screen, i, "status") for i in (1, 2)] == ["done", "done"]
            assert [r[0] for r in table_rows(screen)] == ["2", "1"]  # newest first
    with Store(db) as store:
        assert [len(store.runs.predictions(i)) for i in (1, 2)] == [N, N]
        assert store.runs.get_run(2).params["strategy"] == "json"


async def test_api_errors_then_retry_with_e(db):
    broken = {"on": True}

    def script(body, n):
        if broken["on"] and key_of(body) == 2:
            return Reply(503, {"error": {"message": "unavailable"}}, headers={"Retry-After": "0"})
        return chat(f"Answer: {key_of(body)}")

    app = make_app(db)
    with LLMServer(script) as server:
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_runs(pilot)
            form = await open_form(pilot)
            await fill(pilot, form, base_url=server.url, model="m")
            await pilot.press("enter")
            await pilot.pause()
            await settle(pilot)
            assert cell(screen, 1, "errors") == "2"
            await pilot.press("enter")
            await pilot.pause()
            detail = app.screen
            assert isinstance(detail, RunDetailScreen)
            await pilot.press("i")
            await pilot.pause()
            assert detail.shown == ["q-001", "q-005"]
            assert any("HTTP 503" in line for line in detail.text_lines)
            await pilot.press("escape")
            await pilot.pause()
            broken["on"] = False
            await pilot.press("e")
            await pilot.pause()
            await settle(pilot)
            assert cell(screen, 1, "errors") == "0" and cell(screen, 1, "accuracy") == "100.0% (8/8)"


# ------------------------------------------------------------------ the detail


async def test_detail_shows_couplets_marks_and_raw_output(db):
    app = make_app(db)
    with LLMServer(answer(wrong={2}, invalid={6})) as server:
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_runs(pilot)
            await launch_llm(pilot, server.url)
            await settle(pilot)
            await pilot.press("enter")
            await pilot.pause()
            detail = app.screen
            assert isinstance(detail, RunDetailScreen)
            assert not detail.query_one("#rd-body").has_class("-stacked")  # side by side at 120
            assert len(detail.shown) == N
            lines = detail.text_lines
            assert lines[0].startswith("q-000  ✓ correct")
            assert any(bidi.visual("مصراع اول 0 0") in line for line in lines)  # reordered (app mode)
            assert any("◆ key · predicted ✓" in line for line in lines)
            assert "Answer: 1" in lines
            await pilot.press("w")
            await pilot.pause()
            assert detail.shown == ["q-002", "q-006"]
            lines = detail.text_lines
            assert lines[0].startswith("q-002  ✗ wrong")
            assert any("◆ predicted ✗" in line for line in lines) and any("◆ key" in line for line in lines)
            await pilot.press("down")
            await pilot.pause()
            lines = detail.text_lines
            assert "parse invalid" in lines[0] and "Options 1 and 3 share love" in lines
            await pilot.press("i")
            await pilot.pause()
            assert detail.shown == ["q-006"]
            await pilot.press("a")
            await pilot.pause()
            assert len(detail.shown) == N
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen is screen


async def test_detail_shuffled_run_in_terminal_mode(db):
    app = make_app(db, mode="terminal")
    with LLMServer(answer()) as server:
        async with app.run_test(size=SIZE) as pilot:
            await open_runs(pilot)
            await launch_llm(pilot, server.url, shuffle_seed="7")
            await settle(pilot)
            await pilot.press("enter")
            await pilot.pause()
            detail = app.screen
            assert detail.query_one("#rd-body").has_class("-stacked")  # no RTL pane beside the table
            lines = detail.text_lines
            assert any("مصراع اول 0 0" in line for line in lines)  # logical text
            assert any(line.startswith("shown order") for line in lines)
            assert any("shown as" in line for line in lines)


def test_mixed_lines():
    text = "The outlier is گزینه ۲ because\nبیت دوم از عشق می‌گوید"
    lines = mixed_lines(text, 40, bidi.APP)
    assert lines[0].startswith("The outlier is ") and bidi.visual("گزینه ۲") in lines[0]
    assert lines[1].endswith(bidi.visual("بیت دوم از عشق می‌گوید")) and cell_len(lines[1]) == 40
    assert mixed_lines(text, 40, bidi.TERMINAL) == text.splitlines()


# ------------------------------------------------------------------ messages


def test_progress_messages_coalesce_by_job():
    a1 = RunProgressed(RunFigures(1, 1, "llm", "m", 8, 1))
    a2 = RunProgressed(RunFigures(1, 1, "llm", "m", 8, 2))
    b = RunProgressed(RunFigures(2, 2, "llm", "m", 8, 1))
    assert a1.can_replace(a2) and not a1.can_replace(b)


# ------------------------------------------------------------------ embedding runs


async def test_embedding_run_with_tfidf(db):
    pytest.importorskip("persian_tui.runs.embedders")
    pytest.importorskip("sklearn")
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_runs(pilot)
        form = await open_form(pilot)
        await fill(pilot, form, kind="embedding")
        assert form.query_one("#row-embed_model").display and not form.query_one("#row-base_url").display
        await fill(pilot, form, scorer="pairwise")
        await pilot.press("ctrl+s")
        await pilot.pause()
        await settle(pilot)
        assert cell(screen, 1, "kind") == "embedding" and cell(screen, 1, "status") == "done"
        assert cell(screen, 1, "done") == f"{N}/{N}"
        assert sum("run 1 done" in n for n in notices(app)) == 1
        await pilot.press("u")  # embedding runs do not resume
        await pilot.pause()
        assert "only LLM, paraphrase, recall and judge runs resume" in notices(app)[-1]
        await pilot.press("enter")
        await pilot.pause()
        detail = app.screen
        assert isinstance(detail, RunDetailScreen) and len(detail.shown) == N
        assert any(line.startswith("scores") for line in detail.text_lines)
        assert any("score " in line for line in detail.text_lines)
        await pilot.press("escape")
        form = await open_form(pilot)  # the form remembers the last launch
        assert form.query_one("#kind", Select).value == "embedding"
        await fill(pilot, form, scorer="isolation")
        await pilot.press("ctrl+s")
        await pilot.pause()
        await settle(pilot)
        assert screen.selected_id == 2  # the new run's row is selected and shown in the panel
        assert "run 2 · embedding · tfidf · done" in screen.query_one("#run-panel").text
    with Store(db) as store:
        run = store.runs.get_run(1)
        assert run.kind == "embedding" and run.params["scorer"] == "pairwise"
        assert store.runs.get_run(2).params["scorer"] == "isolation"
        assert all(len(p.scores) == 4 for p in store.runs.predictions(1))


async def test_a_run_without_one_usable_answer_opens_with_dashes(db):
    """Every request failed: the runs screen and the detail open and show "—", not a crash."""
    from persian_tui.models import Prediction

    with Store(db) as store:
        run = store.runs.create_run("llm", "down-model", {"base_url": "http://127.0.0.1:9/v1"}, total=3)
        store.runs.save_predictions(run.id, [Prediction(uid=f"q-{i:03d}", predicted=None,
                                                        parse_status="api_error", error="Connection error")
                                             for i in range(3)])
        (summary,) = store.runs.run_summaries()
        assert summary.correct == 0  # never NULL
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_runs(pilot)
        table = screen.query_one(DataTable)
        row = [str(c) for c in table.get_row(str(run.id))]
        assert "down-model" in row and "3" in row
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, RunDetailScreen)


async def test_detail_updates_live_while_the_run_goes(db, monkeypatch):
    """The open detail screen shows rows as they come (never r). The server answers only the
    replies the test releases, so the half-done state holds until it has been seen."""

    from persian_tui.tui.screens import run_detail

    monkeypatch.setattr(run_detail, "LIVE_EVERY", 0.1)
    gate = Gate(answer(delay=0))
    app = make_app(db)
    with LLMServer(gate) as server:
        async with app.run_test(size=SIZE) as pilot:
            await open_runs(pilot)
            await launch_llm(pilot, server.url, concurrency="1")
            await pilot.press("enter")
            detail = app.screen
            assert isinstance(detail, RunDetailScreen)
            gate.let(3)
            await until(pilot, lambda: len(detail.shown) == 3, "3 rows in the detail")
            assert detail.run.status == "running"  # rows came in while it ran
            gate.open()
            await until(pilot, lambda: len(detail.shown) == N and detail.run.status == "done",
                        "every row in the detail, the run done")
            await settle(pilot)


async def test_judge_and_paraphrase_runs_launch_from_the_form(db):
    def script(body, n):
        text = json.dumps(body, ensure_ascii=False)
        if "verdict" in text:
            return chat('{"verdict": "flawed", "error_category": "other", "rationale": "x"}')
        if "نثر" in text or "prose" in text.lower() or "paraphrase" in text.lower():
            return chat("معنای بیت به نثر")
        return chat(f"Answer: {key_of(body) % 4 + 1}")  # always wrong

    app = make_app(db)
    with LLMServer(script) as server:
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_runs(pilot)
            await launch_llm(pilot, server.url)
            await settle(pilot)
            form = await open_form(pilot)
            await fill(pilot, form, kind="judge")
            assert form.query_one("#row-target_run").display and not form.query_one("#row-strategy").display
            await fill(pilot, form, target_run="1", model="judge-model", base_url=server.url)
            await pilot.press("ctrl+s")
            await pilot.pause()
            await settle(pilot)
            assert cell(screen, 2, "kind") == "judge #1" and cell(screen, 2, "status") == "done"  # which run it judged
            assert cell(screen, 2, "done") == f"{N}/{N}"  # its judgments, not "0/8"
            form = await open_form(pilot)
            await fill(pilot, form, kind="paraphrase", model="para-model", base_url=server.url)
            await pilot.press("ctrl+s")
            await pilot.pause()
            await settle(pilot)
            assert cell(screen, 3, "kind") == "paraphrase" and cell(screen, 3, "status") == "done"
    with Store(db) as store:
        assert len(store.judging.judgments(run_id=2)) == N and store.runs.get_run(3).params["strategy"] == "paraphrase"


async def test_failed_run_archive_and_delete_in_the_screen(db):
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_runs(pilot)
        form = await open_form(pilot)
        await fill(pilot, form, model="m", base_url=f"http://127.0.0.1:{port}/v1", concurrency="1")
        await pilot.press("ctrl+s")
        await pilot.pause()
        await settle(pilot)
        assert cell(screen, 1, "status") == "failed"
        assert "endpoint unreachable" in screen.query_one("#run-panel").text
        await pilot.press("a")  # archive: hidden
        await pilot.pause()
        assert screen.query_one(DataTable).row_count == 0
        await pilot.press("h")  # show archived
        await pilot.pause()
        assert cell(screen, 1, "status") == "archived"
        await pilot.press("d")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        await pilot.pause()
        assert screen.query_one(DataTable).row_count == 0
    with Store(db) as store:
        assert store.runs.runs(archived=True) == []


def test_parse_form_samples_sample_and_release():
    spec, errors = parse_form({"kind": "llm", "base_url": "http://h/v1", "model": "m", "samples": "3",
                               "release": "v1.0"})
    assert not errors and (spec.samples, spec.release) == (3, "v1.0")
    _, errors = parse_form({"kind": "llm", "base_url": "http://h/v1", "model": "m", "samples": "0"})
    assert [f for f, _ in errors] == ["samples"]
    _, errors = parse_form({"kind": "llm", "base_url": "http://h/v1", "model": "m", "release": "../x"})
    assert [f for f, _ in errors] == ["release"]
    spec, errors = parse_form({"kind": "judge", "base_url": "http://h/v1", "model": "m", "target_run": "1",
                               "sample": "2", "samples": "5"})  # samples is not a judge field: ignored
    assert not errors and spec.sample == 2 and spec.samples == 1


async def test_launch_a_run_with_samples_from_the_form(db):
    app = make_app(db)
    with LLMServer(answer()) as server:
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_runs(pilot)
            form = await open_form(pilot)
            assert form.query_one("#row-samples").display and not form.query_one("#row-sample").display
            await fill(pilot, form, base_url=server.url, model="test-model", samples="3", temperature="1")
            await pilot.press("enter")
            await pilot.pause()
            await settle(pilot)
            assert cell(screen, 1, "status") == "done"
            assert cell(screen, 1, "done") == f"{3 * N}/{3 * N}"
            await pilot.press("enter")
            await pilot.pause()
            await settle(pilot)
            detail = app.screen
            assert isinstance(detail, RunDetailScreen) and len(detail.shown) == N
            head = str(detail.query_one("#rd-head").render())
            assert "3 samples, majority vote" in head and f"{3 * N}/{3 * N}" in head
            assert any(line.startswith("samples") and "agreement 100%" in line for line in detail.text_lines)
    with Store(db) as store:
        assert store.runs.get_run(1).params["samples"] == 3
        assert len(store.runs.predictions(1, samples=True)) == 3 * N and len(store.runs.predictions(1)) == N


def test_a_run_without_one_answer_shows_no_accuracy_in_every_tui_place():
    """The TUI agrees with the CLI: a run whose every request failed has accuracy "—", not
    "0.0% (0/2)" (its scored items are all API errors)."""
    from persian_tui.models import Prediction, Run, RunSummary
    from persian_tui.tui.screens.run_detail import run_head
    from persian_tui.tui.screens.runs import figures_cells, summary_cells
    from persian_tui.tui.widgets.run_panel import panel_texts

    run = Run(id=1, kind="llm", model="m", params={}, status="failed", total=2, created_at="2026-01-01T00:00:00Z")
    summary = RunSummary(run, done=2, correct=0, scored=2, invalid=0, errors=2)
    figures = RunFigures(job=1, run_id=1, kind="llm", model="m", total=2, done=2, scored=2, errors=2,
                         status="failed")
    preds = [Prediction(f"q-{i}", None, "api_error", error="down") for i in range(2)]
    assert summary_cells(summary, None)["accuracy"] == "—"
    assert figures_cells(figures, None)["accuracy"] == "—"
    assert "accuracy —" in panel_texts(figures)[1] and figures.accuracy is None
    assert "accuracy —" in run_head(run, preds, {"q-0": 1, "q-1": 2})
    half = RunSummary(run, done=2, correct=1, scored=2, invalid=0, errors=1)
    assert summary_cells(half, None)["accuracy"] == "50.0% (1/2)"


async def test_run_progress_message_flow(db):
    """Message flow of a run: the worker posts RunProgressed to the runs screen; the counts
    never go back, one final message says done with every answer, and the table shows it."""
    figures: list[RunFigures] = []

    def hook(message):
        if isinstance(message, RunProgressed) and not any(f is message.figures for f in figures):
            figures.append(message.figures)  # once per message (it bubbles on to the app)

    gate = Gate(answer(delay=0), free=1)  # the first answer's figures arrive while the rest wait
    app = make_app(db)
    with LLMServer(gate) as server:
        async with app.run_test(size=SIZE, message_hook=hook) as pilot:
            screen = await open_runs(pilot)
            await launch_llm(pilot, server.url, concurrency="1")
            await until(pilot, lambda: any(f.run_id == 1 and f.done == 1 for f in figures), "1 answer posted")
            gate.open()
            await wait_for(pilot, lambda: cell(screen, 1, "status") == "done", "run 1 done")
            await settle(pilot)
            assert cell(screen, 1, "done") == f"{N}/{N}"
    ran = [f for f in figures if f.run_id == 1]
    done = [f.done for f in ran]
    assert done == sorted(done) and len(set(done)) >= 2, done  # arrived as the run went
    finals = [f for f in ran if f.status == "done"]
    assert finals == [ran[-1]] and (finals[0].done, finals[0].correct, finals[0].total) == (N, N, N)


def test_runs_snapshot(db, snap_compare):
    """Finished runs (a fixed creation date), the first one's figures in the panel."""
    with Store(db) as store:
        store.runs.create_run("llm", "acme/model-a", {}, status="done", total=N,
                              predictions=[Prediction(f"q-{i:03d}", i % 4 + 1, "ok") for i in range(N)])
        store.runs.create_run("embedding", "tfidf", {}, status="done", total=N,
                              predictions=[Prediction(f"q-{i:03d}", 1, "ok") for i in range(N)])
        store.conn.execute("UPDATE runs SET created_at = '2026-01-02T03:04:05Z'")

    async def run_before(pilot) -> None:
        await open_runs(pilot)
        await settle(pilot)

    assert snap_compare(make_app(db), terminal_size=SIZE, run_before=run_before)


def test_runs_table_tells_sampled_and_release_runs_apart():
    """A run asked 3 times per question on release v1 reads "m ×3 @v1" in the model column."""
    from persian_tui.models import Run, RunSummary
    from persian_tui.tui.screens.runs import summary_cells

    run = Run(id=1, kind="llm", model="m", params={"samples": 3, "release": "v1"}, status="done", total=6,
              created_at="2026-01-01T00:00:00Z")
    assert summary_cells(RunSummary(run, done=6, correct=3, scored=6, invalid=0, errors=0), None)["model"] == "m ×3 @v1"
    run.params = {}
    assert summary_cells(RunSummary(run, done=6, correct=3, scored=6, invalid=0, errors=0), None)["model"] == "m"


async def test_resume_at_another_base_url(db):
    """A run launched at an endpoint that refuses it fails; U resumes it at another base URL
    (typed into a dialog), which the run's history records; a URL that is not one is refused."""

    def refuse(body, n):
        return Reply(401, {"error": {"message": "invalid key"}})

    app = make_app(db)
    with LLMServer(refuse) as down, LLMServer(answer(delay=0)) as up:
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_runs(pilot)
            await launch_llm(pilot, down.url, concurrency="1")
            await settle(pilot)
            assert cell(screen, 1, "status") == "failed"
            await pilot.press("U")
            await pilot.pause()
            app.screen.query_one("#reason", Input).value = "ftp://elsewhere"
            await pilot.press("enter")
            await pilot.pause()
            # refused in the dialog, which stays open with what was typed, to be corrected
            dialog = app.screen
            assert dialog.query_one("#reason", Input).value == "ftp://elsewhere"
            assert "base URL must be an http(s) URL" in str(dialog.query_one("#reason-error").render())
            dialog.query_one("#reason", Input).value = up.url
            await pilot.press("enter")
            await settle(pilot)
            await wait_for(pilot, lambda: cell(screen, 1, "status") == "done", "run 1 done")
    with Store(db) as store:
        assert [p.parse_status for p in store.runs.predictions(1)] == ["ok"] * N
        events = [(h["event"], h["detail"]) for h in store.runs.run_history(1)]
        assert ("resume-overrides", {"base_url": up.url}) in events
        assert len(up.requests) == N


async def test_detail_shows_a_write_that_lands_while_it_reads(db, monkeypatch):
    """An answer committed after the detail's worker has read the run, but before the rows reach
    the screen, is shown at the next live check (never r), not lost until the next write."""
    from persian_tui.tui.screens import run_detail

    monkeypatch.setattr(run_detail, "LIVE_EVERY", 0.05)
    with Store(db) as store:
        run = store.runs.create_run("llm", "m", {}, total=N)  # running
    read = run_detail.load_detail

    def read_then_a_write(db_path, run_id, known):
        loaded = read(db_path, run_id, known)
        if loaded.preds == []:  # the run's first answer commits just after the first read
            with Store(db_path) as other:
                other.runs.save_predictions(run_id, [Prediction("q-000", 1, "ok")])
        return loaded

    monkeypatch.setattr(run_detail, "load_detail", read_then_a_write)
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await open_runs(pilot)
        await pilot.press("enter")
        detail = app.screen
        assert isinstance(detail, RunDetailScreen)
        await until(pilot, lambda: detail.shown == ["q-000"], "the answer written during the first read")
        assert detail.run.id == run.id


async def test_the_form_says_which_values_it_keeps_from_the_last_launch(db):
    from persian_tui.tui.dialogs.run_form import kept_note

    app = make_app(db)
    with LLMServer(answer(delay=0)) as server:
        async with app.run_test(size=SIZE) as pilot:
            await open_runs(pilot)
            form = await open_form(pilot)
            assert not str(form.query_one("#run-form-kept").render())  # a first launch: all defaults
            await pilot.press("escape")
            await launch_llm(pilot, server.url, concurrency="2", limit="3")
            await wait_for(pilot, lambda: not any(j.running for j in app.screen.jobs.active()), "the run")
            form = await open_form(pilot)
            note = str(form.query_one("#run-form-kept").render())
            assert "kept from your last launch: limit 3 (default none), concurrency 2 (default 4)" in note
            assert form.query_one("#concurrency", Input).value == "2"
    assert kept_note({"kind": "llm", "base_url": "http://x", "model": "m", "concurrency": "4"}) == ""


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_form_stays_put_under_the_pointer(db, size):
    """The new-run form sits at the top of the screen and its fields do not move when errors
    appear (a click meant for base URL must not land in model): the errors have a place of
    their own, reserved from the start."""
    app = make_app(db)
    async with app.run_test(size=size) as pilot:
        await open_runs(pilot)
        form = await open_form(pilot)
        box = form.query_one("#run-form-box")
        assert box.region.y <= 1, box.region
        fields = ("base_url", "model", "concurrency", "api_key_env")
        before = {f: form.query_one(f"#{f}").region for f in fields}
        await fill(pilot, form, base_url="", model="", concurrency="0")
        await pilot.press("ctrl+s")
        await pilot.pause()
        errors = field_errors_shown(form)
        assert errors["base_url"] == "✗ base URL is required" and "model is required" in errors["model"]
        assert {f: form.query_one(f"#{f}").region for f in fields} == before
        await fill(pilot, form, base_url="http://127.0.0.1:9/v1")
        assert {f: form.query_one(f"#{f}").region for f in fields} == before


async def test_the_form_remembers_each_kind_on_its_own(db):
    """Values are remembered per kind: after a judge run with model `judge`, switching the form
    to LLM shows the LLM's own last values (or the defaults), never the judge's model, and the
    note names no judged run."""
    remembered = {"judge": {"kind": "judge", "base_url": "http://127.0.0.1:9/v1", "model": "judge",
                            "target_run": "32", "concurrency": "8"},
                  "llm": {"kind": "llm", "base_url": "http://127.0.0.1:8/v1", "model": "gpt-x", "limit": "5"}}
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_runs(pilot)
        screen.jobs.last_forms = remembered
        screen.jobs.last_kind = "judge"
        form = await open_form(pilot)
        assert form.query_one("#kind").value == "judge"
        assert form.query_one("#model", Input).value == "judge"
        assert "concurrency 8" in str(form.query_one("#run-form-kept").render())
        await fill(pilot, form, kind="llm")
        assert form.query_one("#model", Input).value == "gpt-x"
        assert form.query_one("#base_url", Input).value == "http://127.0.0.1:8/v1"
        assert form.query_one("#concurrency", Input).value == "4"
        note = str(form.query_one("#run-form-kept").render())
        assert "judged run" not in note and "limit 5" in note, note
        await fill(pilot, form, kind="paraphrase")  # never launched: the defaults
        assert form.query_one("#model", Input).value == "" and form.query_one("#limit", Input).value == ""
        assert "kept" not in str(form.query_one("#run-form-kept").render())
        form.query_one("#model", Input).value = "typed-now"  # typed here: kept across kinds
        await fill(pilot, form, kind="llm")
        assert form.query_one("#model", Input).value == "typed-now"


async def test_the_form_fits_80x24_with_its_buttons(db):
    """At 80x24 with three errors shown, the Launch button is still on the screen."""
    app = make_app(db)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_runs(pilot)
        form = await open_form(pilot)
        await fill(pilot, form, base_url="", model="", concurrency="0")
        await pilot.press("ctrl+s")
        await pilot.pause()
        button = form.query_one("#launch")
        geometry = form.find_widget(button)
        assert geometry.region.intersection(geometry.clip).height == 1 and geometry.region.bottom <= 23


def test_the_runs_table_shows_a_run_whose_process_is_gone_interrupted():
    """Not "running?": a run held by a process that is gone is interrupted; one running in
    another live process is running; one of this window's jobs has ▶."""
    from persian_tui.models import Run, RunSummary
    from persian_tui.tui.screens.runs import status_cell, summary_cells

    run = Run(id=1, kind="llm", model="m", params={}, status="running", total=2,
              created_at="2026-01-01T00:00:00Z", interrupted=True)
    assert summary_cells(RunSummary(run, done=1, correct=1, scored=1, invalid=0, errors=0), None)["status"] \
        == "interrupted"
    run.interrupted = False
    assert summary_cells(RunSummary(run, done=1, correct=1, scored=1, invalid=0, errors=0), None)["status"] \
        == "running"
    assert status_cell("running", None) == "running"
