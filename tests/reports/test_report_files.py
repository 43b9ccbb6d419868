"""The report as text, Markdown, CSV, JSON and PNG (reports/report_files.py): deterministic to
the byte, strict JSON, missing figures shown as a dash, how ties were scored."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from factories import TIE_KEYS, add_questions, add_run, make_question, voted_run

from persian_tui import stats
from persian_tui.cli import main
from persian_tui.models import Prediction
from persian_tui.reports.figures import build_report
from persian_tui.reports.report_files import render_files, render_text
from persian_tui.store import Store

# ---------------------------------------------------------------- outputs


def test_reports_are_deterministic_to_the_byte(two_runs, tmp_path):
    store, a, b = two_runs
    first = {f: render_files(build_report(store, seed=3, n_boot=300), f) for f in ("md", "csv", "json")}
    second = {f: render_files(build_report(store, seed=3, n_boot=300), f) for f in ("md", "csv", "json")}
    assert first == second
    assert set(first["md"]) == {"report.md", "leaderboard.png", "position.png"}
    assert first["md"]["leaderboard.png"][:8] == b"\x89PNG\r\n\x1a\n"
    assert b"Matplotlib" not in first["md"]["leaderboard.png"]  # no Software metadata
    assert b"![Leaderboard" in first["md"]["report.md"] and b"](position.png)" in first["md"]["report.md"]
    data = json.loads(first["json"]["report.json"])
    assert data["questions"] == 5 and data["leaderboard"][0]["wilson_low"] == pytest.approx(0.375535, abs=1e-6)
    other = render_files(build_report(store, seed=4, n_boot=300), "json")
    assert other != first["json"]  # the seed matters (bootstrap intervals)


def test_cli_report_formats(two_runs, tmp_path, capsys):
    store, a, b = two_runs
    db = str(store.path)
    assert main(["--db", db, "report"]) == 0
    out = capsys.readouterr().out
    assert "5 question(s) answered by all" in out and "Wilson 95 %" in out
    assert "model-a" in out and "How to read it" in out
    expected = {"md": {"report.md", "leaderboard.png", "position.png"}, "json": {"report.json"},
                "csv": {"leaderboard.csv", "pairs.csv", "breakdowns.csv", "position.csv", "confusion.csv",
                        "agreement.csv", "hardest.csv", "human.csv", "items.csv", "clusters.csv",
                        "baseline.csv"}}
    for fmt, names in expected.items():
        folder = tmp_path / fmt
        assert main(["--db", db, "report", "--format", fmt, "-o", str(folder), "--bootstrap", "200"]) == 0
        assert {p.name for p in folder.iterdir()} == names
        assert "file(s) in" in capsys.readouterr().out
    rows = list(csv.DictReader(open(tmp_path / "csv" / "leaderboard.csv", encoding="utf-8")))
    assert [(r["run_id"], r["correct"], r["total"], r["letters"]) for r in rows] == [(str(a), "4", "5", "a"),
                                                                                       (str(b), "3", "5", "a")]
    assert main(["--db", db, "report", "--runs", f"{b}", "--format", "json", "-o", str(tmp_path / "one")]) == 0
    assert json.loads((tmp_path / "one" / "report.json").read_text())["run_ids"] == [b]
    capsys.readouterr()
    assert main(["--db", db, "report", "--runs", "1,x"]) == 1
    assert main(["--db", db, "report", "--runs", "42"]) == 1
    assert main(["--db", db, "report", "--questions", "curated"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["persian-tui: error: --runs takes run ids (1 to 9223372036854775807) separated by commas, "
                   "e.g. 1,2,5 (got '1,x')",
                   "persian-tui: error: no run 42",
                   f"persian-tui: error: runs {a}, {b} share no question with a key in the question set 'curated'"]


def test_json_pairs_carry_mde(two_runs):
    store, a, b = two_runs
    data = json.loads(render_files(build_report(store, n_boot=50), "json")["report.json"])
    (pair,) = data["pairs"]
    psi = (pair["a_only"] + pair["b_only"]) / pair["n"]
    assert pair["mde"] is None  # 5 questions, 3 discordant: no difference is detectable
    n_for_e = pair["n_needed"]  # the smallest n whose exact power reaches 80 % (not Connor's formula)
    assert stats.mcnemar_power(psi, 0.05, n_for_e) >= 0.8 > max(
        stats.mcnemar_power(psi, 0.05, n) for n in range(n_for_e - 8, n_for_e))
    assert n_for_e != int(stats.connor_n(psi, 0.05)) and n_for_e > pair["n"]
    assert pair["n_needed_adjusted"] == pair["n_needed"]  # one pair: Holm's first step is alpha
    assert pair["diff_low_simultaneous"] == pair["diff_low"]


def test_reports_are_strict_json_and_never_show_non_finite_figures(bank10, tmp_path, capsys):
    """Figures stored before replies were validated (or by other writers) may be infinite:
    every report format shows them as missing, report.json is strict JSON."""
    from persian_tui.models import Prediction

    r = bank10.runs.create_run("llm", "old", {}, total=10, status="done", predictions=[
        Prediction(f"q-{i:03d}", (i % 4) + 1, "ok", tokens_in=5, tokens_out=1,
                   latency=float("inf") if i == 0 else 0.5, cost=float("inf") if i == 1 else 0.01)
        for i in range(10)])
    with bank10.tx():  # as an older version or another writer may have left them
        bank10.conn.execute("UPDATE predictions SET cost = 1e309, tokens_in = 'many', latency = 1e309 "
                            "WHERE run_id = ? AND question_id = (SELECT id FROM questions WHERE uid = 'q-002')",
                            (r.id,))
    assert [p.cost for p in bank10.runs.predictions(r.id)][:3] == [0.01, None, None]
    for fmt in ("json", "md", "csv", "table"):
        out_dir = tmp_path / fmt
        assert main(["--db", str(bank10.path), "report", "--runs", str(r.id), "--format", fmt,
                     "--output", str(out_dir)]) == 0, fmt
        text = capsys.readouterr().out + "".join(
            p.read_text() for p in out_dir.glob("*") if p.suffix in (".json", ".md", ".csv"))
        assert "inf" not in text.lower().replace("information", "") and "nan" not in text.lower(), fmt
    data = json.loads((tmp_path / "json" / "report.json").read_text(),
                      parse_constant=lambda c: pytest.fail(f"non-JSON constant {c}"))
    (row,) = data["leaderboard"]
    assert row["accuracy"] == 1.0 and row["cost"] == 0.08 and row["latency_mean"] == 0.5  # the known ones
    assert row["tokens_in"] == 45


def test_report_files_say_how_ties_were_scored(tied):
    store, voter, single = tied
    r = build_report(store, n_boot=50)
    text = render_text(r)
    assert f"Tied majority votes (#{voter}: 2)" in text and "never the answer given first" in text
    csvs = render_files(r, "csv")
    board = {row["run_id"]: row for row in csv.DictReader(io.StringIO(csvs["leaderboard.csv"].decode()))}
    assert board[str(voter)]["ties"] == "2" and board[str(voter)]["answered_correct"] == "3"
    data = json.loads(render_files(r, "json")["report.json"])
    from persian_tui.reports.notes import leader_note, pairs_note

    assert "Tied majority votes" in leader_note(r) and "n leaves those questions out" in pairs_note(r, 1, 0)
    assert {b["run_id"]: b["ties"] for b in data["leaderboard"]} == {voter: 2, single: 0}


def test_a_third_of_a_point_is_shown_as_a_fraction(store):
    add_questions(store, TIE_KEYS, status=["curated"] * 4)
    voter = voted_run(store, {"q1": [1, 2, 3], "q2": [2, 2, 2], "q3": [3, 3, 3], "q4": [4, 4, 4]})
    (row,) = build_report(store, n_boot=50).leaderboard
    assert row.answered_correct == pytest.approx(3 + 1 / 3)
    assert "3.33/4" in render_text(build_report(store, n_boot=50))
    assert row.run_id == voter


def test_report_of_a_run_where_no_request_succeeded_shows_a_dash(tmp_path, capsys):
    s = Store(tmp_path / "rep.db")
    s.questions.add_questions([make_question(f"q-{i}") for i in range(4)])
    ok = s.runs.create_run("llm", "good", {}, status="done",
                           predictions=[Prediction(f"q-{i}", 1, "ok") for i in range(4)])
    bad = s.runs.create_run("llm", "down", {}, status="failed",
                            predictions=[Prediction(f"q-{i}", None, "api_error", error="HTTP 500") for i in range(4)])
    assert main(["--db", str(s.path), "report", "--runs", f"{ok.id},{bad.id}"]) == 0
    out = capsys.readouterr().out
    (line,) = [ln for ln in out.splitlines() if f"#{bad.id} " in ln and "down" in ln][:1]
    # no accuracy of 0.0 % (its invalid share, 100.0 %, is a true figure)
    assert not re.search(r"(?<![\d.])0\.0 ?%", line) and "—" in line, line
    s.close()


def test_controls_from_data_never_reach_report_files(store):
    """An ESC or BEL in a model or category name is written as its picture."""
    add_questions(store, [1, 2, 3], category=["\x1b[31mred", "a", "a"])
    add_run(store, "evil\x1b]0;pwned\x07model", [1, 2, 1])
    report = build_report(store, n_boot=50)
    for fmt in ("md", "csv"):
        for name, data in render_files(report, fmt).items():
            if name.endswith((".md", ".csv")):
                text = data.decode("utf-8")
                assert "\x1b" not in text and "\x07" not in text, name
    assert "evil" in render_files(report, "md")["report.md"].decode("utf-8")


def test_leaderboard_png_keeps_every_label_inside_the_picture(store):
    """Long model names push the bars right; the x-axis label, the tick labels and the legend
    still lie whole inside the figure (nothing cut at its edge)."""
    from persian_tui.reports.report_charts import leaderboard_figure

    add_questions(store, [1, 2, 3, 4, 1, 2, 3, 4])
    for n in range(3):
        add_run(store, f"organisation-with-a-long-name/model-with-an-even-longer-name-v{n}",
                [1, 2, 3, 4, 1, 2, (n % 4) + 1, 4])
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = leaderboard_figure(build_report(store, seed=3, n_boot=50))
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    ax = fig.axes[0]
    texts = [ax.xaxis.label, *ax.get_yticklabels(), *ax.get_xticklabels(), ax.get_legend()]
    width, height = fig.bbox.width, fig.bbox.height
    for t in texts:
        box = t.get_window_extent(renderer)
        assert box.x0 >= 0 and box.y0 >= 0 and box.x1 <= width and box.y1 <= height, (t, box, width)


def test_the_leaderboard_is_split_by_origin_when_there_is_more_than_one(store):
    add_questions(store, [1, 2, 3, 4, 1, 2], origin=["book", "book", "book", "fresh", "fresh", "authored"])
    add_run(store, "model-a", [1, 2, 3, 1, 1, 2])  # book 3/3, fresh 1/2, authored 1/1
    report = build_report(store, seed=3, n_boot=200)
    split = {b.value: (b.correct, b.total) for b in report.breakdowns if b.dimension == "origin"}
    assert split == {"authored": (1, 1), "book": (3, 3), "fresh": (1, 2)}
    text = render_text(report)
    block = text.split("== Leaderboard by origin", 1)[1].split("\n\n", 1)[0]
    assert [line.split()[:3] for line in block.splitlines()[3:]] == [
        ["authored", "1", "100"], ["book", "3", "100"], ["fresh", "2", "50"]]
    assert "### Leaderboard by origin" in render_files(report, "md")["report.md"].decode()
    assert "origin,fresh," in render_files(report, "csv")["breakdowns.csv"].decode()
    assert "Accuracy by origin" not in text  # once, beside the leaderboard


def test_one_origin_is_no_split(two_runs):
    store, _, _ = two_runs
    report = build_report(store, seed=3, n_boot=200)
    assert not any(b.dimension == "origin" for b in report.breakdowns)
    assert "by origin" not in render_text(report)
