"""Prompt strategies (runs/prompts.py): the seed's prompts verbatim, the other strategies, option
order, few-shot exemplars."""

import re

import pytest
from factories import COUPLETS, ROOT, make_question

from persian_tui.runs.parse import parse_answer
from persian_tui.runs.prompts import (
    FEW_SHOT_SYSTEM,
    STRATEGIES,
    ZERO_SHOT_SYSTEM,
    leaks_few_shot,
    original_answer,
    pick_exemplars,
    render,
    shuffled_order,
)

README = ROOT.parent / "shared" / "seeds" / "persian-poetry-benchmark-README.md"

INSTRUCTION = ("Instruction: Identify the *single* option (by its number) that has a different concept "
               "and message from the others. Respond with *only* the number (1, 2, 3, or 4). Do not "
               "provide any explanation or other text.")

OTHER = [("a1", "a2"), ("b1", "b2"), ("c1", "c2"), ("d1", "d2")]


def seed_user(couplets) -> str:
    """The seed's format_prompt (exp-1/ask-llm.py), line by line."""
    prompt = "Analyze the conceptual meaning of the following options:\n\n"
    prompt += "Options:\n"
    for n, (a, b) in enumerate(couplets, 1):
        prompt += f"{n}. {a} - {b}\n"
    prompt += "\n" + INSTRUCTION
    return prompt


def couplets_q(uid, tag, **kw):
    return make_question(uid, couplets=[(f"{tag}{i}a", f"{tag}{i}b") for i in range(4)], **kw)


# ---------------------------------------------------------------- seed prompts


def test_zero_shot_is_the_seed_prompt():
    p = render("zero-shot", make_question())
    assert p.messages[0] == {"role": "system", "content": (
        "You are an AI assistant analyzing Persian poetry couplets. Identify the outlier based on "
        "concept/message. Respond *only* with the single digit number (1, 2, 3, or 4) of the outlier "
        "option. Output nothing else.")}
    assert p.messages[1] == {"role": "user", "content": seed_user(COUPLETS)}
    assert p.messages[1]["content"].startswith(
        "Analyze the conceptual meaning of the following options:\n\nOptions:\n"
        "1. طریق عشق پرآشوب و فتنه است ای دل - بیفتد آن که در این راه با شتاب رود\n2. ")
    assert p.response_format is None and p.template == "zero-shot/v1" and p.exemplars == ()


def test_few_shot_is_the_seed_prompt():
    p = render("few-shot", make_question())
    system = p.messages[0]["content"]
    assert system == FEW_SHOT_SYSTEM
    assert system.startswith("You are an expert literary critic with a deep understanding of Persian "
                             "poetry, its cultural nuances, and its stylistic features. Your task is to "
                             "analyze a set of poetic options—each option presenting")
    assert "\n\nFor example:\n\n---\nOptions:\n1. طریق عشق" in system
    assert "\n\nCorrect answer: 4\n\n(Option 4 emphasizes the significant impact of upbringing" in system
    assert system.endswith("the common meaning of the other options is the recommendation to avoid arrogance)")
    assert system.count("---\nOptions:\n") == 3
    assert p.messages[1]["content"] == seed_user(COUPLETS)


def test_seed_prompts_match_the_readme():
    if not README.is_file():
        pytest.skip("seed README not available")
    blocks = re.findall(r"```\n(.*?)\n```", README.read_text("utf-8"), re.S)
    assert blocks[0] == ZERO_SHOT_SYSTEM
    assert blocks[2] == FEW_SHOT_SYSTEM
    # the README's sample question, minus its markdown line-break spaces
    sample = re.sub(r" +\n", "\n", blocks[1])
    lines = re.findall(r"^\d\. (.*) - (.*)$", sample, re.M)
    assert render("zero-shot", make_question(couplets=lines)).messages[1]["content"] == sample


def test_text_is_not_normalized():
    couplets = [("كتاب عربي  ", "مي‌روم"), *OTHER[1:]]
    user = render("zero-shot", make_question(couplets=couplets)).messages[1]["content"]
    assert "1. كتاب عربي   - مي‌روم\n" in user


# ---------------------------------------------------------------- other strategies


