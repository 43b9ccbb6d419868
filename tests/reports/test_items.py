"""Item analysis (reports/items.py): rest-score discrimination against scipy, a planted wrong
key, and the flags on a 29-run synthetic bank shaped like the seed's exp-6 runs (dominated keys,
items too hard by a binomial test, low discrimination, weak distractors); the items command."""

import json

import numpy as np
import pytest
from factories import add_questions, add_run

from persian_tui.annotation.consensus import adjudication_queue, bulk_acceptable
from persian_tui.cli import main
from persian_tui.models import Question
from persian_tui.reports import items as item_rules
from persian_tui.reports.items import item_analysis, queue_flags, rest_discrimination
from persian_tui.store import Store

RUNS = 29


THETA = np.linspace(-1.0, 2.5, RUNS)  # run i's ability; run 28 is the strongest


LONG = list(range(7, 22))  # the 15 middling runs that answered the long-only items


TOP2, WEAKEST = [28, 27], 0


def _q(uid: str, key: int) -> Question:
    from factories import make_question

    return make_question(uid, couplets=[(f"مصراع {uid} {j} الف", f"مصراع {uid} {j} ب") for j in range(4)],
                         key=key)


class Bank:
    """answers[run][uid] = option; planted kinds by uid."""

    def __init__(self, seed: int = 19):
        rng = np.random.default_rng(seed)
        self.keys: dict[str, int] = {}
        self.answers: list[dict[str, int]] = [{} for _ in range(RUNS)]
        self.kind: dict[str, str] = {}
        for j in range(60):
            self._normal(rng, f"c{j:02d}", range(RUNS))
        for j in range(40):
            self._normal(rng, f"l{j:02d}", LONG)
        for j in range(12):  # dominated, everyone answered: 8 at 26/29, 4 at 20/29
            uid, key = f"d{j:02d}", j % 4 + 1
            d, e = key % 4 + 1, (key + 1) % 4 + 1
            right = TOP2 if j < 8 else list(range(23, 29))
            other = [WEAKEST] if j < 8 else [0, 1, 2]
            self._plant(uid, key, "dominated", range(RUNS), {**{i: key for i in right},
                                                              **{i: e for i in other}}, d)
        for j in range(6):  # dominated among the 15 that answered: 11 of 15
            uid, key = f"s{j:02d}", j % 4 + 1
            d, e = key % 4 + 1, (key + 1) % 4 + 1
            self._plant(uid, key, "dominated", LONG, {21: key, 20: key, 7: e, 8: e}, d)
        for j in range(5):  # noise: the top 8 choose d, the rest mostly the key (the key is the mode)
            uid, key = f"n{j:02d}", j % 4 + 1
            d, e, f = key % 4 + 1, (key + 1) % 4 + 1, (key + 2) % 4 + 1
            self._plant(uid, key, "noise", range(RUNS), {**{i: d for i in range(21, 29)},
                                                          10: e, 11: e, 12: f, 13: f}, key)
        # below chance: 3 of 29 right (10.3 %, above the old 10 % line) and 2 of 21 (9.5 %, p 0.075)
        self._plant("h1", 1, "hard", range(RUNS), {i: [2, 3, 4][i % 3] for i in range(26)}, 1)
        self._plant("h2", 1, "hard_noise", range(21), {i: [2, 3, 4][i % 3] for i in range(19)}, 1)

    def _normal(self, rng, uid, who):
        key = int(rng.integers(1, 5))
        wrong = [o for o in (1, 2, 3, 4) if o != key]
        weights = rng.dirichlet([1.0, 1.0, 1.0])
        b = rng.normal(0.0, 1.0)
        self.keys[uid], self.kind[uid] = key, "normal"
        for i in who:
            right = rng.random() < 1 / (1 + np.exp(-1.7 * (THETA[i] - b)))
            self.answers[i][uid] = key if right else int(rng.choice(wrong, p=weights))

    def _plant(self, uid, key, kind, who, special, default):
        self.keys[uid], self.kind[uid] = key, kind
        for i in who:
            self.answers[i][uid] = special.get(i, default)

    def load(self, store: Store) -> list[int]:
        store.questions.add_questions([_q(uid, k) for uid, k in self.keys.items()])
        return [add_run(store, f"model-{i:02d}", list(a.values()), uids=list(a)) for i, a in enumerate(self.answers)]

    def counts(self, uid):
        votes = [a[uid] for a in self.answers if uid in a]
        key = self.keys[uid]
        wrong = {o: votes.count(o) for o in (1, 2, 3, 4) if o != key}
        return len(votes), votes.count(key), wrong


