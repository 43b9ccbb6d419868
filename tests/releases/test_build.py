"""Versioned releases (releases/build.py): frozen in the store (immutable, unique names,
tamper-evident), written byte for byte the same from the same database, readable as the JSON data
file `datasets.load_dataset("json", ...)` takes; the datasheet; the release leaderboard."""

import asyncio
import csv
import json
import sqlite3
import threading

import pytest
import yaml
from factories import COUPLETS, couplets, make_question
from llm_server import LLMServer, chat

from persian_tui.bank import jsonl
from persian_tui.cli import main
from persian_tui.files.inputs import InputError
from persian_tui.models import Prediction, ReleaseItem
from persian_tui.releases.build import RANKING_RULE, build_release, current_items
from persian_tui.releases.harness_files import harness_files
from persian_tui.runs import LLMRunSpec, RunError, create_llm_run, execute_llm_run
from persian_tui.store import ReleaseExists, Store

ZWNJ = "\u200c"




@pytest.fixture
def bank(store):
    qs = [make_question(f"q-{i:02d}", couplets=couplets(i, first=f"می{ZWNJ}خانه"), key=i % 4 + 1, status="curated",
                        category=["تشبیه", "عشق"][i % 2], source_name="کنکور", source_id=str(i))
          for i in range(8)]
    qs.append(make_question("q-draft", couplets=couplets(99, first=f"می{ZWNJ}خانه"), status="draft"))
    store.questions.add_questions(qs)
    for i in range(8):
        store.labels.add_label(f"q-{i:02d}", "ann-a", i % 4 + 1)
        store.labels.add_label(f"q-{i:02d}", "ann-b", i % 4 + 1 if i < 6 else 1)
    return store


def read_dataset(folder):
    """What datasets' json builder does with this folder: the README's YAML header names the data
    file of each split; every line of it is one JSON object (UTF-8)."""
    text = (folder / "README.md").read_text(encoding="utf-8")
    assert text.startswith("---\n")
    header = yaml.safe_load(text.split("---\n")[1])
    (config,) = header["configs"]
    (split,) = config["data_files"]
    rows = [json.loads(line) for line in (folder / split["path"]).read_text(encoding="utf-8").splitlines()]
    return header, split["split"], rows


