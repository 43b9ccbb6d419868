"""Prompt strategies for asking an LLM the outlier question.

"zero-shot" and "few-shot" are the seed benchmark's prompts, verbatim (exp-1/ask-llm.py of
ArmanJR/Persian-Poetry-Semantic-Similarity-Benchmark). The others adapt them: structured JSON,
a short justification then `ANSWER: n`, and few-shot with explained exemplars from the bank.
Stored text is shown as is (no normalization); hemistichs are joined with " - ".
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from ..models import Question

Strategy = Literal["zero-shot", "few-shot", "json", "justify", "explained-few-shot"]
STRATEGIES: tuple[Strategy, ...] = get_args(Strategy)
VERSIONS: dict[str, str] = {s: "v1" for s in STRATEGIES}

# ---------------------------------------------------------------- seed text (verbatim)

ZERO_SHOT_SYSTEM = (
    "You are an AI assistant analyzing Persian poetry couplets. Identify the outlier based on "
    "concept/message. Respond *only* with the single digit number (1, 2, 3, or 4) of the outlier "
    "option. Output nothing else."
)

FEW_SHOT_SYSTEM = """You are an expert literary critic with a deep understanding of Persian poetry, its cultural nuances, and its stylistic features. Your task is to analyze a set of poetic options—each option presenting two parts of a couplet—and identify the one option that deviates in conceptual meaning or thematic message from the others. Focus exclusively on the underlying concepts, disregarding stylistic or linguistic differences.

For example:

---
Options:
1. طریق عشق پرآشوب و فتنه است ای دل - بیفتد آن که در این راه با شتاب رود
2. گر نور عشق حق به دل و جانت اوفتد - بالله از آفتاب فلک خوبتر شوی
3. شکوه عشق نگه کن که موی مجنون را - فلک به شعشعه آفتاب، شانه کند
4. فرزانه درآید به پری خانه مقصود - هر کس که در این بادیه دیوانه عشق است

Correct answer: 1

(Option 1 warns against hastily pursuing the turbulent path of love, whereas the other options present love as an uplifting force)

---
Options:
1. شمشیر نیک از آهن بد چون کند کسی؟ - ناکس تربیت نشود ای حکیم کس
2. سگ به دریای هفت گانه بشوی - که چو تر شد پلیدتر باشد
3. ز وحشی نیاید که مردم شود - به سعی اندر او تربیت گم شود
4. سگ اصحاب کهف روزی چند - پی نیکان گرفت و مردم شد

Correct answer: 4

(Option 4 emphasizes the significant impact of upbringing, unlike the other options which imply that upbringing makes little difference)

---
Options:
1. هر چند خوشگوار بود باده غرور - زین می فزون از سنگ نگه دار شیشه را
2. از ساده دلی هر که دهد پند به مغرور - بیدار به افسانه کند خواب گران را
3. کبر مفروش به مردم که به میزان نظر - زود گردد سبک آن کس که بود سنگین تر
4. خاک بر فرقش اگر از کبر سر بالا کند - هر که داند بازگشت او به غیر از خاک نیست

Correct answer: 2

