"""Labels (store/labels.py): append-only, supersede, undo, the queue with leases, several
annotators labelling one file at once from separate processes."""

import re
import subprocess
import sys
import textwrap

import pytest
from factories import make_question

from persian_tui.models import QueueScope, SourceRef


@pytest.fixture
def bank(store):
    store.questions.add_questions([make_question(f"q-{i}", category="عشق" if i % 2 else "قناعت") for i in range(1, 6)])
    return store


def test_later_label_supersedes_and_history_is_kept(bank):
    bank.labels.add_label("q-1", "ali", 2, confidence="low")
    bank.labels.add_label("q-1", "ali", 3, confidence="high", note="دوباره خواندم")
    (label,) = bank.labels.labels("q-1")
    assert (label.answer, label.confidence, label.note) == (3, "high", "دوباره خواندم")
    n = bank.conn.execute("SELECT COUNT(*) FROM annotations").fetchone()[0]
    assert n == 2  # nothing overwritten


def test_undo_goes_back_several_steps(bank):
    bank.labels.add_label("q-1", "ali", 1)
    bank.labels.add_label("q-2", "ali", skipped=True)
    bank.labels.add_label("q-3", "ali", flag="دو گزینه یکسان‌اند")
    bank.labels.add_label("q-1", "sara", 4)
    assert bank.labels.undo_label("ali") == "q-3"
    assert bank.labels.undo_label("ali") == "q-2"
    assert [(l.uid, l.annotator) for l in bank.labels.labels()] == [("q-1", "ali"), ("q-1", "sara")]
    bank.labels.add_label("q-1", "ali", 2)
    assert bank.labels.undo_label("ali") == "q-1"
    assert bank.labels.labels("q-1", annotator="ali")[0].answer == 1  # the earlier label is back
    assert bank.labels.undo_label("ali") == "q-1" and bank.labels.undo_label("ali") is None


def test_bad_labels_are_refused(bank):
    with pytest.raises(ValueError, match="out of range"):
        bank.labels.add_label("q-1", "ali", 5)
    with pytest.raises(ValueError, match="needs an answer"):
        bank.labels.add_label("q-1", "ali")
    with pytest.raises(KeyError):
        bank.labels.add_label("q-x", "ali", 1)
    assert bank.labels.labels() == []


@pytest.mark.parametrize("note, reason", [
    ("x" * 900_000, "a note is at most 2,000 characters"),  # a browser paste
    ("ok\x1b[2Jwiped", "no control character (U+001B)"),  # a raw ESC
    ("a\x00b", "no control character (U+0000)"),
], ids=["900-kb", "esc", "nul"])
def test_a_note_is_capped_and_holds_no_control_character_before_it_is_stored(bank, note, reason):
    from persian_tui.models import Label

    with pytest.raises(ValueError, match=re.escape(reason)):
        bank.labels.add_label("q-1", "ali", 1, note=note)
    with pytest.raises(ValueError, match="note"):
        bank.labels.add_labels([Label("q-1", "ali", 1, note=note)])
    assert bank.labels.labels() == []
    bank.labels.add_label("q-1", "ali", 1, note="  بیت دوم\u200cاش مبهم است  ")
    assert bank.labels.labels()[0].note == "بیت دوم\u200cاش مبهم است"  # trimmed, ZWNJ kept


def test_spread_queue_serves_fewest_labels_first_up_to_target(bank):
    bank.labels.add_label("q-1", "x", 1)
    bank.labels.add_label("q-2", "x", 1)
    bank.labels.add_label("q-2", "y", 1)
    got = []
    while (q := bank.labels.claim_next("ali", target=2, mode="spread")) is not None:
        got.append(q.uid)
        bank.labels.add_label(q.uid, "ali", 1)
    assert got == ["q-3", "q-4", "q-5", "q-1"]  # q-2 already has 2 labels
    assert bank.labels.progress("ali", target=2).queue_left == 0


def test_overlap_queue_finishes_what_others_started(bank):
    bank.labels.add_label("q-3", "x", 1)
    bank.labels.add_label("q-5", "x", 2)
    bank.labels.add_label("q-5", "y", 2)
    bank.labels.add_label("q-4", "z", skipped=True)  # a skip is not an answer
    got = []
    while (q := bank.labels.claim_next("ali", target=3)) is not None:
        got.append(q.uid)
        bank.labels.add_label(q.uid, "ali", 1)
    assert got == ["q-5", "q-3", "q-1", "q-2", "q-4"]


def test_second_annotator_gets_the_first_annotators_items(bank):
    """Default queue: two people labelling at once overlap from the first item."""
    first, second = [], []
    for _ in range(3):
        a = bank.labels.claim_next("ali", target=2)
        first.append(a.uid)
        b = bank.labels.claim_next("sara", target=2)
        second.append(b.uid)
        bank.labels.add_label(a.uid, "ali", 1)
        bank.labels.add_label(b.uid, "sara", 1)
    assert second == first
    # and the one who comes later starts on what the others share, never past the target
    c = bank.labels.claim_next("reza", target=2)
    assert c.uid not in first


