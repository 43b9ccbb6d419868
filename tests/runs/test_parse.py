"""The one parser of LLM answers (runs/parse.py)."""

import json

import pytest
from factories import DATA

from persian_tui.runs.parse import Parsed, parse_answer


def ok(text, answer, method=None, **kw):
    p = parse_answer(text, **kw)
    assert (p.status, p.answer) == ("ok", answer), (text, p)
    if method:
        assert p.method == method, (text, p)
    return p


@pytest.mark.parametrize("text, answer, method", [
    ('{"answer": 2}', 2, "json"),
    ('```json\n{"answer": 3}\n```', 3, "json"),
    ('Here you go:\n```json\n{ "answer" : "4" }\n```\nHope this helps.', 4, "json"),
    ('{"answer": "۲"}', 2, "json"),
    ('{"choice": "C"}', 3, "json:letter"),
    ('{"outlier": 1}', 1, "json"),
    ('{"Option": "گزینه ۴"}', 4, "json"),
    ('{"result": {"answer": 2, "why": "..."}}', 2, "json"),
])
def test_json(text, answer, method):
    ok(text, answer, method)


@pytest.mark.parametrize("text, answer, method", [
    ("Answer: 3", 3, "tag"),
    ("**Answer:** 3", 3, "tag"),
    ("ANSWER: 2", 2, "tag"),
    ("Final answer: option 2", 2, "tag"),
    ("The answer is (B).", 2, "tag:letter"),
    ("Answer: C", 3, "tag:letter"),
    ("answer: (d)", 4, "tag:letter"),
    ("The outlier is option 4.", 4, "tag"),
    ("Option 3 is the outlier, because it speaks of wine.", 3, "tag"),
    (r"So the result is \boxed{3}.", 3, "tag"),
    ("<answer>2</answer>", 2, "tag"),
    ("پاسخ: ۳", 3, "tag"),
    ("جواب: ٤", 4, "tag"),
    ("پاسخ نهایی: گزینه الف", 1, "tag:persian_letter"),
    ("پاسخ صحیح گزینه ۲ است.", 2, "tag"),
    ("جواب: گزینهٔ سوم", 3, "tag:word"),
    ("گزینه ۲ صحیح است", 2, "tag"),
    ("بیت‌های دیگر از عشق می‌گویند؛ گزینه‌ی چهارم متفاوت است.", 4, "tag:word"),
    ("Options 1, 2 and 4 praise love.\nFinal answer: 3", 3, "tag"),
])
def test_explicit_markers(text, answer, method):
    ok(text, answer, method)


@pytest.mark.parametrize("text, answer, method", [
    ("3", 3, "bare"),
    (" **3** \n", 3, "bare"),
    ("3.", 3, "bare"),
    ("(2)", 2, "bare"),
    ("۳", 3, "bare"),
    ("١", 1, "bare"),
    ("(B)", 2, "bare:letter"),
    ("D", 4, "bare:letter"),
    ("الف)", 1, "bare:persian_letter"),
    ("گزینه ب", 2, "bare:persian_letter"),
    ("گزینه ۲", 2, "bare"),
    ("گزینهٔ سوم", 3, "bare:word"),
    ("Option 4", 4, "bare"),
    ("Option 1 speaks of love.\nOption 2 of wine.\n\n**4**", 4, "last_line"),
])
def test_bare_and_last_line(text, answer, method):
    ok(text, answer, method)


def test_think_block_is_reasoning_not_answer():
    p = ok("<think>Maybe... Answer: 1. No wait.</think>\nAnswer: 3", 3, "tag")
    assert p.reasoning == "Maybe... Answer: 1. No wait."


def test_several_think_blocks_and_separate_reasoning_are_joined():
    p = ok("<think>first</think>x\n<THINK>second</THINK>\n2", 2, "last_line", reasoning="from provider")
    assert p.reasoning == "from provider\n\nfirst\n\nsecond"
    assert parse_answer("3", reasoning="r").reasoning == "r"
    assert parse_answer("3").reasoning is None