(The meaning of option 2 is the ineffectiveness of giving advice to the arrogant, while the common meaning of the other options is the recommendation to avoid arrogance)"""

USER_HEAD = "Analyze the conceptual meaning of the following options:\n\nOptions:\n"
INSTRUCTION = (
    "Instruction: Identify the *single* option (by its number) that has a different concept and "
    "message from the others. Respond with *only* the number (1, 2, 3, or 4). Do not provide any "
    "explanation or other text."
)

# ---------------------------------------------------------------- our adaptations

# the critic framing of the seed's few-shot prompt, without its examples
CRITIC = FEW_SHOT_SYSTEM.split("\n\nFor example:", 1)[0]

JSON_SYSTEM = (
    "You are an AI assistant analyzing Persian poetry couplets. Identify the outlier based on "
    'concept/message. Respond *only* with a JSON object {"answer": n}, where n is the number '
    "(1, 2, 3, or 4) of the outlier option. Output nothing else."
)
JSON_INSTRUCTION = (
    "Instruction: Identify the *single* option (by its number) that has a different concept and "
    'message from the others. Respond with *only* the JSON object {"answer": n}, where n is 1, 2, '
    "3, or 4. Do not provide any explanation or other text."
)

JUSTIFY_SYSTEM = CRITIC + (
    "\n\nFirst give a short justification (1 to 3 sentences, in Persian or English): the message "
    "the other options share and how the outlier differs. Then end with a final line of the form "
    "`ANSWER: n`, where n is the number (1, 2, 3, or 4) of the outlier option."
)
JUSTIFY_INSTRUCTION = (
    "Instruction: Identify the *single* option (by its number) that has a different concept and "
    "message from the others. Justify your choice briefly (1 to 3 sentences), then write the "
    "final line exactly as `ANSWER: n` (n is 1, 2, 3, or 4)."
)

# explained few-shot: the seed's few-shot layout, exemplars from the bank
EXAMPLES_HEAD = "\n\nFor example:\n\n"
EXAMPLE = "---\nOptions:\n{options}\n\nCorrect answer: {key}\n\n({explanation})"
EXAMPLE_SEP = "\n\n"

JSON_SCHEMA = {
    "type": "json_schema",
    "json_schema": {
        "name": "outlier_answer",
        "strict": True,
        "schema": {
            "type": "object",
            "properties": {"answer": {"type": "integer", "enum": [1, 2, 3, 4]}},
            "required": ["answer"],
            "additionalProperties": False,
        },
    },
}

# strategy -> (system, user instruction); explained-few-shot appends the exemplars to CRITIC
TEMPLATES = {
    "zero-shot": (ZERO_SHOT_SYSTEM, INSTRUCTION),
    "few-shot": (FEW_SHOT_SYSTEM, INSTRUCTION),
    "json": (JSON_SYSTEM, JSON_INSTRUCTION),
    "justify": (JUSTIFY_SYSTEM, JUSTIFY_INSTRUCTION),
    "explained-few-shot": (CRITIC + EXAMPLES_HEAD + "{examples}", INSTRUCTION),
}
OPTION_LINE = "{n}. {mesra1} - {mesra2}"


def _template_text(strategy: str) -> str:
    """Everything of a strategy's prompt except the question: what template_hash covers."""
    system, instruction = TEMPLATES[strategy]
    parts: dict[str, object] = {"strategy": strategy, "version": VERSIONS[strategy], "system": system, "user_head": USER_HEAD,
             "option_line": OPTION_LINE, "instruction": instruction}
    if strategy == "explained-few-shot":
        parts["example"], parts["example_sep"] = EXAMPLE, EXAMPLE_SEP
    if strategy == "json":
        parts["response_format"] = JSON_SCHEMA
    return json.dumps(parts, ensure_ascii=False, sort_keys=True)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


TEMPLATE_HASHES: dict[str, str] = {s: _sha(_template_text(s)) for s in STRATEGIES}


@dataclass(frozen=True)
class Prompt:
    messages: list[dict]  # OpenAI chat messages
    response_format: dict | None  # JSON schema for "json", else None
    template: str  # strategy/version, e.g. "zero-shot/v1"
    template_hash: str  # sha256 of the template text (not of the question)
    exemplars: tuple[str, ...]  # uids of the exemplar questions shown
    order: tuple[int, ...]  # displayed position i shows original option order[i] (1-based)


def _options(q: Question, order: Sequence[int]) -> str:
    by_pos = {o.position: o for o in q.options}
    return "\n".join(OPTION_LINE.format(n=i, mesra1=by_pos[p].mesra1, mesra2=by_pos[p].mesra2)
                     for i, p in enumerate(order, 1))


def _example(ex: Question) -> str:
    return EXAMPLE.format(options=_options(ex, sorted(o.position for o in ex.options)), key=ex.key,
                          explanation=(ex.explanation or "").strip())


