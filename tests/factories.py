"""Plain builders the tests share: questions and banks, benchmark items, report runs and voted
runs, LLM runs against the local test server, the corpus fixtures' paths, couplets and export
files, text that would drive a terminal. Fixtures live in conftest.py (and a folder's
conftest.py); TUI helpers in tui_helpers.py; subprocesses and ports in processes.py. No test
module imports another: what two test files need goes here."""

from __future__ import annotations

import ast
import asyncio
import json
import random
import re
import shutil
import sqlite3
from pathlib import Path

from llm_server import LLMServer

from persian_tui.models import Option, Prediction, Question

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())  # the checkout
DATA = ROOT / "tests" / "data"
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


OTHER_COUPLETS = [
    ("هر که را صبر نیست حکمت نیست", "و آن که را صبر هست حاجت نیست"),
    ("دلا نزد کسی بنشین که او از دل خبر دارد", "به زیر آن درختی رو که او گل‌های تر دارد"),
    ("یکی بود یکی نبود", "غیر از خدا هیچکس نبود"),
    ("توانا بود هر که دانا بود", "ز دانش دل پیر برنا بود"),
]

WORDS = ("دل", "عشق", "می", "ساقی", "باده", "یار", "گل", "بلبل", "شب", "ماه", "جان", "راه", "دریا",
         "کوه", "باد", "خاک", "آتش", "آب", "چشم", "زلف", "غم", "شادی", "مهر", "صبر", "خرد", "جام")


def random_couplets(i):
    """Four couplets of question i, unlike those of any other question (no near-duplicates)."""
    import random

    rng = random.Random(i)
    return [(" ".join(rng.sample(WORDS, 6)), " ".join(rng.sample(WORDS, 6))) for _ in range(4)]


def write_file(folder, name, data):
    """folder/name holding data (text as it is, anything else as JSON)."""
    path = folder / name
    path.write_text(data if isinstance(data, str) else json.dumps(data, ensure_ascii=False), "utf-8")
    return path


def sample_file(tmp_path: Path, uids=("q-s1", "q-s2")) -> Path:
    """A small sample bank (JSONL, tagged sample), as the app seeds a new database with."""
    from persian_tui.bank import jsonl

    path = tmp_path / "sample.jsonl"
    path.write_text("".join(jsonl.dumps(make_question(uid, couplets(i), tags=["sample"])) + "\n"
                            for i, uid in enumerate(uids)), "utf-8")
    return path


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


# Tied majority votes: a run asked K times whose most common answers tie is never scored by the
# answer given first; a tie gives 1/t when the key is one of the t tied options, and what needs one
# answer per question (pair tests, positions, confusion, item analysis) leaves it out.
TIE_KEYS = [1, 2, 3, 4]
# per question, the samples of the voted run, in the order they were given
TIE_SAMPLES = {
    "q1": [2, 1, 1, 2],  # 2 and 1 tie; 2 (wrong) given first: "first given" scored it 0
    "q2": [2, 2, 2, 2],  # right
    "q3": [3, 3, 3, 3],  # right
    "q4": [1, 4, 4, 1],  # 1 and 4 tie; 1 (wrong) given first
}


def voted_run(store, samples=TIE_SAMPLES, model="voter"):
    """A run asked each question 4 times (samples: per question, the answers in order)."""
    preds = [Prediction(uid, a, "ok", sample=s) for uid, answers in samples.items()
             for s, a in enumerate(answers)]
    return store.runs.create_run("llm", model, {"samples": 4}, total=len(samples), status="done",
                                 predictions=preds).id


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


def llm_run_at(store, script, url=None, **kw):
    """An LLM run against the local server answering with ``script``, at url(server.url) when
    given (user-info in it, say), resumed with that URL: (run, progress)."""
    from persian_tui.runs import LLMRunSpec, create_llm_run, execute_llm_run

    with LLMServer(script) as server:
        spec = LLMRunSpec(base_url=url(server.url) if url else server.url, model="m",
                          **{"max_retries": 0, **kw})
        r = create_llm_run(store, spec)
        return r, asyncio.run(execute_llm_run(store.path, r.id, overrides={"base_url": spec.base_url}))