def test_unterminated_think_is_content_not_a_cut():
    # only a closed block is reasoning: an unterminated tag cannot hide what follows it
    p = parse_answer("<think>Option 1 is about love... Answer: 2")
    assert (p.status, p.answer, p.reasoning) == ("ok", 2, None)


def test_orphan_closing_tag_closes_everything_before_it():
    p = ok("The options... so 1?</think>\n\n4", 4, "bare")
    assert p.reasoning == "The options... so 1?"


def test_last_marker_wins():
    ok("Answer: 1\nHmm, on reflection option 1 shares the theme.\nAnswer: 3", 3, "tag")
    ok("پاسخ: ۲\nنه، پاسخ: ۴", 4, "tag")
    ok("The answer is B... Final answer: D", 4, "tag:letter")


@pytest.mark.parametrize("text", [
    "Options 1 and 3 share the theme of love, while 2 and 4 speak of fate.",
    "I think it is 3 couplets",  # a count, not an option
    "Couplet 2 mentions wine; couplet 4 mentions the rose.",
    "The answer is A beautiful question.",  # "A" is an article
    "Answer: 3 or 4",  # ambiguous
    "پاسخ: ۱ و ۳",
    "گزینه ۱ و ۳ درباره عشق است",
    "جواب داد که ۳",  # "جواب داد" = (he) replied
])
def test_no_first_digit_anywhere(text):
    p = parse_answer(text)
    assert (p.status, p.answer) == ("invalid", None), p


def test_explicit_outlier_statement_after_discussion():
    ok("Options 1 and 3 share love; the outlier is 4", 4, "tag")


@pytest.mark.parametrize("text", ["5", "0", "Answer: 5", "Answer: 0", "پاسخ: ۵", '{"answer": 5}',
                                  '{"answer": 0}', "Answer: 34", '{"answer": null}', '{"answer": true}'])
def test_out_of_range_is_invalid(text):
    p = parse_answer(text)
    assert (p.status, p.answer) == ("invalid", None), p


def test_two_answers_one_out_of_range_are_ambiguous_not_a_fallback():
    assert parse_answer("Answer: 2\nAnswer: 7").status == "ambiguous"


def test_n_options():
    assert parse_answer("5", n_options=5).answer == 5
    assert parse_answer("4", n_options=3).status == "invalid"


@pytest.mark.parametrize("text", [
    "I can't help with that.",
    "I'm sorry, but I cannot determine the outlier.",
    "As an AI, I don't have personal interpretations of poetry.",
    "متاسفانه نمی‌توانم به این سوال پاسخ دهم.",
    "متأسفانه قادر به تشخیص نیستم.",
])
def test_refusal(text):
    p = parse_answer(text)
    assert (p.status, p.answer, p.method) == ("refusal", None, "none")


def test_refusal_with_an_answer_is_an_answer():
    ok("I can't be certain, but Answer: 2", 2, "tag")


@pytest.mark.parametrize("text", [None, "", "   \n ", "<think>all thought</think>", "<think></think>\n"])
def test_empty(text):
    assert parse_answer(text).status == "empty"


def test_result_type():
    p = parse_answer("Answer: 2")
    assert isinstance(p, Parsed) and p == Parsed(2, "ok", None, "tag")