def files_of(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def answer_key(body, n):
    text = body["messages"][-1]["content"]
    i = int(text.split(f"می{ZWNJ}خانه ")[1].split()[0])
    return chat(str(i % 4 + 1))


def test_a_release_builds_twice_to_identical_bytes_and_reads_back(bank, tmp_path):
    with LLMServer(answer_key) as server:
        spec = LLMRunSpec(base_url=server.url, model="m", questions="curated")
        run = create_llm_run(bank, spec)
        asyncio.run(execute_llm_run(bank.path, run.id))
    # the same database and options (the folder's name among them: the datasheet's commands name it)
    a = build_release(bank, "v1.0", tmp_path / "a" / "v1.0", run_ids=[run.id], license_id="cc-by-4.0")
    b = build_release(bank, "v1.0", tmp_path / "b" / "v1.0", run_ids=[run.id], license_id="cc-by-4.0")
    assert a.created and not b.created
    fa, fb = files_of(tmp_path / "a" / "v1.0"), files_of(tmp_path / "b" / "v1.0")
    harness = set(harness_files("v1.0", a.release.digest))  # the Inspect and lm-eval tasks
    assert fa == fb and set(fa) == {"README.md", "data/test.jsonl", "release.json", "leaderboard.csv", *harness}
    header, split, rows = read_dataset(tmp_path / "a" / "v1.0")
    assert header["license"] == "cc-by-4.0" and header["language"] == ["fa"] and split == "test"
    assert header["size_categories"] == ["n<1K"]
    assert [r["uid"] for r in rows] == [f"q-{i:02d}" for i in range(8)]  # the draft is not in it
    assert ZWNJ in rows[0]["options"][0]["mesra1"]  # stored text exactly
    assert [jsonl.from_record(r).key for r in rows] == [i % 4 + 1 for i in range(8)]
    manifest = json.loads(fa["release.json"])
    assert manifest["digest"] == a.release.digest and len(manifest["items"]) == 8
    readme = fa["README.md"].decode()
    for part in ("## Counts", "### By category", "| تشبیه | 4 |", "## Agreement (human labels)",
                 "majority agrees with the key: 6; disagrees: 0", "## Item analysis", "## Leaderboard",
                 "| 1 | #1 | m | llm | 100.0%", "## Known issues", "## How it was made", "load_dataset"):
        assert part in readme, part
    assert "low_agreement" in readme  # two annotators disagree on q-06 and q-07


def test_a_release_is_immutable_and_its_name_unique(bank, tmp_path):
    build_release(bank, "v1", tmp_path / "v1")
    before = files_of(tmp_path / "v1")
    q = bank.questions.get_question("q-03")
    q.explanation = "تغییر"
    bank.curation.update_question(q, "editor")
    with pytest.raises(ReleaseExists, match="1 changed, 0 added, 0 removed"):
        build_release(bank, "v1", tmp_path / "again")
    assert not (tmp_path / "again").exists()
    build_release(bank, "v1", tmp_path / "v1", frozen=True)  # as it was frozen
    assert files_of(tmp_path / "v1") == before
    with pytest.raises(InputError, match="holds another release"):
        build_release(bank, "v2", tmp_path / "v1")
    v2 = build_release(bank, "v2", tmp_path / "v2").release
    assert v2.digest != bank.releases.get_release("v1").digest
    assert [r.name for r in bank.releases.releases()] == ["v1", "v2"]
    for sql in ("UPDATE releases SET name = 'x'", "DELETE FROM releases",
                "UPDATE release_items SET key = 1", "DELETE FROM release_items"):
        with pytest.raises(sqlite3.IntegrityError, match="immutable"):
            bank.conn.execute(sql)
    for bad in ("../x", ".hidden", "a/b", ""):
        with pytest.raises(InputError):
            build_release(bank, bad, tmp_path / "bad")


def test_two_writers_freezing_one_name_race_to_one_release(bank):
    items = current_items(bank)
    other = items[:3] + [ReleaseItem("q-zz", "0" * 64, 1, "{}")]
    outcomes = []

    def freeze(its):
        with Store(bank.path) as s:
            try:
                outcomes.append(s.releases.freeze_release("race", its)[1])
            except ReleaseExists:
                outcomes.append("refused")

    threads = [threading.Thread(target=freeze, args=(its,)) for its in (items, other)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(map(str, outcomes)) == ["True", "refused"]
    assert bank.releases.get_release("race").questions in (8, 4)


def test_runs_on_a_release_ask_its_questions_and_record_it(bank, tmp_path, capsys):
    build_release(bank, "v1", tmp_path / "v1")
    q = bank.questions.get_question("q-00")
    q.status = "ready"  # no longer curated: still in the release
    bank.curation.update_question(q, "editor")
    with LLMServer(answer_key) as server:
        run = create_llm_run(bank, LLMRunSpec(base_url=server.url, model="m", release="v1"))
        assert run.params["release"] == "v1" and run.params["uids"][0] == "q-00" and run.total == 8
        with pytest.raises(RunError, match="no release 'nope'"):
            create_llm_run(bank, LLMRunSpec(base_url=server.url, model="m", release="nope"))
        db = str(bank.path)
        assert main(["--db", db, "run", "llm", "--base-url", server.url, "--model", "m", "--release", "v1"]) == 0
    assert main(["--db", db, "runs"]) == 0
    assert "release v1" in capsys.readouterr().out
    assert main(["--db", db, "run", "embed", "--release", "v1"]) == 0
    assert bank.runs.runs()[-1].params["release"] == "v1" and bank.runs.runs()[-1].total == 8
    capsys.readouterr()
    assert main(["--db", db, "run", "llm", "--base-url", "http://127.0.0.1:9/v1", "--model", "m",
                 "--release", "../x"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--release" in err


def test_cli_release(bank, tmp_path, capsys, monkeypatch):
    db = str(bank.path)
    monkeypatch.chdir(tmp_path)
    assert main(["--db", db, "release", "v1", "--license", "mit"]) == 0
    assert "8 questions" in capsys.readouterr().out
    assert (tmp_path / "exports" / "releases" / "v1" / "data" / "test.jsonl").is_file()
    assert main(["--db", db, "release", "--list"]) == 0
    assert capsys.readouterr().out.startswith("v1  8 questions")
    q = bank.questions.get_question("q-01")
    q.key = 4
    bank.curation.update_question(q, "editor")
    assert main(["--db", db, "release", "v1"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "exists with other content" in err
    assert main(["--db", db, "release", "v1", "--license", "Bad Licence"]) == 1
    assert main(["--db", db, "release", "v1", "--frozen", "--runs", "99"]) == 1
    assert "no run 99" in capsys.readouterr().err


def test_unsafe_targets_give_one_line_and_freeze_nothing_wrong(bank, tmp_path, capsys):
    db = str(bank.path)
    afile = tmp_path / "plain.txt"
    afile.write_text("x")
    assert main(["--db", db, "release", "v1", "-o", str(afile)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(afile) in err
    (tmp_path / "out" / "data" / "test.jsonl").mkdir(parents=True)  # a folder where the data file goes
    assert main(["--db", db, "release", "v1", "-o", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is not a release folder" in err  # files, no manifest: never written over
    assert main(["--db", db, "release", "v1", "-o", str(tmp_path / "rel")]) == 0
    (tmp_path / "rel" / "data" / "test.jsonl").unlink()
    (tmp_path / "rel" / "data" / "test.jsonl").mkdir()  # in a release folder of its own
    capsys.readouterr()
    assert main(["--db", db, "release", "v1", "-o", str(tmp_path / "rel")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is a directory" in err
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "release.json").write_text("not json")
    assert main(["--db", db, "release", "v2", "-o", str(tmp_path / "bad")]) == 1
    assert "not a release manifest" in capsys.readouterr().err
    assert [r.name for r in bank.releases.releases()] == ["v1"]  # the refused folder froze nothing


def test_the_release_leaderboard_ranks_by_the_reports_rule(bank, tmp_path, capsys):
    """Ties share a rank in the release as in the report (reports/ranking.py), never broken by run id."""
    from factories import add_run

    uids = [f"q-{i:02d}" for i in range(8)]
    keys = [i % 4 + 1 for i in range(8)]
    wrong = [k % 4 + 1 for k in keys]
    tie_a = add_run(bank, "m-a", keys[:6] + wrong[6:], uids=uids)  # 6/8
    tie_b = add_run(bank, "m-b", wrong[:2] + keys[2:], uids=uids)  # 6/8
    best = add_run(bank, "m-c", keys, uids=uids)  # 8/8
    out = tmp_path / "rel"
    runs = f"{tie_a},{tie_b},{best}"
    assert main(["--db", str(bank.path), "release", "v1", "--runs", runs, "-o", str(out)]) == 0, capsys.readouterr()
    rows = (out / "leaderboard.csv").read_text("utf-8").splitlines()[1:]
    ranked = [tuple(r.split(",")[:2]) for r in rows]
    assert ranked == [("1", str(best)), ("2", str(tie_a)), ("2", str(tie_b))]


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


# ---------------------------------------------------------------- releases are tamper-evident


@pytest.fixture
def released(tmp_path, capsys):
    path = tmp_path / "rel.db"
    with Store(path) as s:
        s.questions.add_questions([make_question(f"q-{i}", couplets=[(f"{a} ر{i}", b) for a, b in COUPLETS],
                                                 status="curated") for i in range(3)])
    assert main(["--db", str(path), "release", "v1.0", "-o", str(tmp_path / "out")]) == 0
    capsys.readouterr()
    return path


def _tamper(path, *statements):
    conn = sqlite3.connect(path)
    conn.execute("DROP TRIGGER IF EXISTS release_items_frozen_insert")  # a hand edit can drop triggers
    conn.execute("DROP TRIGGER IF EXISTS release_items_frozen_update")
    for sql in statements:
        conn.execute(sql)
    conn.commit()
    conn.close()


def test_a_row_inserted_into_a_frozen_release_is_refused_by_a_trigger(released):
    conn = sqlite3.connect(released)
    with pytest.raises(sqlite3.DatabaseError, match="immutable"):
        conn.execute("INSERT INTO release_items (release_id, position, uid, sha256, key, record) "
                     "SELECT release_id, 99, 'q-evil', sha256, key, record FROM release_items LIMIT 1")
    conn.close()


@pytest.mark.parametrize("edit", [
    "INSERT INTO release_items (release_id, position, uid, sha256, key, record) "
    "SELECT release_id, 99, 'q-evil', sha256, key, record FROM release_items LIMIT 1",
    "UPDATE release_items SET record = 'not json' WHERE position = 0",
    "UPDATE release_items SET key = 4 WHERE position = 1",
])
@pytest.mark.parametrize("frozen", [False, True])
def test_a_tampered_release_is_refused_in_one_line(released, tmp_path, capsys, edit, frozen):
    _tamper(released, edit)
    out = tmp_path / "again"
    code = main(["--db", str(released), "release", "v1.0", "-o", str(out), *(["--frozen"] if frozen else [])])
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert "v1.0" in err and "digest" in err, err
    assert not out.exists()


def test_release_runs_are_checked_before_freezing(released, tmp_path, capsys):
    with Store(released) as s:
        s.questions.add_questions([make_question("q-new", status="curated")])
    code = main(["--db", str(released), "release", "v5", "--runs", "999", "-o", str(tmp_path / "v5")])
    assert code == 1 and "no run 999" in capsys.readouterr().err
    with Store(released) as s:
        assert s.releases.get_release("v5") is None


def test_persian_release_names_are_letters_too(released, tmp_path, capsys):
    out = tmp_path / "fa"
    assert main(["--db", str(released), "release", "نسخه-۱", "-o", str(out)]) == 0, capsys.readouterr().err
    assert (out / "release.json").is_file()
    for bad in ("../x", ".hidden", "a/b", "_x"):
        assert main(["--db", str(released), "release", bad, "-o", str(tmp_path / "bad")]) == 1


def test_the_release_leaderboard_scores_ties_the_same_way(tied, tmp_path):
    store, voter, single = tied
    build_release(store, "v1", tmp_path / "v1", run_ids=[voter, single])
    rows = list(csv.reader((tmp_path / "v1" / "leaderboard.csv").read_text(encoding="utf-8").splitlines()))
    header, body = rows[0], rows[1:]
    by_id = {row[header.index("run_id")]: row for row in body}
    assert by_id[str(voter)][header.index("correct")] == "3"
    assert by_id[str(voter)][header.index("rank")] == by_id[str(single)][header.index("rank")] == "1"