# per request, in turn: digits, words, Persian, a refusal, a hedge (the harness tests' endpoint)
HARNESS_REPLIES = ["3", "Answer: 2", "گزینه ۴", "I cannot decide.", "The third couplet is the odd one out.",
                   "1 or 2", "**4**", "بیت اول"]


# ------------------------------------------------------------------ the Ganjoor corpus

MINI = DATA / "ganjoor-mini"
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


OWN = ("این بیت را جز نویسندهٔ جُنگ کسی نگفت", "و در هیچ دیوانی جز این مجموعه نیست")


def ganjoor_poem(url: str, *texts: str, **extra) -> dict:
    """A poem of the export (its JSON), the texts as hemistichs in turn."""
    verses = [{"VOrder": i + 1, "Position": "Right" if i % 2 == 0 else "Left", "Text": t,
               "CoupletIndex": i // 2} for i, t in enumerate(texts)]
    return {"Title": "t", "FullUrl": url, "Verses": verses, **extra}


def write_poet(root: Path, slug: str, nickname: str, death: int | None) -> Path:
    """A poet's folder and poet.json in an export at root."""
    folder = root / "poets" / slug
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "poet.json").write_text(json.dumps(
        {"Id": 900 + len(slug), "Name": nickname, "Nickname": nickname, "FullUrl": f"/{slug}",
         "DeathYearInLHijri": death, "ValidDeathDate": False}, ensure_ascii=False))
    return folder


def write_poem(root: Path, slug: str, rel: str, couplets, *, full_title: str = "", prose: bool = False,
               verses: list | None = None) -> Path:
    """A poem file of the export (couplets, or verses as given), with a prose line before each
    couplet when `prose`."""
    f = root / "poets" / slug / f"{rel}.json"
    f.parent.mkdir(parents=True, exist_ok=True)
    if verses is None:
        verses = []
        for i, (a, b) in enumerate(couplets):
            if prose:
                verses.append({"Position": "Paragraph", "Text": "سخنی به نثر", "CoupletIndex": None})
            verses += [{"Position": "Right", "Text": a, "CoupletIndex": i},
                       {"Position": "Left", "Text": b, "CoupletIndex": i}]
    for n, v in enumerate(verses, 1):
        v.setdefault("VOrder", n)
    f.write_text(json.dumps({"Id": abs(hash(rel)) % 10**6, "Title": rel, "FullTitle": full_title,
                             "FullUrl": f"/{slug}/{rel}", "Metre": None, "Verses": verses},
                            ensure_ascii=False))
    return f



def write_quoting_works(root: Path) -> None:
    """Two works quoting others into an export: a prose book of ethics (listed by its title, as
    Naraghi's Me'raj) quoting Hafez, and a later poet's anthology (not listed) quoting Hafez and
    Saadi, with one couplet of its own."""
    write_poet(root, "naraghi", "ملا احمد نراقی", 1245)
    write_poem(root, "naraghi", "meraj/bab1/sh1", [HAFEZ_2, OWN], prose=True,
               full_title="ملا احمد نراقی » معراج السعادة » باب اول » فصل اول")
    write_poet(root, "jong", "گردآورنده", 1300)
    write_poem(root, "jong", "majmue/sh1", [HAFEZ_1, SAADI, ("بنی آدم اعضای یک پیکرند", "که در آفرینش ز یک گوهرند"),
                                            ("بیتی که تنها در این جنگ آمده است", "و کسی دیگر آن را نسروده است")],
               full_title="گردآورنده » مجموعه")

# ------------------------------------------------------------------ text that would drive a terminal

OSC_TITLE = "\x1b]0;pwned\x07"
HOSTILE = f"{OSC_TITLE}\x1b[2J\x1b[31mred\x1b[0m\x9b31m\x08\x07\rback"
# raw bytes a terminal would act on: C0 (but \n, \t), DEL, C1 (UTF-8 \xc2\x80-\xc2\x9f), bidi overrides
RAW = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]")


TRAPS = ("pickle", "json", "importlib", "traceback", "tempfile", "sqlite3", "asyncio", "typing", "textwrap")


def plant_traps(folder: Path) -> Path:
    """Modules named like the standard library's in ``folder``: each, if imported, leaves a
    NAME.ran file beside it (what `sprung` lists)."""
    for name in TRAPS:
        (folder / f"{name}.py").write_text(
            "import pathlib\npathlib.Path(__file__).with_suffix('.ran').write_text('ran')\n", "utf-8")
    return folder


