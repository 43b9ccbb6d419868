"""`persian-tui corpus propose` and `persian-tui candidates list | accept | reject`
(cli/candidates.py): output, one-line errors that write nothing, roles."""

from __future__ import annotations

import json

import pytest
from factories import copy_mini, write_themed_poems

from persian_tui.cli import main
from persian_tui.corpus.ganjoor import import_corpus
from persian_tui.store import Store


@pytest.fixture
def db(tmp_path):
    root = copy_mini(tmp_path)
    write_themed_poems(root)
    path = tmp_path / "themed.db"
    with Store(path) as s:
        import_corpus(s, root)
    return str(path)


def run(capsys, db, *argv):
    code = main(["--db", db, *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_propose_list_accept_reject(db, capsys):
    code, out, _ = run(capsys, db, "corpus", "propose", "--count", "3", "--seed", "1")
    assert code == 0 and out.startswith("proposed 3 candidate(s) by tfidf in ")
    assert "TF-IDF reads shared words, not meaning" in out
    code, out, _ = run(capsys, db, "candidates", "list")
    assert code == 0 and "#1  proposed  outlier " in out and "https://ganjoor.net/" in out
    assert out.rstrip().endswith("3 proposed, 0 accepted, 0 rejected; no decision yet")
    code, out, _ = run(capsys, db, "candidates", "accept", "1")
    assert code == 0 and "draft question q-" in out and "origin fresh" in out
    code, out, _ = run(capsys, db, "candidates", "reject", "2", "--reason", "trio not close")
    assert code == 0 and out == "rejected candidate 2: trio not close\n"
    code, _, err = run(capsys, db, "candidates", "accept", "2")
    assert code == 1 and err == "persian-tui: error: candidate 2 was already rejected\n"
    code, out, _ = run(capsys, db, "candidates", "list", "--state", "all", "--format", "json")
    data = json.loads(out)
    assert [c["state"] for c in data["candidates"]] == ["accepted", "rejected", "proposed"]
    assert data["summary"] == {"proposed": 1, "accepted": 1, "rejected": 1, "acceptance": 0.5,
                               "reasons": {"trio not close": 1}}
    first = data["candidates"][0]
    assert first["question"].startswith("q-") and len(first["couplets"]) == 4
    assert {"poet", "poem", "couplet", "link", "mesra1", "mesra2"} <= set(first["couplets"][0])
    assert first["reasons"]["baseline"]["picks"] != first["outlier"]
    code, out, _ = run(capsys, db, "candidates", "list", "--state", "rejected")
    assert "rejected 1: trio not close" in out


@pytest.mark.parametrize("argv, message", [
    (("--count", "0"), "--count must be at least 1 (got 0)"),
    (("--count", "-2"), "--count must be at least 1 (got -2)"),
    (("--count", "2", "--poet", "nobody"), "poet 'nobody' is not in the corpus"),
])
def test_bad_input_is_one_line_and_writes_nothing(db, capsys, argv, message):
    code, out, err = run(capsys, db, "corpus", "propose", *argv)
    assert code == 1 and out == "" and err.count("\n") == 1 and message in err
    with Store(db) as s:
        assert s.candidates.candidates() == []


def test_an_empty_corpus_and_a_missing_database(tmp_path, capsys):
    empty = tmp_path / "empty.db"
    Store(empty).close()
    code, _, err = run(capsys, str(empty), "corpus", "propose", "--count", "2")
    assert code == 1 and "has no corpus: import one first" in err and err.count("\n") == 1
    code, _, err = run(capsys, str(tmp_path / "none.db"), "corpus", "propose", "--count", "2")
    assert code == 1 and "no such database" in err and not (tmp_path / "none.db").exists()


def test_only_admins_propose_and_vet(db, capsys):
    assert run(capsys, db, "users", "add", "boss", "--role", "admin")[0] == 0
    assert run(capsys, db, "users", "add", "ali", "--role", "reviewer", "--user", "boss")[0] == 0
    code, _, err = run(capsys, db, "corpus", "propose", "--count", "1", "--user", "ali")
    assert code == 1 and "ali is a reviewer: proposing, accepting and rejecting candidate questions" in err
    assert run(capsys, db, "corpus", "propose", "--count", "1", "--user", "boss")[0] == 0
    code, out, _ = run(capsys, db, "candidates", "list", "--user", "ali")  # reviewers may look
    assert code == 0 and "#1  proposed" in out
    for argv in (("accept", "1"), ("reject", "1", "--reason", "no")):
        code, _, err = run(capsys, db, "candidates", *argv, "--user", "ali")
        assert code == 1 and "is for admins" in err
    with Store(db) as s:
        assert [c.proposed_by for c in s.candidates.candidates()] == ["boss"]