def render(strategy: str, q: Question, *, exemplars: Sequence[Question] = (),
           order: Sequence[int] | None = None) -> Prompt:
    """The chat messages asking `q` with `strategy`, options displayed in `order`."""
    if strategy not in TEMPLATES:
        raise ValueError(f"unknown strategy {strategy!r}; choose {', '.join(STRATEGIES)}")
    positions = sorted(o.position for o in q.options)
    if positions != [1, 2, 3, 4]:
        raise ValueError(f"question {q.uid} has options {positions}, expected 1..4")
    order = tuple(order) if order is not None else (1, 2, 3, 4)
    if sorted(order) != positions:
        raise ValueError(f"order {order} is not a permutation of 1..4")
    system, instruction = TEMPLATES[strategy]
    if strategy == "explained-few-shot":
        if not exemplars:
            raise ValueError("explained-few-shot needs exemplars (see pick_exemplars)")
        for ex in exemplars:
            if ex.uid == q.uid or ex.key is None or not (ex.explanation or "").strip():
                raise ValueError(f"exemplar {ex.uid} is the item itself or lacks a key or an explanation")
        system = system.replace("{examples}", EXAMPLE_SEP.join(_example(ex) for ex in exemplars))
    elif exemplars:
        raise ValueError(f"{strategy} takes no exemplars (only explained-few-shot does)")
    user = USER_HEAD + _options(q, order) + "\n\n" + instruction
    return Prompt(
        messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
        response_format=JSON_SCHEMA if strategy == "json" else None,
        template=f"{strategy}/{VERSIONS[strategy]}",
        template_hash=TEMPLATE_HASHES[strategy],
        exemplars=tuple(ex.uid for ex in exemplars) if strategy == "explained-few-shot" else (),
        order=order,
    )


# ---------------------------------------------------------------- exemplars and shuffling


def _couplets(q: Question) -> set[str]:
    from ..text import couplet_key

    return {couplet_key(o.mesra1, o.mesra2) for o in q.options}


def pick_exemplars(q: Question, bank: Sequence[Question], k: int = 3, seed: int = 0) -> list[Question]:
    """Up to k bank questions with a key and an explanation, same category first, in a
    hash order fixed by (q.uid, seed). Never q itself, nor one sharing a couplet with q (or
    with an exemplar already chosen); retired questions are left out."""
    def rank(c: Question) -> tuple[bool, str]:
        same = bool(q.category) and c.category == q.category
        return (not same, _sha(f"{q.uid}\x1f{seed}\x1f{c.uid}"))

    candidates = {c.uid: c for c in reversed(bank)
                  if c.uid != q.uid and c.key is not None and (c.explanation or "").strip()
                  and c.status != "retired" and len(c.options) == 4}
    taken = _couplets(q)
    chosen: list[Question] = []
    for c in sorted(candidates.values(), key=rank):
        if len(chosen) == k:
            break
        keys = _couplets(c)
        if keys & taken:
            continue
        chosen.append(c)
        taken |= keys
    return chosen


def leaks_few_shot(q: Question) -> bool:
    """True when q shares a couplet with the seed's few-shot examples (its answer is in the prompt)."""
    from ..text import couplet_key

    lines = [line.split(". ", 1)[1] for line in FEW_SHOT_SYSTEM.splitlines() if line[:1] in "1234" and ". " in line]
    seed = {couplet_key(*line.split(" - ", 1)) for line in lines}
    return bool(_couplets(q) & seed)


def shuffled_order(uid: str, seed: int, n: int = 4) -> tuple[int, ...]:
    """A permutation of 1..n fixed by (uid, seed): sha256-ranked, the same in every process."""
    return tuple(sorted(range(1, n + 1), key=lambda i: _sha(f"{uid}\x1f{seed}\x1f{i}")))


def original_answer(displayed: int | None, order: Sequence[int]) -> int | None:
    """The original option of a displayed answer (None stays None; out of range -> None)."""
    if displayed is None or not 1 <= displayed <= len(order):
        return None
    return order[displayed - 1]


# ---------------------------------------------------------------- paraphrase (poem to prose)

PARAPHRASE_SYSTEM = (
    "You are an expert in classical Persian literature. Rewrite the given Persian couplet as plain, "
    "contemporary Persian prose that states its meaning, making its metaphors, allusions and irony "
    "explicit. Answer with the prose only, in Persian, in one or two sentences."
)
PARAPHRASE_TEMPLATE = "paraphrase/v1"
PARAPHRASE_HASH = _sha(PARAPHRASE_TEMPLATE + PARAPHRASE_SYSTEM)


def render_paraphrase(mesra1: str, mesra2: str) -> list[dict]:
    """Messages asking for the prose meaning of one couplet (GhazalBench's poem-to-prose task)."""
    return [{"role": "system", "content": PARAPHRASE_SYSTEM},
            {"role": "user", "content": f"{mesra1}\n{mesra2}"}]