@pytest.fixture(scope="module")
def bank():
    return Bank()


@pytest.fixture
def analysed(bank, tmp_path):
    with Store(tmp_path / "bank.db") as store:
        runs = bank.load(store)
        rows = {r.uid: r for r in item_analysis(store, store.questions.questions(), runs)}
        yield store, rows


def dominated(bank, share):
    """Items where one wrong option holds at least `share` of the runs that answered."""
    out = []
    for uid in bank.keys:
        n, _, wrong = bank.counts(uid)
        if max(wrong.values()) >= share * n:
            out.append(uid)
    return out


def test_suspect_key_recalls_dominated_items(bank, analysed):
    _, rows = analysed
    target = dominated(bank, 2 / 3)
    planted = [u for u, k in bank.kind.items() if k == "dominated"]
    assert set(planted) <= set(target) and len(target) >= 18
    hits = [u for u in target if "suspect_key" in rows[u].flags]
    assert len(hits) >= 0.9 * len(target), sorted(set(target) - set(hits))
    assert all("suspect_key" in rows[u].flags for u in planted)
    # not vetoed by the key's positive discrimination (the strongest runs get it right)
    assert all(rows[u].runs.discrimination > 0 for u in planted if u.startswith("d"))


def test_suspect_key_flags_have_a_dominant_wrong_option(bank, analysed):
    _, rows = analysed
    flagged = [u for u, r in rows.items() if "suspect_key" in r.flags]
    assert flagged
    good = []
    for u in flagged:
        n, at_key, wrong = bank.counts(u)
        if max(wrong.values()) >= n / 2 and max(wrong.values()) > at_key:
            good.append(u)
    assert len(good) >= 0.9 * len(flagged), sorted(set(flagged) - set(good))
    assert not any("suspect_key" in rows[u].flags for u, k in bank.kind.items() if k == "noise")


def test_suspect_key_evidence_is_the_test_and_the_per_item_upper_group(bank, analysed):
    from scipy.stats import binomtest

    _, rows = analysed
    d = rows["d00"]  # key 1: 26 chose 2, 2 the key, 1 chose 3
    got = d.details["suspect_key"]
    assert (got["option"], got["chosen"], got["key_chosen"], got["n"]) == (2, 26, 2, 29)
    assert got["p_value"] == pytest.approx(binomtest(26, 28, 0.5, alternative="greater").pvalue, rel=1e-12)
    assert got["upper_n"] == 15 and got["upper_key"] == 2 and got["upper_option"] == 13
    assert got["option_discrimination"] == d.runs.distractor_discrimination[2] < 0
    assert d.evidence["suspect_key"].startswith("26 of 29 runs chose 2, 2 the key 1 (binomial p 1.5e-06, BH q")
    assert "2's point-biserial -" in d.evidence["suspect_key"]
    s = rows["s00"].details["suspect_key"]  # only the 15 answered: the upper group is their better half
    assert (s["n"], s["chosen"], s["key_chosen"], s["upper_n"], s["upper_key"]) == (15, 11, 2, 8, 2)


