"""Nothing from data drives the terminal: the display sanitizer and the CLI's output."""

import json
import os
import subprocess
import sys

import pytest
from factories import HOSTILE, OSC_TITLE, RAW, ROOT, make_question
from llm_server import LLMServer, Reply

from persian_tui import bidi, display
from persian_tui.store import Store

ZWNJ, ZWJ, LRM, RLM, ALM = "\u200c", "\u200d", "\u200e", "\u200f", "\u061c"
# raw bytes a terminal would act on: C0 (but \n, \t), DEL, C1 (UTF-8 \xc2\x80-\xc2\x9f), bidi overrides


def test_clean_replaces_controls_with_visible_placeholders():
    out = display.clean(HOSTILE)
    assert out == "␛]0;pwned␇␛[2J␛[31mred␛[0m\\x9b31m␈␇␍back"
    assert display.clean("a\nb\tc") == "a\nb\tc" and display.line("a\nb") == "a␤b"
    assert display.clean("\x00\x7f\x85\u2028") == "␀␡\\x85␤"
    assert display.clean("x\u202ey\u2066z\u2069") == "x⟨RLO⟩y⟨LRI⟩z⟨PDI⟩"
    assert display.clean("\ud800") == "\ufffd"
    assert display.clean(display.clean(HOSTILE)) == display.clean(HOSTILE)  # idempotent


def test_persian_marks_and_diacritics_are_kept():
    text = f"می{ZWNJ}رود {ZWJ}{LRM}{RLM}{ALM} دلِ مَن"
    assert display.clean(text) is text  # untouched, not even copied
    assert ZWNJ in "".join(bidi.display_lines(text, 40, bidi.APP))
    assert "ِ" in bidi.display_line(text, 40, bidi.APP)


def test_json_safe_keeps_the_data():
    data = {"m": HOSTILE + "\u202e"}
    text = display.json_safe(json.dumps(data, ensure_ascii=False))
    assert not RAW.search(text.encode()) and json.loads(text) == data


def test_bidi_layout_shows_placeholders_in_every_mode():
    for mode in (bidi.APP, bidi.TERMINAL, bidi.OFF):
        lines = bidi.display_lines("بیت " + HOSTILE, 80, mode)
        cell = bidi.display_line("بیت " + HOSTILE, 80, mode)
        for shown in lines + [cell]:
            assert not RAW.search(shown.encode()) and "␛" in shown and "␍" in shown


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
    from factories import COUPLETS

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

    def bug(args):
        raise RuntimeError("bug quoting data \x1b]0;x\x07")

    monkeypatch.setattr(cli, "cmd_stats", bug)  # parser() binds the name when main runs
    assert cli.main(["--db", str(hostile_db), "stats"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" in err and "bug quoting data ␛]0;x␇" in err and "\x1b" not in err