def test_queue_scopes(store):
    qs = [make_question(f"q-{i}", category="عشق" if i % 2 else "قناعت", tags=["hafez"] if i < 3 else [],
                        source_name="book" if i > 3 else "exam", status="draft" if i == 5 else "ready")
          for i in range(1, 7)]
    store.questions.add_questions(qs)

    def served(scope, **kw):
        got = []
        while (q := store.labels.claim_next("ali", target=1, scope=scope, **kw)) is not None:
            got.append(q.uid)
            store.labels.add_label(q.uid, "ali", 1)
        for _uid in got:  # take them back for the next scope
            store.labels.undo_label("ali")
        return sorted(got)

    assert served(QueueScope(tag="hafez")) == ["q-1", "q-2"]
    assert served(QueueScope(category="عشق")) == ["q-1", "q-3", "q-5"]
    assert served(QueueScope(source="book")) == ["q-4", "q-5", "q-6"]
    assert served(QueueScope(status="draft")) == ["q-5"]
    assert served(QueueScope(uids=("q-6", "q-2"))) == ["q-2", "q-6"]
    assert served(QueueScope(category="عشق", source="book")) == ["q-5"]
    assert store.labels.progress("ali", target=1, scope=QueueScope(tag="hafez")).bank == 2
    # a question also known by a "book" reference (a duplicate imported from the book) is in its scope
    store.imports.add_new_questions([], links=[("q-1", SourceRef("book", "99"))])
    assert served(QueueScope(source="book")) == ["q-1", "q-4", "q-5", "q-6"]
    assert served(QueueScope(source="exam")) == ["q-1", "q-2", "q-3"]
    with pytest.raises(ValueError, match="queue mode"):
        store.labels.claim_next("ali", mode="random")


def test_claims_stop_two_annotators_exceeding_target(bank):
    first = bank.labels.claim_next("ali", target=1)
    second = bank.labels.claim_next("sara", target=1)
    assert first.uid != second.uid
    assert bank.labels.claim_next("ali", target=1).uid == first.uid  # my lease is renewed, not doubled
    assert bank.labels.claim_next("ali", target=1, skip=(first.uid,)).uid not in (first.uid, second.uid)


def test_expired_claims_are_freed(bank):
    for name in ("a", "b", "c", "d", "e"):
        assert bank.labels.claim_next(name, target=1, lease_seconds=-1) is not None
    assert bank.labels.claim_next("f", target=1) is not None  # the others' leases have expired


def test_progress(bank):
    bank.labels.add_label("q-1", "ali", 1)
    bank.labels.add_label("q-2", "ali", skipped=True)
    bank.labels.add_label("q-3", "x", 1)
    bank.labels.add_label("q-3", "y", 1)
    p = bank.labels.progress("ali", target=2)
    # a skip is not an answer; the bank bar counts questions at the target, not my labels
    assert (p.mine, p.skipped, p.queue_left, p.bank, p.complete) == (1, 1, 2, 5, 1)


def test_claim_a_given_item_and_renew(bank):
    bank.labels.add_label("q-1", "x", 1)
    assert bank.labels.claim("ali", "q-1", target=2)
    assert not bank.labels.claim("sara", "q-1", target=2)  # x's label + ali's claim fill it
    assert bank.labels.renew("ali") and not bank.labels.renew("nobody")
    bank.labels.release("ali")
    assert bank.labels.claim("sara", "q-1", target=2)


def test_locked_database_is_a_store_error(bank):
    from persian_tui.store import Store, StoreError

    other = Store(bank.path)
    other.conn.execute("PRAGMA busy_timeout = 50")
    bank.conn.execute("BEGIN IMMEDIATE")  # someone holds the write lock
    try:
        with pytest.raises(StoreError, match="busy"):
            other.labels.add_label("q-1", "ali", 1)
    finally:
        bank.conn.execute("ROLLBACK")
        other.close()


WORKER = textwrap.dedent("""
    import sys
    from persian_tui.store import Store
    db, name, count, target, mode = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    done = 0
    with Store(db, busy_timeout_ms=3_600_000) as store:  # waits for the lock however busy the machine
        while done < count:
            q = store.labels.claim_next(name, target=target, mode=mode)
            if q is None:
                break
            store.labels.add_label(q.uid, name, (done % 4) + 1, seconds=0.1)
            done += 1
    print(done)
""")


@pytest.mark.parametrize("mode", ["spread", "overlap"])
def test_four_processes_label_at_once(store, mode):
    # 600 questions x target 2 = room for 1,200 labels. Spread: 4 x 200 always find work, however the
    # processes are scheduled: for one with d < 200 labels to find none, the 600 - d > 400 items it has
    # not labelled would all need 2 labels or claims from the others, who hold at most 3 x 200 + 3.
    # (With 250 each that bound fails: a process stalled while the others doubled up on its items can
    # find them full.) Overlap fills items to the target first, so a slower annotator can find the bank
    # full for them before their 250 (by design); the invariants below hold either way.
    count = 200 if mode == "spread" else 250
    store.questions.add_questions([make_question(f"q-{i:04d}", couplets=[(f"مصراع {i} {j}", f"دوم {i} {j}")
                                                                          for j in range(4)])
                                   for i in range(600)])
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, str(store.path), f"annotator-{n}", str(count), "2",
                               mode], stdout=subprocess.PIPE, text=True) for n in range(4)]
    done = [int(p.communicate()[0]) for p in procs]  # no clock: each ends when its labels are done
    assert all(p.returncode == 0 for p in procs)
    if mode == "spread":
        assert done == [count] * 4
    else:  # whoever stopped early found nothing left: every item they had not labelled was full
        for n, d in enumerate(done):
            if d < count:
                assert store.labels.claim_next(f"annotator-{n}", target=2) is None
    rows = store.conn.execute("SELECT question_id, annotator FROM annotations").fetchall()
    assert len(rows) == sum(done) == len(set(rows))  # every label stored exactly once
    most = store.conn.execute(
        "SELECT MAX(n) FROM (SELECT COUNT(*) AS n FROM annotations GROUP BY question_id)").fetchone()[0]
    assert most == 2  # nobody pushed an item past the target of 2
    assert store.conn.execute("SELECT COUNT(*) FROM claims").fetchone()[0] == 0
