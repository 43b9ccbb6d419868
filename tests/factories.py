"""Plain builders the tests share: questions and banks, benchmark items, report runs, LLM runs
against the local test server, the corpus fixtures' paths and couplets, other processes.
Fixtures live in conftest.py; TUI helpers in tui_helpers.py. No test module imports another:
what two test files need goes here."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from llm_server import LLMServer

from persian_tui.models import Option, Prediction, Question

ROOT = Path(__file__).resolve().parents[1]
SEED = ROOT.parent / "shared" / "seed-data"

# ------------------------------------------------------------------ questions and banks

COUPLETS = [
    ("طریق عشق پرآشوب و فتنه است ای دل", "بیفتد آن که در این راه با شتاب رود"),
    ("گر نور عشق حق به دل و جانت اوفتد", "بالله از آفتاب فلک خوبتر شوی"),
    ("شکوه عشق نگه کن که موی مجنون را", "فلک به شعشعه آفتاب، شانه کند"),
    ("فرزانه درآید به پری خانه مقصود", "هر کس که در این بادیه دیوانه عشق است"),
]


def make_question(uid: str = "q-test", couplets=COUPLETS, **kw) -> Question:
    options = [Option(i, a, b) for i, (a, b) in enumerate(couplets, 1)]
    kw.setdefault("key", 1)
    kw.setdefault("status", "ready")
    return Question(uid=uid, options=options, **kw)


STAMP = "2024-03-01T12:00:00Z"


def dated_question(uid: str, couplets=COUPLETS, **kw) -> Question:
    """make_question with fixed creation and update times (for what a screen shows of them)."""
    return make_question(uid, couplets, created_at=STAMP, updated_at=STAMP, **kw)


def couplets(i: int, first: str = "مصراع اول") -> list[tuple[str, str]]:
    """Question i's four couplets: "<first> i j" / "مصراع دوم i j", j = 0..3 (the key's is j = i % 4
    in a keyed bank; the test server reads i back from the prompt)."""
    return [(f"{first} {i} {j}", f"مصراع دوم {i} {j}") for j in range(4)]


def numbered_couplets(i: int) -> list[tuple[str, str]]:
    """Question i's four couplets, numbered 1..4 in words a screen shows ("بیت n پرسش i")."""
    return [(f"مصراع نخست بیت {n} پرسش {i}", f"مصراع دوم بیت {n} پرسش {i}") for n in range(1, 5)]


def keyed_questions(n: int, **kw) -> list[Question]:
    """q-000 … q-(n-1), question i keyed (i % 4) + 1 with couplets(i)."""
    return [make_question(f"q-{i:03d}", couplets=couplets(i), key=(i % 4) + 1, **kw) for i in range(n)]


def keyed_bank(store, n: int):
    """The store with keyed_questions(n) added."""
    store.questions.add_questions(keyed_questions(n))
    return store


def benchmark_item(id_, couplets=COUPLETS, index=0):
    """One item of the seed benchmark's format ({id, options, correct_answer_index})."""
    return {"id": id_, "options": [f"{a} - {b}" for a, b in couplets], "correct_answer_index": index}


def run_import(store, path, **kw):
    """Plan and apply an import, as `persian-tui import` does."""
    from persian_tui.bank.importer import apply_import, plan_import

    skip = kw.pop("skip_invalid", False)
    plan = plan_import(store, path, **kw)
    apply_import(store, plan, skip_invalid=skip)
    return plan


# ------------------------------------------------------------------ report inputs


def add_questions(store, keys, *, option_poets=None, **per_question):
    """Questions q1, q2, ... with these keys; per_question: a list of values per field."""
    qs = []
    for i, k in enumerate(keys, 1):
        kw = {name: values[i - 1] for name, values in per_question.items()}
        q = make_question(f"q{i}", couplets=[(f"مصراع {i} {j} الف", f"مصراع {i} {j} ب") for j in range(4)],
                          key=k, **kw)
        for option, poet in zip(q.options, (option_poets or {}).get(q.uid, [])):
            option.poet = poet
        qs.append(q)
    store.questions.add_questions(qs)
    return qs


def add_run(store, model, answers, *, uids=None, status="done", **extra):
    """answers[i] for question q{i+1}: 1..4, None (empty) or "x" (an API error)."""
    uids = uids or [f"q{i}" for i in range(1, len(answers) + 1)]
    preds = [Prediction(uid, None if a in (None, "x") else a,
                        "api_error" if a == "x" else "empty" if a is None else "ok", **extra)
             for uid, a in zip(uids, answers)]
    return store.runs.create_run("llm", model, {}, total=len(preds), status=status, predictions=preds).id