# ---------------------------------------------------------------- recall probes (GhazalBench's)

# GhazalBench's Persian prompts (its appendix A.4), with the poet named in the cue rather than
# fixed to Hafez, and four choices (الف ب ج د) rather than three
RECALL_ROLE = ("شما یک مدل زبانی هستید که برای بازیابی مصراع دوم دقیق و اصیل اشعار کلاسیک فارسی "
               "طراحی شده‌اید.")
RECALL_CUES = {
    "first": "به شما نام شاعر و مصراع اول یکی از ابیات او داده می‌شود.",
    "prose": "به شما نام شاعر، مصراع اول یکی از ابیات او و نثر روان فارسی همان بیت داده می‌شود.",
    "words": "به شما نام شاعر، مصراع اول یکی از ابیات او و دو واژه از مصراع دوم همان بیت داده می‌شود.",
    "shuffled": ("به شما نام شاعر، مصراع اول یکی از ابیات او و نسخه‌ای از مصراع دوم همان بیت که "
                 "ترتیب واژگان آن جابه‌جا شده است داده می‌شود."),
}
RECALL_COMPLETE = (
    "وظیفهٔ شما این است که مصراع دوم واقعی همین بیت را، چنان که در دیوان شاعر آمده است، بدون هیچ "
    "تغییری بازگردانید.\n\n"
    "لطفاً دستورالعمل‌های زیر را دقیقاً رعایت کنید:\n"
    "۱- هیچ مصراعی نسازید؛ فقط از متن معتبر دیوان بازیابی کنید.\n"
    "۲- مصراع باید کاملاً مطابق متن اصلی باشد؛ هیچ واژه یا نشانه‌ای را تغییر ندهید.\n"
    "۳- خروجی را فقط در قالب زیر بازگردانید و از هرگونه توضیح اضافی خودداری کنید:\n"
    "<answer>مصراع دوم</answer>"
)
RECALL_CHOOSE = (
    "سپس یک پرسش چهارگزینه‌ای می‌آید که در آن مصراع دوم واقعی همین بیت پرسیده می‌شود. وظیفهٔ "
    "شما این است که تنها یک گزینهٔ درست را انتخاب کنید. پاسخ شما باید فقط حرف گزینهٔ درست "
    "(الف، ب، ج یا د) باشد و هیچ متن یا توضیح دیگری نداشته باشد."
)
UNKNOWN_POET = "نامعلوم"
CHOICE_LETTERS = ("الف", "ب", "ج", "د")
RECALL_VERSION = "recall/v1"
RECALL_HASH = _sha(json.dumps([RECALL_VERSION, RECALL_ROLE, RECALL_CUES, RECALL_COMPLETE, RECALL_CHOOSE,
                               UNKNOWN_POET], ensure_ascii=False))


def recall_cue(cue: str, poet: str | None, first: str, extra: str | None = None) -> str:
    """The cue a probe gives (stored with it): the poet (unknown when the couplet is not linked to
    the corpus), the first hemistich and, by cue, the prose, the two words or the shuffled second."""
    lines = [f"شاعر: {poet or UNKNOWN_POET}", f"مصراع اول: <first_verse>{first}</first_verse>"]
    if cue == "prose":
        lines.append(f"نثر بیت: <couplet_prose>{extra}</couplet_prose>")
    elif cue == "words":
        lines.append(f"واژه‌ها: {extra}")
    elif cue == "shuffled":
        lines.append(f"مصراع دوم با ترتیب واژگانی جابه‌جاشده: <shuffled_second_verse>{extra}</shuffled_second_verse>")
    return "\n".join(lines)


def render_recall(cue: str, cue_text: str, choices: Sequence[str] | None = None) -> list[dict]:
    """Messages of one recall probe: `choices` (four second hemistichs, in the order shown) for
    the choose format, else the model writes the second hemistich."""
    task = RECALL_CHOOSE if choices is not None else RECALL_COMPLETE
    system = f"{RECALL_ROLE}\n\n{RECALL_CUES[cue]} {task}"
    user = cue_text
    if choices is not None:
        user += "\n\nگزینه‌ها:\n" + "\n".join(f"{CHOICE_LETTERS[i]}) {c}" for i, c in enumerate(choices))
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]