def test_json_strategy():
    p = render("json", make_question())
    assert p.response_format == {"type": "json_schema", "json_schema": {
        "name": "outlier_answer", "strict": True,
        "schema": {"type": "object", "properties": {"answer": {"type": "integer", "enum": [1, 2, 3, 4]}},
                   "required": ["answer"], "additionalProperties": False}}}
    assert '{"answer": n}' in p.messages[0]["content"]
    assert "Options:\n1. طریق عشق" in p.messages[1]["content"]
    assert parse_answer('{"answer": 2}').answer == 2


def test_justify_strategy():
    p = render("justify", make_question())
    assert "ANSWER: n" in p.messages[0]["content"] and "ANSWER: n" in p.messages[1]["content"]
    assert "1 to 3 sentences" in p.messages[1]["content"]
    reply = "گزینه‌های ۲ تا ۴ عشق را نیرویی متعالی می‌دانند؛ گزینه ۱ از شتاب در راه عشق برحذر می‌دارد.\nANSWER: 1"
    assert parse_answer(reply).answer == 1


def test_explained_few_shot_with_the_seed_examples_is_the_seed_few_shot():
    blocks = FEW_SHOT_SYSTEM.split("---\n")[1:]
    exemplars = []
    for i, block in enumerate(blocks):
        couplets = re.findall(r"^\d\. (.*) - (.*)$", block, re.M)
        key = int(re.search(r"Correct answer: (\d)", block).group(1))
        why = re.search(r"^\((.*)\)$", block, re.M).group(1)
        exemplars.append(make_question(f"ex{i}", couplets=couplets, key=key, explanation=why))
    p = render("explained-few-shot", couplets_q("item", "x"), exemplars=exemplars)
    assert p.messages[0]["content"] == FEW_SHOT_SYSTEM
    assert p.exemplars == ("ex0", "ex1", "ex2")
    assert p.template == "explained-few-shot/v1"


def test_explained_few_shot_renders_bank_exemplars():
    ex = couplets_q("e1", "e", key=3, explanation="سه با بقیه فرق دارد")
    p = render("explained-few-shot", make_question(), exemplars=[ex])
    system = p.messages[0]["content"]
    assert "---\nOptions:\n1. e0a - e0b\n2. e1a - e1b\n3. e2a - e2b\n4. e3a - e3b\n\nCorrect answer: 3\n\n(سه با بقیه فرق دارد)" in system  # noqa: E501
    assert "For example:" in system and "طریق عشق" not in system  # not the seed's examples
    assert p.messages[1]["content"] == seed_user(COUPLETS)


def test_explained_few_shot_refuses_bad_exemplars():
    q = make_question("item", explanation="x")
    with pytest.raises(ValueError):
        render("explained-few-shot", q)  # none
    with pytest.raises(ValueError):
        render("explained-few-shot", q, exemplars=[q])  # the item itself
    with pytest.raises(ValueError):
        render("explained-few-shot", q, exemplars=[couplets_q("e", "e", explanation=None)])
    with pytest.raises(ValueError):
        render("zero-shot", q, exemplars=[couplets_q("e", "e", explanation="x")])


def test_unknown_strategy_and_bad_order():
    with pytest.raises(ValueError):
        render("chain-of-thought", make_question())
    with pytest.raises(ValueError):
        render("zero-shot", make_question(), order=(1, 1, 2, 3))


# ---------------------------------------------------------------- order


def test_order_displays_options_permuted():
    p = render("zero-shot", make_question(), order=(3, 1, 4, 2))
    lines = p.messages[1]["content"].split("Options:\n")[1].split("\n\n")[0].splitlines()
    assert lines == [f"{i}. {COUPLETS[o - 1][0]} - {COUPLETS[o - 1][1]}" for i, o in enumerate((3, 1, 4, 2), 1)]
    assert p.order == (3, 1, 4, 2)
    # the model answers "2" (what it sees in position 2) = original option 1
    assert original_answer(parse_answer("2").answer, p.order) == 1


