"""What a release's datasheet says was done: labels, annotators, agreement and adjudications in
numbers (0 included, never "labelled blind by annotators, adjudicated" without labels), which runs
fed its item analysis and leaderboard, and the ranking rule the leaderboard follows."""

from factories import couplets, make_question

from persian_tui.models import Prediction
from persian_tui.releases.build import RANKING_RULE, build_release

N = 8


def curated(store):
    store.questions.add_questions([make_question(f"q-{i:02d}", couplets=couplets(i), key=i % 4 + 1, status="curated")
                                   for i in range(N)])
    return store


def datasheet(store, folder, **kw) -> str:
    build_release(store, "v1", folder, **kw)
    return (folder / "README.md").read_text(encoding="utf-8")


def made(text: str) -> str:
    return text.split("## How it was made")[1].split("## Loading")[0]


def run(store, model, right):
    """A run right on the first `right` questions, wrong (the next option) on the rest."""
    preds = [Prediction(f"q-{i:02d}", i % 4 + 1 if i < right else (i + 1) % 4 + 1, "ok") for i in range(N)]
    return store.runs.create_run("imported", model, {}, status="done", total=N, predictions=preds).id


def test_no_labels_is_said_in_numbers(store, tmp_path):
    text = datasheet(curated(store), tmp_path / "v1")
    section = made(text)
    assert "blind" not in text and "adjudicated" not in text
    assert "- Labels: 0: no annotator answered these questions" in section
    assert "- Agreement: not measured (0 labels)." in section
    assert f"- Adjudication: 0 adjudication decision(s) on 0 of {N} questions; {N} question(s) were marked " \
           "curated without one." in section
    assert "- Item analysis and leaderboard: no runs" in section
    assert "from no runs and 0 human label(s)" in text


def test_labels_agreement_and_adjudications_are_counted(store, tmp_path):
    curated(store)
    for i in range(N):
        store.labels.add_label(f"q-{i:02d}", "ann-a", i % 4 + 1)
        if i < 6:
            store.labels.add_label(f"q-{i:02d}", "ann-b", i % 4 + 1 if i < 5 else 1)
    store.labels.add_label("q-07", "ann-b", skipped=True)
    store.curation.adjudicate("q-05", "reza", "key", key=1, reason="the annotators' reading")
    store.curation.adjudicate("q-01", "reza", "accept")
    section = made(datasheet(store, tmp_path / "v1"))
    assert f"- Labels: 15 recorded (14 answer(s), 1 skip(s)) by 2 annotator(s), on {N} of {N} questions " \
           "(6 with two or more answers)." in section
    assert "labelling screen hides the key" in section and "import-labels" in section
    assert "- Agreement: the majority answer matches the key on 7 question(s) and differs on 0; Fleiss' kappa" \
           in section
    assert f"- Adjudication: 2 adjudication decision(s) on 2 of {N} questions (1 key accepted, 1 key set); " \
           f"{N - 2} question(s) were marked curated without one." in section


def test_the_runs_and_the_ranking_rule_are_named(store, tmp_path):
    curated(store)
    low, high, tie = run(store, "m-low", 4), run(store, "m-high", 6), run(store, "m-tie", 6)
    text = datasheet(store, tmp_path / "v1", run_ids=[tie, low, high])
    named = f"3 run(s): #{low} m-low (imported), #{high} m-high (imported), #{tie} m-tie (imported)"
    assert f"- Item analysis and leaderboard: {named}, {RANKING_RULE}." in made(text)
    assert f"from {named} and 0 human label(s)" in text.split("## Item analysis")[1]
    board = text.split("## Leaderboard")[1].split("## Known issues")[0]
    assert f"Runs: {named} (chosen with `--runs`), {RANKING_RULE}." in board
    # the order the rule states: accuracy, then the lower run id on a tie
    rows = [line.split(" | ")[1] for line in board.splitlines() if line.startswith("| ") and "#" in line]
    assert rows == [f"#{high}", f"#{tie}", f"#{low}"]
    csv_ids = [line.split(",")[1] for line in (tmp_path / "v1" / "leaderboard.csv").read_text().splitlines()[1:]]
    assert csv_ids == [str(high), str(tie), str(low)]


def test_the_majority_key_baseline_is_stated(store, tmp_path):
    store.questions.add_questions([make_question(f"q-{i:02d}", couplets=couplets(i), key=4 if i < 5 else i % 3 + 1,
                                                 status="curated") for i in range(N)])
    board = datasheet(store, tmp_path / "v1").split("## Leaderboard")[1]
    assert ("Majority-key baseline: always answering key 4 scores 62.5% (5/8 keyed questions, Wilson 95 % "
            "30.6%–86.3%; keys 1/2/3/4: 1/1/1/5); chance is 25 %.") in board
