"""Inter-annotator agreement and the human baseline (annotation/agreement.py), and the
`agreement` command."""

import json

import pytest
from factories import make_question

from persian_tui import stats
from persian_tui.annotation.agreement import agreement_report
from persian_tui.cli import main


def test_agreement_report(labelled):
    overall, *per_category = agreement_report(labelled)
    assert (overall.items, overall.labelled, overall.multi) == (4, 4, 4)
    assert (overall.majority_agrees, overall.majority_disagrees) == (3, 0)
    accuracy = {a.annotator: (a.correct, a.total) for a in overall.annotators}
    assert accuracy == {"ali": (3, 4), "reza": (3, 4), "sara": (2, 4)}
    ali_sara = next(p for p in overall.cohen_pairs if (p["a"], p["b"]) == ("ali", "sara"))
    assert ali_sara["items"] == 4
    assert ali_sara["kappa"] == pytest.approx(stats.cohen_kappa([1, 2, 3, 1], [1, 3, 3, 2]))
    assert overall.fleiss_items == 4 and overall.alpha_items == 4
    assert [a.scope for a in per_category] == ["عشق", "قناعت"]
    assert per_category[0].items == 2


@pytest.fixture
def bank(store):
    store.questions.add_questions([make_question("q-1", source_name="book", source_id="6"),
                                   make_question("q-2", key=2, source_name="book", source_id="7")])
    return store


def test_agreement_command(bank, tmp_path, capsys):
    for uid, a, b in (("q-1", 1, 1), ("q-2", 2, 3)):
        bank.labels.add_label(uid, "ali", a)
        bank.labels.add_label(uid, "sara", b)
    db = str(bank.path)
    assert main(["--db", db, "agreement"]) == 0
    out = capsys.readouterr().out
    assert "accuracy vs key ali: 2/2" in out and "kappa ali ~ sara" in out
    assert main(["--db", db, "agreement", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data[0]["scope"] == "all" and data[0]["multi"] == 2
