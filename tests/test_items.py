"""Item analysis: difficulty, rest-score discrimination against scipy, distractors, flags
(a planted wrong key is flagged suspect_key), the items command."""

import json

import numpy as np
import pytest
from factories import add_questions, add_run

from persian_tui.cli import main
from persian_tui.reports.items import item_analysis, rest_discrimination


def test_rest_discrimination_matches_scipy_pointbiserialr():
    from scipy.stats import pointbiserialr

    rng = np.random.default_rng(5)
    ability = rng.normal(size=25)
    right = rng.random((25, 40)) < 1 / (1 + np.exp(-(ability[:, None] - rng.normal(size=40)[None, :])))
    answered = np.ones_like(right)
    disc = rest_discrimination(right, answered)
    for j in range(40):
        x = right[:, j].astype(float)
        rest = (right.sum(axis=1) - x) / 39
        if x.std() == 0:
            assert np.isnan(disc[j])
            continue
        assert disc[j] == pytest.approx(pointbiserialr(x, rest).statistic, abs=1e-12)


def _bank(store):
    # 10 questions, key 1 everywhere except q3, whose key is planted wrong (true answer 2)
    keys = [1] * 10
    keys[2] = 4
    add_questions(store, keys)
    runs = []
    for skill in range(10):  # run s gets the first (s + 3) questions right, the rest wrong (spread)
        answers = [1 if j < skill + 3 else 2 + (skill + j) % 3 for j in range(10)]
        answers[2] = 2 if skill >= 1 else 4  # every run but the weakest chooses 2 on q3
        runs.append(add_run(store, f"model-{skill}", answers))
    return runs


def test_planted_wrong_key_is_flagged_suspect_key(store):
    runs = _bank(store)
    rows = item_analysis(store, store.questions.questions(), runs)
    flagged = {r.uid: r for r in rows if "suspect_key" in r.flags}
    assert list(flagged) == ["q3"]
    q3 = flagged["q3"]
    assert rows[0].uid == "q3"  # the most serious flag sorts first
    assert q3.runs.distractors[2] == [f"#{r} model-{s}" for s, r in enumerate(runs) if s >= 1]
    assert q3.runs.discrimination < 0 < q3.runs.distractor_discrimination[2]
    assert q3.evidence["suspect_key"].startswith("9 of 10 runs chose 2, 1 the key 4 (binomial p 0.011)")
    assert "upper half (5 runs by rest score): 5 chose 2, 0 the key; 2's point-biserial +" in q3.evidence["suspect_key"]
    assert q3.details["suspect_key"]["p_value"] == pytest.approx(11 / 1024)
    assert q3.runs.difficulty == pytest.approx(1 / 10)
    q1 = next(r for r in rows if r.uid == "q1")
    assert "too_easy" in q1.flags and q1.runs.difficulty == 1.0


def test_low_agreement_from_human_labels(store):
    from persian_tui.models import Label

    add_questions(store, [1, 2])
    store.labels.add_labels([Label("q1", "ana", 1), Label("q1", "bob", 3), Label("q2", "ana", 2),
                             Label("q2", "bob", 2)])
    rows = {r.uid: r for r in item_analysis(store, store.questions.questions(), [])}
    assert rows["q1"].flags == ["low_agreement"] and rows["q2"].flags == []
    assert rows["q1"].humans.distractors[3] == ["bob"] and rows["q1"].humans.difficulty == 0.5


def test_items_command_formats(store, tmp_path, capsys):
    runs = _bank(store)
    db = str(store.path)
    assert main(["--db", db, "items", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data[0]["uid"] == "q3" and data[0]["flags"] == ["suspect_key", "low_discrimination"]
    assert data[0]["runs"]["distractors"]["2"]
    assert main(["--db", db, "items", "--format", "csv", "--runs", ",".join(map(str, runs[:3]))]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("uid,") and len(out) == 11
    assert main(["--db", db, "items"]) == 0
    assert "suspect_key" in capsys.readouterr().out
    assert main(["--db", db, "items", "--runs", "99"]) != 0


def test_every_report_format_has_the_item_section(store):
    from persian_tui.reports.figures import build_report
    from persian_tui.reports.report_files import render_files, render_text

    _bank(store)
    report = build_report(store, n_boot=50)
    assert report.items[0].uid == "q3" and report.items[0].flags == ["suspect_key", "low_discrimination"]
    text = render_text(report)
    assert "== Item analysis" in text and "q3 suspect_key: 9 of 10 runs chose 2, 1 the key 4" in text
    md = render_files(report, "md")["report.md"].decode()
    assert "## Item analysis" in md and "q3 suspect_key" in md
    data = json.loads(render_files(report, "json")["report.json"])
    assert data["items"][0]["uid"] == "q3" and data["items"][0]["flags"] == ["suspect_key", "low_discrimination"]
    items_csv = render_files(report, "csv")["items.csv"].decode().splitlines()
    assert items_csv[1].startswith("q3,") and "suspect_key" in items_csv[1]
