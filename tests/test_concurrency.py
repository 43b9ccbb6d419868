"""Several annotators labelling one database file at once, from separate processes."""

import subprocess
import sys
import textwrap

import pytest
from factories import make_question

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