def test_too_hard_is_below_chance_by_a_binomial_test(analysed):
    from scipy.stats import binom

    _, rows = analysed
    from statsmodels.stats.multitest import multipletests

    _, rows = analysed
    # each question's exact test, then Benjamini-Hochberg over the questions below chance
    below = [r for r in rows.values() if r.runs.n and r.runs.correct < 0.25 * r.runs.n]
    p = [binom.cdf(r.runs.correct, r.runs.n, 0.25) for r in below]
    q = multipletests(p, method="fdr_bh")[1]
    assert len(below) > 10
    for r, pi, qi in zip(below, p, q):
        assert ("too_hard" in r.flags) == (qi < 0.05), r.uid
        if qi < 0.05:
            assert r.details["too_hard"]["p_value"] == pytest.approx(pi, rel=1e-12)
            assert r.details["too_hard"]["q_value"] == pytest.approx(qi, rel=1e-9)
    # 3 of 29 right (p 0.046) is below 0.05 alone, not once corrected over the questions read
    h1 = rows["h1"]
    assert binom.cdf(3, 29, 0.25) < 0.05 and "too_hard" not in h1.flags and "too_hard" not in rows["h2"].flags
    assert rows["d00"].evidence["too_hard"].startswith(
        "2 of 29 runs right, below chance (1/4): binomial P(X ≤ 2) = 0.013, BH q")


def test_low_discrimination_and_weak_distractor(analysed):
    _, rows = analysed
    for r in rows.values():
        g = r.runs
        low = g.discrimination is not None and g.discrimination < 0.2 and g.n >= 10
        assert ("low_discrimination" in r.flags) == low, r.uid
        weak = sorted(o for o, who in g.distractors.items() if g.n >= 20 and len(who) < 0.05 * g.n)
        assert ("weak_distractor" in r.flags) == bool(weak), r.uid
        if weak:
            assert r.details["weak_distractor"]["options"] == [str(o) for o in weak]
    assert "low_discrimination" in rows["n00"].flags  # the best runs leave the key
    assert rows["n00"].evidence["low_discrimination"].startswith("point-biserial -")
    assert rows["d00"].evidence["weak_distractor"] == "3 chosen by 1 of 29 runs, 4 chosen by 0 of 29 runs (under 5%)"
    assert "weak_distractor" not in rows["s00"].flags  # 15 runs: too few to call 5 %
    assert item_rules.FLAGS.index("weak_distractor") > item_rules.FLAGS.index("too_hard")


def test_queue_and_bulk_accept_honour_only_the_deciding_flags(bank, analysed):
    store, rows = analysed
    easy = next(u for u, r in rows.items() if r.flags == ["weak_distractor"] or r.flags == ["low_discrimination"])
    hard = next(u for u, r in rows.items() if "too_hard" in r.flags and u != "d00")
    for uid in (easy, "d00", hard):
        for who in ("ana", "bob"):
            store.labels.add_label(uid, who, bank.keys[uid])
    flags = queue_flags(store)
    assert easy not in flags and set(flags["d00"]) >= {"suspect_key", "too_hard"} and hard in flags
    assert "weak_distractor" not in flags["d00"] and "low_discrimination" not in flags.get("n00", {})
    queue = {v.uid: v for v in adjudication_queue(store, flags)}
    assert "d00" in queue and queue["d00"].item_flags["suspect_key"] == rows["d00"].evidence["suspect_key"]
    assert [v.uid for v in bulk_acceptable(store, flags)] == [easy]


def test_items_command_shows_the_new_flags(analysed, capsys):
    store, _ = analysed
    assert main(["--db", str(store.path), "items", "--format", "json"]) == 0
    data = {r["uid"]: r for r in json.loads(capsys.readouterr().out)}
    assert data["d00"]["details"]["suspect_key"]["chosen"] == 26
    assert data["d00"]["runs"]["distractor_discrimination"]["2"] < 0
    assert main(["--db", str(store.path), "items"]) == 0
    out = capsys.readouterr().out
    assert "low_discrimination" in out and "weak_distractor" in out and "d00 suspect_key: 26 of 29" in out


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
    assert q3.evidence["suspect_key"].startswith("9 of 10 runs chose 2, 1 the key 4 (binomial p 0.011, BH q 0.011)")
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
