"""Versioned releases: frozen in the store (immutable, unique names), written byte for byte the
same from the same database, readable as the JSON data file `datasets.load_dataset("json", ...)`
takes (checked with a small reader of that format: `datasets` is too heavy for the test extra)."""

import asyncio
import json
import sqlite3
import threading

import pytest
import yaml
from factories import couplets, make_question
from llm_server import LLMServer, chat

from persian_tui.bank import jsonl
from persian_tui.cli import main
from persian_tui.files.inputs import InputError
from persian_tui.models import ReleaseItem
from persian_tui.releases.build import build_release, current_items
from persian_tui.releases.harness_files import harness_files
from persian_tui.runs import LLMRunSpec, RunError, create_llm_run, execute_llm_run
from persian_tui.store import ReleaseExists, Store

ZWNJ = "\u200c"

HARNESS_FILES = set(harness_files("v1.0"))  # the Inspect and lm-eval tasks (test_harnesses.py)


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
    a = build_release(bank, "v1.0", tmp_path / "a", run_ids=[run.id], license_id="cc-by-4.0")
    b = build_release(bank, "v1.0", tmp_path / "b", run_ids=[run.id], license_id="cc-by-4.0")
    assert a.created and not b.created
    fa, fb = files_of(tmp_path / "a"), files_of(tmp_path / "b")
    assert fa == fb and set(fa) == {"README.md", "data/test.jsonl", "release.json", "leaderboard.csv", *HARNESS_FILES}
    header, split, rows = read_dataset(tmp_path / "a")
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