def test_shuffled_order_is_deterministic_permutation():
    orders = {shuffled_order(f"q{i}", 0) for i in range(50)}
    assert all(sorted(o) == [1, 2, 3, 4] for o in orders)
    assert len(orders) > 10  # varies by item
    assert shuffled_order("q1", 0) == shuffled_order("q1", 0)
    assert any(shuffled_order(f"q{i}", 0) != shuffled_order(f"q{i}", 1) for i in range(10))
    assert shuffled_order("q1", 7) == (3, 4, 1, 2)  # fixed across processes and Python versions


def test_original_answer_round_trip():
    for seed in range(5):
        order = shuffled_order("item", seed)
        for original in (1, 2, 3, 4):
            displayed = order.index(original) + 1
            assert original_answer(displayed, order) == original
    assert original_answer(None, (2, 1, 3, 4)) is None
    assert original_answer(5, (2, 1, 3, 4)) is None
    assert original_answer(0, (2, 1, 3, 4)) is None


# ---------------------------------------------------------------- template hash


def test_template_hash_stable_across_questions_and_orders():
    for s in STRATEGIES:
        kw = {"exemplars": [couplets_q("e", "e", explanation="x")]} if s == "explained-few-shot" else {}
        a = render(s, make_question("a"), **kw)
        b = render(s, couplets_q("b", "b"), order=(4, 3, 2, 1), **kw)
        assert a.template_hash == b.template_hash and len(a.template_hash) == 64
        assert a.messages != b.messages
    hashes = {render(s, make_question(), **({"exemplars": [couplets_q("e", "e", explanation="x")]}
                                            if s == "explained-few-shot" else {})).template_hash
              for s in STRATEGIES}
    assert len(hashes) == len(STRATEGIES)


# ---------------------------------------------------------------- exemplars


def bank():
    return [
        couplets_q("love1", "l1", category="love", explanation="e"),
        couplets_q("love2", "l2", category="love", explanation="e"),
        couplets_q("love-nokey", "l3", category="love", key=None, status="draft", explanation="e"),
        couplets_q("love-noexp", "l4", category="love", explanation=None),
        couplets_q("love-retired", "l5", category="love", status="retired", explanation="e"),
        couplets_q("wine1", "w1", category="wine", explanation="e"),
        couplets_q("wine2", "w2", category="wine", explanation="e"),
        couplets_q("wine3", "w3", category="wine", explanation="e"),
        make_question("dup", couplets=[COUPLETS[0], *OTHER[1:]], category="love", explanation="e"),
    ]


def test_exemplars_never_the_item_and_prefer_its_category():
    q = make_question("item", category="love", explanation="e")
    picked = pick_exemplars(q, [*bank(), q], k=3)
    uids = [e.uid for e in picked]
    assert len(uids) == 3
    assert "item" not in uids and "dup" not in uids  # nor a question sharing a couplet
    assert set(uids[:2]) == {"love1", "love2"} and uids[2].startswith("wine")
    assert not {"love-nokey", "love-noexp", "love-retired"} & set(uids)


def test_exemplars_deterministic_per_item_and_seed():
    q = couplets_q("item", "i", category="other")
    b = bank()
    first = [e.uid for e in pick_exemplars(q, b, k=3, seed=0)]
    assert first == [e.uid for e in pick_exemplars(q, list(reversed(b)), k=3, seed=0)]
    assert len({tuple(e.uid for e in pick_exemplars(q, b, k=2, seed=s)) for s in range(20)}) > 1
    assert len(pick_exemplars(q, b, k=10)) == 6  # only the usable ones


def test_exemplars_do_not_share_couplets_with_each_other():
    a = couplets_q("a", "z", explanation="e")
    b = couplets_q("b", "z", explanation="e")  # same couplets as a
    assert len(pick_exemplars(couplets_q("item", "i"), [a, b], k=3)) == 1


def test_picked_exemplars_render():
    q = make_question("item", category="love", explanation="e")
    p = render("explained-few-shot", q, exemplars=pick_exemplars(q, bank(), k=2))
    assert set(p.exemplars) == {"love1", "love2"}


def test_leaks_few_shot():
    assert leaks_few_shot(make_question())  # the seed's first worked example
    assert not leaks_few_shot(couplets_q("x", "x"))