def synthetic_bank(store, *, n_questions=200, abilities=None, limits=None, keys=None, seed=7):
    """A bank of keyed questions q1..qN and one run per ability (the chance of a right answer),
    each answering the first `limits[i]` questions (default all); a wrong answer is one of the
    three other options. Returns the run ids. Deterministic (numpy default_rng(seed))."""
    import numpy as np

    rng = np.random.default_rng(seed)
    keys = list(keys) if keys is not None else [int(k) for k in rng.integers(1, 5, n_questions)]
    add_questions(store, keys)
    abilities = abilities if abilities is not None else list(np.linspace(0.3, 0.85, 29))
    limits = limits or [n_questions] * len(abilities)
    ids = []
    for i, (p, limit) in enumerate(zip(abilities, limits)):
        right = rng.random(n_questions) < p
        wrong = (np.array(keys) - 1 + rng.integers(1, 4, n_questions)) % 4 + 1
        answers = [int(k) if r else int(w) for k, r, w in zip(keys, right, wrong)][:limit]
        ids.append(add_run(store, f"model-{i:02d}", answers))
    return ids


def planted_pair(store, *, n, a_only, b_only, both=0):
    """Questions q1..qn (key 1) and two runs: a_only questions only A right, b_only only B right,
    `both` both right, the rest both wrong (answer 2). Returns (a, b)."""
    add_questions(store, [1] * n)
    a = [1] * a_only + [2] * b_only + [1] * both + [2] * (n - a_only - b_only - both)
    b = [2] * a_only + [1] * b_only + [1] * both + [2] * (n - a_only - b_only - both)
    return add_run(store, "planted-a", a), add_run(store, "planted-b", b)


# ------------------------------------------------------------------ LLM runs


def question_index(body) -> int:
    """The i of the question a chat request asks about (its couplets are couplets(i))."""
    return int(body["messages"][-1]["content"].split("مصراع اول ")[1].split()[0])


def llm_run(store, script, *, model="m", max_retries=0, **kw):
    """Create and execute an LLM run against the local server answering with ``script``:
    (run, progress, server)."""
    from persian_tui.runs import LLMRunSpec, create_llm_run, execute_llm_run

    with LLMServer(script) as server:
        spec = LLMRunSpec(base_url=server.url, model=model, max_retries=max_retries, **kw)
        r = create_llm_run(store, spec)
        return r, asyncio.run(execute_llm_run(store.path, r.id)), server


# ------------------------------------------------------------------ the Ganjoor corpus

MINI = Path(__file__).parent / "data" / "ganjoor-mini"
SAMPLE = SEED.parent / "ganjoor-sample"

HAFEZ_1 = ("اَلا یا اَیُّهَا السّاقی اَدِرْ کَأساً وَ ناوِلْها", "که عشق آسان نمود اول ولی افتاد مشکل‌ها")
HAFEZ_2 = ("به بوی نافه‌ای کاخر صبا زان طره بگشاید", "ز تاب جعد مشکینش چه خون افتاد در دل‌ها")
SAADI = ("چو عضوی به درد آورَد روزگار", "دگر عضوها را نمانَد قرار")
BABA = ("مرا نه سر نه سامان آفریدند", "پریشانم پریشان آفریدند")
ROBAEE = ("از منزل کفر تا به دین یک نفس است", "وز عالم شک تا به یقین یک نفس است")  # khayyam and attar


def copy_mini(tmp_path) -> Path:
    dest = tmp_path / "export"
    shutil.copytree(MINI, dest)
    return dest


# ------------------------------------------------------------------ other processes


def wait_until(predicate, what: str, *, seconds: float = 120.0, every: float = 0.02):
    """Poll ``predicate()`` until it is true (another process's rows, say) and return its value;
    fail naming ``what`` if it never becomes so. ``seconds`` is only a bound against hanging."""
    deadline = time.monotonic() + seconds
    while not (value := predicate()):
        assert time.monotonic() < deadline, f"never happened: {what}"
        time.sleep(every)
    return value


def together(db: Path, argvs: list[list[str]]) -> list[subprocess.CompletedProcess]:
    """Start one `persian-tui --db db ARGV` process per argv at once; wait for them all."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen([sys.executable, "-m", "persian_tui.cli", "--db", str(db), *argv], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for argv in argvs]
    out = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=300)
        out.append(subprocess.CompletedProcess(p.args, p.returncode, stdout, stderr))
    return out


NO_ST = "sentence-transformers is not installed (the embed extra: pip install -e '.[embed]')"


def need_st():
    """Skip the calling test or fixture, saying why, when the embed extra is absent."""
    import pytest

    return pytest.importorskip("sentence_transformers", reason=NO_ST)
