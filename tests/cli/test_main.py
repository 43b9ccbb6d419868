"""main (cli/__init__.py) and the bank, labels and report commands, run through main(argv): help, import, export,
stats, sample, setting, report; nothing from data drives the terminal; undecodable arguments and a
closed pipe end quietly."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from factories import COUPLETS, DATA, HOSTILE, OSC_TITLE, RAW, ROOT, benchmark_item, make_question
from llm_server import LLMServer, Reply

from persian_tui.cli import main
from persian_tui.store import Store


@pytest.fixture
def db(tmp_path, monkeypatch):
    monkeypatch.delenv("PERSIAN_TUI_DB", raising=False)
    return str(tmp_path / "cli.db")


@pytest.mark.parametrize("command", ["import", "export", "stats", "tui", "sample"])
def test_every_command_has_help(command, capsys):
    with pytest.raises(SystemExit) as e:
        main([command, "--help"])
    assert e.value.code == 0 and "usage: persian-tui" in capsys.readouterr().out


def test_import_export_stats(db, tmp_path, capsys):
    src = tmp_path / "bench.json"
    src.write_text(json.dumps([benchmark_item(6)], ensure_ascii=False), "utf-8")
    assert main(["--db", db, "import", str(src), "--dry-run"]) == 1  # a dry run creates no database
    assert "no such database" in capsys.readouterr().err
    Store(db).close()
    assert main(["--db", db, "import", str(src), "--dry-run"]) == 0
    assert "dry run" in capsys.readouterr().out
    assert main(["--db", db, "import", str(src)]) == 0
    assert "1 new, 0 linked, 0 unchanged, 0 duplicate, 0 conflict, 0 rejected" in capsys.readouterr().out
    out = tmp_path / "x.jsonl"
    assert main(["--db", db, "export", "-o", str(out)]) == 0
    assert len(out.read_text("utf-8").splitlines()) == 1
    assert main(["--db", db, "stats"]) == 0
    assert "questions: 1" in capsys.readouterr().out


def test_db_from_environment(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PERSIAN_TUI_DB", str(tmp_path / "env.db"))
    Store(tmp_path / "env.db").close()
    assert main(["stats"]) == 0
    assert str(tmp_path / "env.db") in capsys.readouterr().out


def test_user_errors_are_one_line_without_traceback(db, tmp_path, capsys):
    assert main(["--db", db, "import", str(tmp_path / "missing.json")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("persian-tui: error:") and "no such file" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_sample_command_is_idempotent(db, capsys):
    assert main(["--db", db, "sample"]) == 0
    first = re.search(r"(\d+) new, 0 linked, 0 unchanged", capsys.readouterr().out)
    assert first and int(first[1]) >= 12
    assert main(["--db", db, "sample"]) == 0
    assert f"0 new, 0 linked, {first[1]} unchanged" in capsys.readouterr().out


def test_setting_shows_and_sets_the_fast_minimum(db, capsys):
    from persian_tui.settings import label_min_seconds
    from persian_tui.store import Store

    assert main(["--db", db, "setting"]) == 1  # reading a database that does not exist creates none
    assert "no such database" in capsys.readouterr().err
    Store(db).close()
    assert main(["--db", db, "setting"]) == 0
    assert "label_min_seconds = (default)" in capsys.readouterr().out
    assert main(["--db", db, "setting", "label_min_seconds", "1.5"]) == 0
    assert "label_min_seconds = 1.5" in capsys.readouterr().out
    assert main(["--db", db, "setting", "label_min_seconds", "soon"]) == 2
    assert "'soon' is not valid" in capsys.readouterr().err
    assert main(["--db", db, "setting", "colour", "red"]) == 2
    with Store(db) as s:
        assert label_min_seconds(s.labels) == 1.5


ZWNJ, ZWJ, LRM, RLM, ALM = "\u200c", "\u200d", "\u200e", "\u200f", "\u061c"


@pytest.fixture
def hostile_db(tmp_path):
    db = tmp_path / "h.db"
    with Store(db) as s:
        q = make_question("q-evil", category="عشق" + HOSTILE, source_name="src" + OSC_TITLE,
                          source_id="7" + HOSTILE)
        q.options[0].mesra1 = f"می{ZWNJ}رود {HOSTILE} دلِ"
        s.questions.add_questions([q, make_question("q-2", key=2, couplets=[(f"{a} ۲", b) for a, b in q_couplets()])])
    return db


def q_couplets():

    return COUPLETS


def cli_bytes(*args, cwd):
    r = subprocess.run([sys.executable, "-m", "persian_tui.cli", *args], capture_output=True, cwd=cwd,
                       env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300, check=False)
    return r.returncode, r.stdout + r.stderr


def test_cli_output_has_no_raw_controls(hostile_db, tmp_path):
    db = str(hostile_db)
    # an import rejection line and an import history entry quoting hostile text
    bad = tmp_path / f"bad{OSC_TITLE}.jsonl"
    bad.write_text(json.dumps({"uid": "x" + HOSTILE, "options": "\x1b[2J"}) + "\n", "utf-8")
    seen = b""
    for args in (["import", str(bad), "--skip-invalid"], ["stats"], ["runs"], ["agreement"],
                 ["agreement", "--format", "json"], ["export", "-o", str(tmp_path / f"o{OSC_TITLE}")]):
        code, out = cli_bytes("--db", db, *args, cwd=tmp_path)
        assert code == 0 and not RAW.search(out), (args, out)
        assert b"Traceback" not in out
        seen += out
    assert "␛]0;pwned␇".encode() in seen  # shown, not obeyed
    # the stored text is unchanged
    with Store(db) as s:
        q = s.questions.get_question("q-evil")
        assert q.options[0].mesra1 == f"می{ZWNJ}رود {HOSTILE} دلِ" and q.source_id == "7" + HOSTILE


def test_model_name_and_endpoint_error_are_shown_safely(hostile_db, tmp_path):
    error = "upstream said \x1b]0;owned\x07\x1b[2J\x9b1m"
    with LLMServer(lambda body, n: Reply(400, {"error": {"message": error}})) as server:
        code, out = cli_bytes("--db", str(hostile_db), "run", "llm", "--base-url", server.url,
                              "--model", "m\x1b[31mevil\x07", "--max-retries", "0", "--questions", "all",
                              cwd=tmp_path)
    assert not RAW.search(out), out
    assert "m␛[31mevil␇".encode() in out
    code, out = cli_bytes("--db", str(hostile_db), "runs", cwd=tmp_path)
    assert code == 0 and not RAW.search(out) and "m␛[31mevil␇".encode() in out
    with Store(hostile_db) as s:  # the endpoint's message is stored as received
        run = s.runs.run_summaries()[0].run
        assert any(error in (p.error or "") for p in s.runs.predictions(run.id))


def test_in_process_main_sanitizes_and_restores_streams(hostile_db, capsys):
    from persian_tui.cli import main

    out_before = sys.stdout
    assert main(["--db", str(hostile_db), "stats"]) == 0
    assert sys.stdout is out_before
    out = capsys.readouterr().out
    assert "\x1b" not in out and "␛" in out


def test_even_an_unexpected_traceback_is_sanitized(hostile_db, capsys, monkeypatch):
    from persian_tui import cli
    from persian_tui.cli import bank

    def bug(args):
        raise RuntimeError("bug quoting data \x1b]0;x\x07")

    monkeypatch.setattr(bank, "cmd_stats", bug)  # parser() binds the name when main runs
    assert cli.main(["--db", str(hostile_db), "stats"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" in err and "bug quoting data ␛]0;x␇" in err and "\x1b" not in err


# ---------------------------------------------------------------- no traceback from undecodable arguments


@pytest.mark.parametrize("args", [
    ["corpus", "search", "w", "--poet", b"\xff".decode("utf-8", "surrogateescape")],
    ["corpus", "search", "w", "--form", b"\xff".decode("utf-8", "surrogateescape")],
    ["corpus", "search", "w", "--metre", b"\xfe".decode("utf-8", "surrogateescape")],
    ["corpus", "search", b"\xff".decode("utf-8", "surrogateescape")],
    ["export", "--category", b"\xff".decode("utf-8", "surrogateescape")],
], ids=["poet", "form", "metre", "words", "category"])
def test_undecodable_arguments_are_one_line(small_db, tmp_path, args, capsys):
    if args[0] == "export":
        args = [*args, "-o", str(tmp_path / "o.jsonl")]
    code = main(["--db", str(small_db), *args])
    err = capsys.readouterr().err
    assert code == 2 and "not valid UTF-8 text" in err and "Traceback" not in err, err


def test_undecodable_bytes_in_a_real_argv(small_db):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, "-m", "persian_tui.cli", "--db", str(small_db), "corpus", "search", "w",
                        "--poet", b"\xff"], capture_output=True, env=env, timeout=120)
    assert r.returncode == 2 and b"--poet: not valid UTF-8 text" in r.stderr and b"Traceback" not in r.stderr


# ------------------------------------------------------------------ a closed pipe


@pytest.fixture(scope="module")
def pipe_db(tmp_path_factory):
    db = tmp_path_factory.mktemp("pipe") / "pipe.db"
    assert main(["--db", str(db), "sample"]) == 0
    return db


@pytest.mark.parametrize("args", [["stats"], ["runs"], ["agreement"], ["items"], ["--help"], ["corpus", "stats"]],
                         ids=" ".join)
def test_a_closed_pipe_ends_quietly(pipe_db, args):
    """`persian-tui stats | head -1`: the reader has gone before the output is written. Like
    ripgrep, the command ends with status 0 and says nothing (git dies of SIGPIPE, 141)."""
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run([sys.executable, "-m", "persian_tui.cli", "--db", str(pipe_db), *args],
                              stdout=write, stderr=subprocess.PIPE, cwd=ROOT, timeout=120,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    finally:
        os.close(write)
    assert (done.returncode, done.stderr.decode()) == (0, "")


SOURCES = DATA / "sources"


KEYS = SOURCES / "book-keys.json"


def test_cli_says_linked_with_the_uid(tmp_path, capsys):
    db = str(tmp_path / "c.db")
    assert main(["--db", db, "import", str(SOURCES / "book-full.json"), "--answers", str(KEYS)]) == 0
    capsys.readouterr()
    assert main(["--db", db, "import", str(SOURCES / "bench.json")]) == 0
    out = capsys.readouterr().out
    with Store(db) as store:
        target = store.sources.questions_by_source("book-full")["2"][0].uid
    assert f"bench #2 -> {target}" in out and "2 new, 6 linked" in out
    assert main(["--db", db, "stats"]) == 0
    out = capsys.readouterr().out
    assert "source references: 21 of 15 question(s); 6 known by two or more" in out
    assert "new 2, linked 6" in out


def test_export_of_nothing_warns(sample_db, tmp_path, capsys):
    out = tmp_path / "none.jsonl"
    assert main(["--db", sample_db, "export", "-o", str(out), "--status", "retired"]) == 0
    cap = capsys.readouterr()
    assert "exported 0 question(s)" in cap.out
    assert "warning: no question matched --status retired" in cap.err and "is empty" in cap.err


def test_cli_report_without_runs(tmp_path, capsys):
    Store(tmp_path / "empty.db").close()
    assert main(["--db", str(tmp_path / "empty.db"), "report"]) == 1
    assert "no runs to report" in capsys.readouterr().err


# ------------------------------------------------------------------ a CLI that starts at once

HEAVY = ("openai", "numpy", "torch", "scipy", "sentence_transformers", "pydantic", "textual", "rich",
         "hazm", "sklearn", "statsmodels", "matplotlib", "inspect_ai", "httpx", "httpx2", "aiohttp", "asyncio")
LOADED = """
import contextlib, io, json, sys
from persian_tui.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        code = main(sys.argv[1:])
    except SystemExit as e:
        code = e.code
print(json.dumps({"code": code, "heavy": sorted(m for m in HEAVY if m in sys.modules)}))
""".replace("HEAVY", repr(HEAVY))


@pytest.mark.parametrize("argv", [["--help"], ["run", "llm", "--help"], ["stats"], ["runs"], ["export"],
                                  ["corpus", "stats"], ["setting"]])
def test_light_commands_import_no_heavy_library(argv, tmp_path):
    """`--help` and the commands that only read the database load none of the libraries that
    make a start slow (each heavy library is imported by the commands that use it): checked in
    a fresh process, as a user starts it."""
    db = tmp_path / "light.db"
    assert main(["--db", str(db), "sample"]) == 0
    out = subprocess.run([sys.executable, "-c", LOADED, "--db", str(db), *argv], capture_output=True,
                         text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["code"] in (0, None) and result["heavy"] == []
