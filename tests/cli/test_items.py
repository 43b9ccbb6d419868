"""`persian-tui items` and `persian-tui samples` (cli/items.py): what they print from data."""

import json

from factories import make_question

from persian_tui.cli import main
from persian_tui.models import Prediction
from persian_tui.store import Store

# ---------------------------------------------------------------- consistency


def test_items_json_escapes_controls_and_bidi_overrides(tmp_path, capsys):
    s = Store(tmp_path / "i.db")
    s.questions.add_questions([make_question("q-1", source_name="src\x9b\u202eevil", source_id="1")])
    s.runs.create_run("llm", "m", {}, status="done", predictions=[Prediction("q-1", 1, "ok")])
    assert main(["--db", str(s.path), "items", "--format", "json"]) == 0
    out = capsys.readouterr().out
    assert "\\u009b" in out and "\\u202e" in out and "\x9b" not in out and "\u202e" not in out
    assert json.loads(out)[0]["source"] == "src\x9b\u202eevil"
    s.close()


def test_samples_table_shows_missing_figures_as_a_dash(tmp_path, capsys):
    s = Store(tmp_path / "s.db")
    s.questions.add_questions([make_question("q-1")])
    run = s.runs.create_run("llm", "m", {"samples": 2}, status="done",
                            predictions=[Prediction("q-1", None, "api_error", sample=k) for k in range(2)])
    assert main(["--db", str(s.path), "samples", str(run.id)]) == 0
    out = capsys.readouterr().out
    assert "None" not in out, out
    s.close()