@pytest.mark.parametrize("text, expected", [
    # a later mention in a negated, interrogative, comparative or explanatory clause is not an answer
    ("پاسخ: ۳\nچرا گزینه ۲ درست نیست؟", 3),
    ("Answer: 2\nOption 3 also mentions the night, but its meaning matches the others.", 2),
    ("Answer: 2. Couplet 3 only differs in its imagery.", 2),
    ("Answer: 4. Option 2 is not the outlier.", 4),
    ("The answer is 1, because couplet 1, unlike couplet 3, speaks of fate.", 1),
    ("پاسخ: ۴\nبیت دوم مانند بیت سوم از صبر می‌گوید.", 4),
    ("پاسخ: ۱\nبیت سوم متفاوت نیست.", 1),
    # an explicit self-correction is the answer
    ("Answer: 3\nActually, the answer is 2.", 2),
    ("The outlier is 1. On second thought, the answer is 4.", 4),
    ("پاسخ: ۳\nاصلاح می‌کنم: پاسخ ۲ است.", 2),
    ("پاسخ: ۱\nدر واقع پاسخ گزینه ۴ است.", 4),
    ("Answer: 1\nFinal answer: 3", 3),
    # two explicit answers with no correction cue: ambiguous, never guessed
    ("Answer: 2\nAnswer: 3", "ambiguous"),
    ("پاسخ: ۲\nپاسخ: ۳", "ambiguous"),
    ("I'd pick 2. The correct option is 3.", "ambiguous"),
    ("The third couplet is the odd one out.\nAnswer: 1", "ambiguous"),
    ('{"answer": 1} {"answer": 2}', "ambiguous"),
    ("Answer: 2\nAnswer: 2", 2),
])
def test_reads_clauses(text, expected):
    p = parse_answer(text)
    assert (p.answer if p.status == "ok" else p.status) == expected, p


@pytest.mark.parametrize("text, expected", [
    ("I would choose option 3", 3), ("I'd pick 2", 2), ("I'll go with C.", 3),
    ("گزینه ۳ را انتخاب می‌کنم", 3), ("The correct option is 4", 4),
    ("The third couplet is the outlier", 3), ("The fourth couplet does not fit.", 4),
    ("Option 2 is the odd one out.", 2), ("Couplet 1 differs from the others.", 1),
    ("بیت سوم با بقیه متفاوت است", 3), ("بیت دوم با بقیه فرق دارد", 2),
    ("بیت چهارم با ابیات دیگر قرابت ندارد", 4), ("بیت اول با بقیه هم‌خوان نیست", 1),
    ("گزینه ۳ ناهمگون است", 3), ("Answer: four", 4), ("پاسخ: سه", 3),
    ("پاسخ صحیح گزینه «ب» است", 2), ("4️⃣", 4), ("3⃣", 3),
    ("3. The third couplet speaks of fate; the rest of love.", 3),
    ("۲) بیت دوم از تقدیر می‌گوید.", 2),
])
def test_common_clear_forms(text, expected):
    p = parse_answer(text)
    assert (p.status, p.answer) == ("ok", expected), p


@pytest.mark.parametrize("text", [
    "Option 2 is not correct.", "گزینه ۲ درست نیست.", "Is the answer 3?", "If the answer were 3, we would see wine.",
    "Couplet 2 might be the outlier, or maybe couplet 3.", "سه بیت نخست از عشق نمی‌گویند.",
])
def test_no_assertion_is_no_answer(text):
    assert parse_answer(text).status == "invalid"


def _corpus():

    path = DATA / "replies.jsonl"
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def test_corpus_of_replies():
    """Every hand-labelled reply is read as a careful person reads it."""
    corpus = _corpus()
    assert len(corpus) >= 150
    wrong, fixed = [], []
    for item in corpus:
        p = parse_answer(item["text"])
        got = p.answer if p.status == "ok" else p.status
        if (got != item["expect"]) != bool(item.get("known_miss")):
            (fixed if item.get("known_miss") else wrong).append((item["id"], item["text"][:80], item["expect"], got))
    assert not wrong, wrong
    assert not fixed, f"read right now, drop known_miss: {fixed}"
    assert sum(bool(item.get("known_miss")) for item in corpus) <= 5  # the bench reports them


