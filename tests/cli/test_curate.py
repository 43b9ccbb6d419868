"""`persian-tui curate`: the adjudication screen's acceptance without the screen."""

from __future__ import annotations

import pytest
from factories import couplets

from persian_tui.annotation.consensus import BULK_REASON
from persian_tui.cli import main
from persian_tui.models import Option, Question
from persian_tui.store import Store

FLAG = "دو گزینه یکسان‌اند"


@pytest.fixture
def db(tmp_path):
    """q-a annotators disagree, q-b both against the key, q-c flagged, q-d and q-e agree with
    the key (bulk-acceptable), q-f unlabelled."""
    path = tmp_path / "curate.db"
    with Store(path) as s:
        s.questions.add_questions([Question(uid=f"q-{c}", options=[Option(i, a, b)
                                                                   for i, (a, b) in enumerate(couplets(n), 1)],
                                            key=1, status="ready") for n, c in enumerate("abcdef")])
        for uid, ali, sara in (("q-a", 1, 2), ("q-b", 3, 3), ("q-d", 1, 1), ("q-e", 1, 1)):
            s.labels.add_label(uid, "ali", ali)
            s.labels.add_label(uid, "sara", sara)
        s.labels.add_label("q-c", "ali", 1)
        s.labels.add_label("q-c", "sara", flag=FLAG)
    return str(path)


def statuses(db) -> dict[str, str]:
    with Store(db) as s:
        return {q.uid: q.status for q in s.questions.questions()}