def sprung(folder: Path) -> list[str]:
    return sorted(p.stem for p in folder.glob("*.ran"))


SIDECARS = ("", "-wal", "-shm", "-journal")


def left_behind(db: Path) -> list[str]:
    """The database's files (and SQLite's files beside it) that exist."""
    return [db.name + s for s in SIDECARS if Path(str(db) + s).exists()]


def stored_sql(db) -> str:
    """Every row of every table of the database file, as SQL text (run params, errors, caches)."""
    conn = sqlite3.connect(db)
    try:
        return "\n".join(conn.iterdump())
    finally:
        conn.close()


def top_level_imports(path: Path) -> set[str]:
    """The top-level packages a Python file imports (absolute imports)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


NO_ST = "sentence-transformers is not installed (the embed extra: pip install -e '.[embed]')"


def need_st():
    """Skip the calling test or fixture, saying why, when the embed extra is absent."""
    import pytest

    return pytest.importorskip("sentence_transformers", reason=NO_ST)


# ------------------------------------------------------------------ recall probes

RECALL_WORDS = ("سحر", "نسیم", "گلشن", "پیمانه", "میخانه", "سرو", "چمن", "لاله", "نرگس", "شمع", "پروانه",
                "صنوبر", "غنچه", "خورشید", "ستاره", "کاروان", "منزل", "بیابان", "طوفان", "ساحل", "کشتی",
                "آیینه", "زنجیر", "کمند", "محراب", "خرابات", "رندان", "زاهد", "واعظ", "مطرب")


def recall_couplet(i: int) -> tuple[str, str]:
    """Couplet i of the recall corpus: six words a hemistich, unlike every other couplet's."""
    import random

    rng = random.Random(1000 + i)
    return (" ".join(rng.sample(RECALL_WORDS, 6)), " ".join(rng.sample(RECALL_WORDS, 6)))


def recall_bank(store, tmp_path, *, questions: int = 3, unlinked: int = 1, status: str = "ready"):
    """A corpus of one poet (three poems of four couplets, the first two in one metre and rhyme,
    plus a poem of a second poet) and a bank whose first `questions` questions (r-000...) have
    couplets 4i..4i+3 of it as options (linked), then `unlinked` questions (u-000...) of couplets
    the corpus lacks. Returns {(uid, position): (first, second)} of every option."""
    from persian_tui.corpus.ganjoor import import_corpus

    root = tmp_path / "recall-export"
    write_poet(root, "shaer", "شاعر آزمون", 700)
    write_poet(root, "digari", "شاعر دیگر", 800)
    forms = [("فاعلاتن فاعلاتن فاعلن", "ان"), ("فاعلاتن فاعلاتن فاعلن", "ان"), ("مفاعیلن مفاعیلن فعولن", "ار")]
    for p, (metre, rhyme) in enumerate(forms):
        f = write_poem(root, "shaer", f"ghazal/sh{p + 1}", [recall_couplet(4 * p + j) for j in range(4)])
        data = json.loads(f.read_text("utf-8"))
        data.update({"Metre": {"Id": p, "Rhythm": metre}, "RhymeLetters": rhyme})
        f.write_text(json.dumps(data, ensure_ascii=False))
    write_poem(root, "digari", "ghazal/sh1", [recall_couplet(100 + j) for j in range(4)])
    import_corpus(store, root)
    texts = {}
    qs = []
    for i in range(questions):
        cs = [recall_couplet(4 * (i % 3) + j) for j in range(4)]
        qs.append(make_question(f"r-{i:03d}", couplets=cs, key=(i % 4) + 1, status=status))
        texts.update({(f"r-{i:03d}", j + 1): c for j, c in enumerate(cs)})
    for i in range(unlinked):
        cs = [recall_couplet(200 + 4 * i + j) for j in range(4)]
        qs.append(make_question(f"u-{i:03d}", couplets=cs, key=1, status=status))
        texts.update({(f"u-{i:03d}", j + 1): c for j, c in enumerate(cs)})
    store.questions.add_questions(qs)
    store.links.link_questions()
    return texts