def test_ambiguous_replies_are_stored_and_counted_as_unusable(store):
    """Through a real LLM run: an ambiguous reply is stored as such, counted with the invalid
    answers in the run summary and the report, and never scored as an answer."""
    import asyncio

    from factories import make_question
    from llm_server import LLMServer, chat

    from persian_tui.reports.figures import build_report
    from persian_tui.runs import LLMRunSpec, create_llm_run, execute_llm_run

    store.questions.add_questions([make_question(f"q-{i}", couplets=[(f"الف {i} {j}", f"ب {i} {j}") for j in range(4)],
                                                 key=2) for i in range(4)])
    replies = {"0": "Answer: 2\nAnswer: 3", "1": "پاسخ: ۳\nچرا گزینه ۲ درست نیست؟", "2": "Answer: 2", "3": "پاسخ: ۲\nپاسخ: ۴"}  # noqa: E501

    def script(body, n):
        text = body["messages"][-1]["content"]
        return chat(next(r for i, r in replies.items() if f"الف {i} 0" in text))

    with LLMServer(script) as server:
        run = create_llm_run(store, LLMRunSpec(base_url=server.url, model="m", max_retries=0))
        progress = asyncio.run(execute_llm_run(store.path, run.id))
    preds = {p.uid: p for p in store.runs.predictions(run.id)}
    assert [preds[f"q-{i}"].parse_status for i in range(4)] == ["ambiguous", "ok", "ok", "ambiguous"]
    assert preds["q-0"].predicted is None and preds["q-1"].predicted == 3
    assert (progress.correct, progress.invalid) == (1, 2)
    (summary,) = store.runs.run_summaries()
    assert (summary.correct, summary.invalid, summary.errors) == (1, 2, 0)
    (row,) = build_report(store).leaderboard
    assert (row.correct, row.invalid) == (1, 2)


@pytest.mark.parametrize("text, expected", [
    ('{"a":' * 5000 + "1" + "}" * 5000 + "\nAnswer: 2", 2),  # nesting deeper than the recursion limit
    ("{" * 20000 + " Answer: 3", 3),
    ('{"answer": ' * 3000, "invalid"),
    ("1 2 3 4 " * 5000, "invalid"),
    ("\x00\x1b[31m" * 1000 + "\nAnswer: 4", 4),
    ("\ud800 Answer: 1", 1),  # a lone surrogate
    ("Couplet 1 speaks of love. " * 2000 + "Answer: 3", 3),
])
def test_hostile_replies_are_read_not_crashed(text, expected):
    p = parse_answer(text)
    assert (p.answer if p.status == "ok" else p.status) == expected


def test_the_last_option_is_the_nth():
    assert parse_answer("The last couplet is the odd one out.").answer == 4
    assert parse_answer("بیت آخر با بقیه فرق دارد.", n_options=5).answer == 5
    assert parse_answer("آخرین بیت متفاوت است.").answer == 4
    assert parse_answer("Answer: 4. The last couplet is the odd one out.", n_options=5).status == "ambiguous"
    assert parse_answer("At last, the answer is 3.").answer == 3