def test_agreeing_accepts_what_the_screen_would(db, capsys):
    assert main(["--db", db, "curate", "--agreeing", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "would accept q-d: key 1" in out and "would accept q-e: key 1" in out and "q-c" not in out
    assert "nothing written" in out and statuses(db)["q-d"] == "ready"
    assert main(["--db", db, "curate", "--agreeing", "--annotator", "mina"]) == 0
    assert "accepted the key of 2 question(s) by mina" in capsys.readouterr().out
    st = statuses(db)
    assert st["q-d"] == st["q-e"] == "curated" and st["q-a"] == st["q-b"] == st["q-c"] == "ready"
    with Store(db) as s:
        (adj,) = s.curation.adjudications("q-d")
    assert (adj.adjudicator, adj.decision, adj.key, adj.reason) == ("mina", "accept", 1, BULK_REASON)
    assert main(["--db", db, "curate", "--agreeing", "--annotator", "mina"]) == 0  # nothing left
    assert "accepted the key of 0 question(s)" in capsys.readouterr().out


def test_named_flagged_question_is_refused_unless_forced(db, capsys):
    assert main(["--db", db, "curate", "q-c", "q-d", "--annotator", "mina"]) == 1
    cap = capsys.readouterr()
    assert f"refused q-c: flagged by sara: {FLAG}" in cap.out and "--force" in cap.out
    assert "nothing was accepted" in cap.err and statuses(db)["q-d"] == "ready"  # all or nothing
    assert main(["--db", db, "curate", "q-c", "q-d", "--annotator", "mina", "--force"]) == 0
    st = statuses(db)
    assert st["q-c"] == st["q-d"] == "curated"
    with Store(db) as s:
        (adj,) = s.curation.adjudications("q-c")
    assert adj.adjudicator == "mina" and "forced over: flagged by sara" in adj.reason
    assert main(["--db", db, "curate", "q-d", "--annotator", "mina"]) == 0
    assert "skipped q-d: already curated" in capsys.readouterr().out


def test_bad_requests_are_one_line(db, capsys):
    assert main(["--db", db, "curate", "--agreeing"]) == 1
    assert "--annotator NAME is needed" in capsys.readouterr().err
    assert main(["--db", db, "curate", "--annotator", "mina"]) == 1
    assert "or give --agreeing" in capsys.readouterr().err
    assert main(["--db", db, "curate", "q-nope", "--annotator", "mina"]) == 1
    assert "refused q-nope: no such question" in capsys.readouterr().out
    with Store(db) as s:
        s.curation.adjudicate("q-f", "ali", "retire", reason="weak")
    assert main(["--db", db, "curate", "q-f", "--annotator", "mina", "--force"]) == 1
    assert "refused q-f: retired" in capsys.readouterr().out


def test_the_plan_is_checked_again_inside_each_write(db, capsys, monkeypatch):
    """A flag added, a key changed, a question retired while curate runs: each is skipped with a
    line saying why, never accepted over."""
    from persian_tui.annotation import consensus

    real = consensus.bulk_acceptable

    def meanwhile(store, *a, **kw):
        plan = real(store, *a, **kw)
        with Store(db) as other:  # another person, between the plan and the writes
            other.labels.add_label("q-d", "reza", flag=FLAG)
            other.conn.execute("UPDATE questions SET key = 2 WHERE uid = 'q-e'")
            other.conn.execute("UPDATE questions SET status = 'retired' WHERE uid = 'q-f'")
        return plan

    monkeypatch.setattr(consensus, "bulk_acceptable", meanwhile)
    assert main(["--db", db, "curate", "q-f", "--agreeing", "--annotator", "mina"]) == 0
    out = capsys.readouterr().out
    lines = {line.split(":")[0]: line for line in out.splitlines()}
    assert "flag" in lines["skipped q-d"]
    assert "key changed" in lines["skipped q-e"] and "1" in lines["skipped q-e"] and "2" in lines["skipped q-e"]
    assert "retired" in lines["skipped q-f"]
    assert statuses(db) == {"q-a": "ready", "q-b": "ready", "q-c": "ready", "q-d": "ready", "q-e": "ready",
                            "q-f": "retired"}
    with Store(db) as s:
        assert s.curation.adjudications() == []
    assert "accepted the key of 0 question(s)" in out


def test_all_ready_takes_every_ready_keyed_question_nothing_flags(db, capsys):
    """Labelled or not (q-f has no label); the flagged q-c and q-a, q-b whose labels differ from the
    key are left, saying why."""
    assert main(["--db", db, "curate", "--all-ready", "--dry-run"]) == 0
    out = capsys.readouterr().out
    for uid in ("q-d", "q-e", "q-f"):
        assert f"would accept {uid}: key 1" in out
    assert f"left q-c: flagged by sara: {FLAG}" in out and "would accept q-c" not in out
    assert "left q-b: label(s) 3 differ from key 1" in out and "left q-a: " in out  # labels against the key
    assert "would accept the key of 3 question(s); nothing written" in out
    assert set(statuses(db).values()) == {"ready"}
    assert main(["--db", db, "curate", "--all-ready", "--annotator", "mina"]) == 0
    assert statuses(db) == {"q-a": "ready", "q-b": "ready", "q-c": "ready", "q-d": "curated",
                            "q-e": "curated", "q-f": "curated"}


def test_uids_from_a_file(db, tmp_path, capsys):
    listed = tmp_path / "uids.txt"
    listed.write_text("# the ones we checked\nq-d\n\nq-f\n", "utf-8")
    assert main(["--db", db, "curate", "--from-file", str(listed), "--annotator", "mina"]) == 0
    st = statuses(db)
    assert st["q-d"] == st["q-f"] == "curated" and st["q-e"] == "ready"
    listed.write_text("q-c\n", "utf-8")  # flagged: refused as a named one
    assert main(["--db", db, "curate", "--from-file", str(listed), "--annotator", "mina"]) == 1
    assert "refused q-c" in capsys.readouterr().out
    assert main(["--db", db, "curate", "--from-file", str(tmp_path / "nope.txt"), "--annotator", "mina"]) == 1
    err = capsys.readouterr().err
    assert "nope.txt" in err and len(err.strip().splitlines()) == 1


def test_agreeing_says_why_nothing_qualified(tmp_path, capsys):
    path = str(tmp_path / "none.db")
    with Store(path) as s:
        s.questions.add_questions([Question(uid=f"q-{c}", options=[Option(i, a, b) for i, (a, b)
                                                                   in enumerate(couplets(n), 1)],
                                            key=1, status="ready") for n, c in enumerate("ab")])
    assert main(["--db", path, "curate", "--agreeing", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "--agreeing: none of the 2 open question(s)" in out and "2 without labels" in out
    assert "--all-ready" in out


@pytest.mark.parametrize("mode", ["--agreeing", "--all-ready"])
def test_a_label_against_the_key_added_meanwhile_stops_a_bulk_acceptance(db, capsys, monkeypatch, mode):
    """--agreeing and --all-ready take only questions no label contradicts: one added between the
    plan and the write is skipped, saying why (a named question is accepted over labels, as before)."""
    from persian_tui.store.curation import CurationRepo

    real = CurationRepo.adjudicate

    def meanwhile(self, uid, *a, **kw):
        if uid == "q-d":
            with Store(db) as other:  # another annotator, between the plan and this write
                other.labels.add_label("q-d", "reza", 3)
        return real(self, uid, *a, **kw)

    monkeypatch.setattr(CurationRepo, "adjudicate", meanwhile)
    assert main(["--db", db, "curate", mode, "--annotator", "mina"]) == 0
    out = capsys.readouterr().out
    assert "skipped q-d:" in out and "3" in out.split("skipped q-d:")[1].splitlines()[0]
    st = statuses(db)
    assert st["q-d"] == "ready" and st["q-e"] == "curated"