def first_verse(body) -> str:
    """The first hemistich a recall probe's prompt gives."""
    text = body["messages"][-1]["content"]
    return text.split("<first_verse>", 1)[1].split("</first_verse>", 1)[0]


def recall_script(memory: dict[str, str], edited=frozenset(), *, truth: dict[str, str] | None = None,
                  wrong: str = "نمی‌دانم"):
    """A model that remembers `memory` (first hemistich -> second): those in `edited` with three
    letters changed; writes `wrong` for the rest; picks the remembered one among choices, else
    the first choice that is not the true one (`truth`: every first hemistich -> second)."""
    from llm_server import chat

    def edit(text: str) -> str:
        chars = list(text)
        for i in (2, 9, 16):
            chars[i] = "ژ" if chars[i] != "ژ" else "پ"
        return "".join(chars)

    def script(body, n):
        first = first_verse(body)
        known = memory.get(first)
        text = body["messages"][-1]["content"]
        if "گزینه‌ها:" in text:
            lines = text.split("گزینه‌ها:\n", 1)[1].splitlines()
            choices = [ln.split(") ", 1) for ln in lines]
            true = (truth or {}).get(first)
            pick = next((letter for letter, c in choices if known is not None and c == known),
                        next(letter for letter, c in choices if c != true))
            return chat(pick)
        if known is None:
            return chat(f"<answer>{wrong}</answer>")
        return chat(f"<answer>{edit(known) if first in edited else known}</answer>")

    return script


def seed_answer_bank(store, csv_path):
    """Every question of the seed's experiment-6 answers (keys from its correct_answer column;
    the id the source repeats, 6, left out) and one run per model with its answers as they are
    (an empty answer: unusable). The sample book holds only 40 of the questions, so the bank is
    built from the CSV itself. Returns {model: run id}."""
    import csv
    from collections import Counter, defaultdict

    rows = list(csv.DictReader(open(csv_path, encoding="utf-8")))
    twice = {q for (_, q), n in Counter((r["model_name"], r["question_id"]) for r in rows).items() if n > 1}
    rows = [r for r in rows if r["question_id"] not in twice]
    keys = {r["question_id"]: int(r["correct_answer"]) for r in rows}
    ids = sorted(keys, key=int)
    add_questions(store, [keys[q] for q in ids])
    uid = {q: f"q{i}" for i, q in enumerate(ids, 1)}
    answers: dict[str, list] = defaultdict(list)
    for r in rows:
        answer = int(r["model_answer"]) if r["model_answer"].strip() else None
        answers[r["model_name"]].append((uid[r["question_id"]], answer))
    return {m: add_run(store, m, [a for _, a in got], uids=[u for u, _ in got])
            for m, got in sorted(answers.items())}


THEMES = {  # four themes of words, and words any couplet may hold (a generated corpus for corpus propose)
    "qanaat": "قناعت توانگر گنج درویش نان خشک بسنده طمع خرسند آز",
    "eshgh": "عشق یار دلبر زلف جان عاشق وصال هجران معشوق",
    "fana": "دنیا فنا گذرا مرگ خاک گور عمر بقا رفتن",
    "sabr": "صبر شکیب تلخ شیرین ثمر ظفر صابر امید انتظار",
}
SHARED_WORDS = "که از به در با بر تا هر این آن دل شب روز راه جهان گل باغ".split()
THEMED_POETS = ("anvari", "sanaei", "nezami", "jami", "khaju", "vahshi", "onsori", "farrokhi", "manuchehri")


def write_themed_poems(root: Path, seed: int = 5) -> None:
    """Nine poets, each with one poem of four couplets per theme: every couplet three words of its
    theme and four shared words per hemistich (seeded), into an export at root."""
    rng = random.Random(seed)

    def hemistich(theme: str) -> str:
        words = rng.sample(THEMES[theme].split(), 3) + rng.sample(SHARED_WORDS, 4)
        rng.shuffle(words)
        return " ".join(words)

    for n, slug in enumerate(THEMED_POETS):
        write_poet(root, slug, f"شاعر {slug}", 500 + n)
        for k, theme in enumerate(THEMES, 1):
            write_poem(root, slug, f"ghazal/sh{k}", [(hemistich(theme), hemistich(theme)) for _ in range(4)])