# classes found by replies written after the corpus (each case differs from the corpus's wording)
@pytest.mark.parametrize("text, expected", [
    # control characters and terminal escapes are not text
    ("Final answer:\x07 3", 3), ("\x1b[32mپاسخ: ۲\x1b[0m", 2), ("Answer:\x0c4", 4),
    # all options but one said to belong together name the remaining one; an explicit answer wins
    ("Verses 2, 3 and 4 all describe the night; verse 1 the morning.", 1),
    ("گزینه‌های ۱، ۳ و ۴ هم‌مضمون‌اند.", 2),
    ("The last three couplets share a theme.", 1),
    ("Couplets 1, 2 and 3 share the theme. Answer: 1", 1),
    ("Couplets 1, 2 and 3 do not share the theme.", "invalid"),
    ("Couplets 1, 2, 3 and 4 share the theme.", "invalid"),
    # an aside between a subject and its claim is not a clause; an aside offering another option is
    ("Option 4 (about the moth and the candle) is the odd one out.", 4),
    ("بیت ۱ (بیت مربوط به شمع) با بقیه فرق دارد.", 1),
    ("Option 4 (or maybe 2) is the odd one out.", "invalid"),
    # "not X — Y", an elided fit verb, "as does X", hedges vs conditions
    ("Not option 1; option 3.", 3),
    ("Couplets 2 and 3 fit. Couplet 1 doesn't.", 1),
    ("Option 3 stands out, as does option 2.", "invalid"),
    ("If forced to choose, I'd say 2.", 2),
    ("Answer: 4. If we read it literally, the answer would be 1.", 4),
    # choose verbs, "Final:", several options offered, undecided is not a refusal
    ("We lean toward option 3.", 3), ("I'd go for couplet 2.", 2), ("Final: گزینه ۱", 1),
    ("The answer is one of 2 and 4.", "invalid"),
    ("I can't decide between option 2 and option 4.", "invalid"),
    ("I can't decide which couplet is different.", "refusal"),
    # a heading's colon before a numbered list is not an answer marker; "Or 3." after an answer
    ("Going through each option:\n\n2. about love\n\nThe outlier is 4.", 4),
    ("My pick: 1. Or maybe 4.", "invalid"), ("گزینه ۳ درست است. یا شاید ۲.", "invalid"),
    # a Persian opinion with a subjunctive copula; a negation after the option, then the answer
    ("به نظرم بیت ۴ باشد.", 4), ("بیت دوم نه؛ بیت سوم.", 3), ("Couplet 1 no — couplet 2.", 2),
])
def test_reply_classes_beyond_the_corpus(text, expected):
    p = parse_answer(text)
    assert (p.answer if p.status == "ok" else p.status) == expected


def test_the_answer_parser_keeps_an_unterminated_think_as_content():
    from persian_tui.runs.parse import parse_answer, split_reasoning

    assert split_reasoning("Answer: 2\n<think>") == ("Answer: 2\n<think>", [])
    assert split_reasoning("<think>a</think>b<think>c") == ("\nb<think>c", ["a"])
    assert parse_answer("<think>a</think>Answer: 3").answer == 3


def test_a_huge_reply_is_read_from_its_head_and_tail():
    """The parser reads at most MAX_PARSE_CHARS of a reply's body, its head and
    its tail (where an answer is stated); the middle of a megabyte reply is never scanned."""
    from persian_tui.runs.parse import MAX_PARSE_CHARS

    filler = "و " * MAX_PARSE_CHARS
    assert parse_answer(filler + "Answer: 3").answer == 3
    assert parse_answer("Answer: 2\n" + filler).answer == 2
    assert parse_answer(filler + " Answer: 4 " + filler).status != "ok"  # only in the unread middle


def test_the_parsers_statuses_are_the_models_but_the_clients_api_error():
    """parse.py is copied into releases on its own, so it spells its statuses itself."""
    from typing import get_args

    from persian_tui.models import PARSE_STATUSES
    from persian_tui.runs.parse import Status

    assert set(get_args(Status)) == set(PARSE_STATUSES) - {"api_error"}


def test_short_replies_are_remembered_and_read_as_afresh():
    """Short replies repeat across a run (a model that complies answers "Answer: 2" hundreds
    of times): they are read once and remembered, with what a fresh read gives; long ones
    (reasoning, hostile megabytes) are read each time and never kept."""
    from persian_tui.runs import parse

    parse._remembered.cache_clear()
    replies = ["Answer: 2", "پاسخ: ۳", '{"answer": 4}', "<think>1 or 2?</think>Answer: 1", "2", "", None]
    first = [parse_answer(t) for t in replies]
    again = [parse_answer(t) for t in replies]
    assert again == first == [parse._parse(t, None, 4) for t in replies]
    assert parse._remembered.cache_info().hits == len(replies)
    assert parse_answer("Answer: 3", n_options=2).status == "invalid"  # the options' count is part of the key
    assert parse_answer("Answer: 2", reasoning="because").reasoning == "because"
    long = "Let me think. " * 100 + "Answer: 4"
    size = parse._remembered.cache_info().currsize
    assert parse_answer(long).answer == 4 and parse._remembered.cache_info().currsize == size
