"""The normalizer, the couplet parser and the near-duplicate index (text.py); the shipped
normalizer table equals what hazm produces."""

import pytest

from persian_tui.text import (
    CoupletError,
    DuplicateIndex,
    couplet_key,
    match_key,
    normalize,
    split_couplet,
    strip_option_label,
)

ZWNJ = "\u200c"

# with -n, one worker runs this file: hazm is imported once (pyproject.toml: --dist loadgroup)
pytestmark = pytest.mark.xdist_group("text")


def test_normalize_arabic_letters_and_digits():
    assert normalize("كتاب عربي") == "کتاب عربی"
    assert normalize("سال 1403 و ١٢٣") == "سال ۱۴۰۳ و ۱۲۳"


def test_normalize_keeps_zwnj_and_optionally_diacritics():
    assert normalize(f"می{ZWNJ}روم دل{ZWNJ}ها") == f"می{ZWNJ}روم دل{ZWNJ}ها"
    assert normalize("خُدا") == "خدا"
    assert normalize("خُدا", strip_diacritics=False) == "خُدا"


def test_normalize_collapses_space_and_tatweel():
    assert normalize("  عـــشق   و\tمستی  ") == "عشق و مستی"
    assert normalize(f"دل {ZWNJ}ها") == "دل ها"  # a ZWNJ next to a space is noise


def test_normalize_matches_hazm_on_per_character_steps():
    from hazm import Normalizer

    hz = Normalizer(correct_spacing=False, remove_diacritics=True, remove_specials_chars=True,
                    decrease_repeated_chars=False, persian_style=False, persian_numbers=True,
                    unicodes_replacement=True, seperate_mi=False)
    for text in ["كه مرا عشق تو ١٢ بار گفت", "ﷲ اکبر ﻻ", "خُدایِ مَن ۳ ٪", "ﻛﺘﺎﺏ"]:
        assert normalize(text) == " ".join(hz.normalize(text).split())


def test_match_key_drops_punctuation():
    assert match_key("فلک به شعشعه آفتاب، شانه کند") == match_key("فلک به شعشعه آفتاب شانه کند")
    assert match_key("«سلام»!") == "سلام"


@pytest.mark.parametrize("text", ["الف ب - ج د", "الف ب / ج د", "الف ب ** ج د", "الف ب***ج د"])
def test_split_couplet_separators(text):
    assert split_couplet(text) == ("الف ب", "ج د")


def test_split_couplet_errors():
    with pytest.raises(CoupletError, match="single phrase"):
        split_couplet("تنها یک عبارت")
    with pytest.raises(CoupletError, match="ambiguous"):
        split_couplet("الف - ب - ج")
    with pytest.raises(CoupletError, match="empty hemistich"):
        split_couplet("الف / ")


def test_split_couplet_keeps_text_exactly():
    a, b = split_couplet(f"می{ZWNJ}رود خُدا - دلِ ما")
    assert a == f"می{ZWNJ}رود خُدا" and b == "دلِ ما"


@pytest.mark.parametrize("text,label,expected,found", [
    ("1)  از دل نمی رسد", 1, "از دل نمی رسد", True),
    (") در زبان و دل چو شمع2", 2, "در زبان و دل چو شمع", True),
    (") عاشق و شکوه معشوق؟ 3", 3, "عاشق و شکوه معشوق؟", True),
    ("۴) ادب عشق", 4, "ادب عشق", True),
    ("2) متن", 1, "2) متن", False),  # another option's number: not ours to remove
    ("متن بی برچسب 3", 3, "متن بی برچسب 3", False),  # a bare trailing digit is kept
])
def test_strip_option_label(text, label, expected, found):
    assert strip_option_label(text, label) == (expected, found)


def _keys(couplets):
    return [couplet_key(a, b) for a, b in couplets]


def test_duplicate_index_finds_near_and_swapped_copies():
    from factories import COUPLETS

    index = DuplicateIndex()
    index.add("q1", _keys(COUPLETS))
    other = [("یکی بود یکی نبود", "غیر از خدا هیچکس نبود")] * 4
    index.add("q2", _keys(other))
    edited = [(b, a) for a, b in COUPLETS]  # hemistichs swapped
    edited[2] = ("شکوه عشق نگه کن که موی مجنون را", "فلک به شعشعه آفتاب شانه کند")  # comma gone
    edited[1] = ("گر نور عشق حق به دل و جانت افتد", "بالله از آفتاب فلک خوب‌تر شوی")
    matches = index.query(_keys(edited))
    assert [m.uid for m in matches] == ["q1"]
    assert matches[0].score >= 90 and matches[0].shared == 4


def test_duplicate_index_reports_a_shared_couplet_below_threshold():
    from factories import COUPLETS

    index = DuplicateIndex()
    index.add("q1", _keys(COUPLETS))
    mixed = [COUPLETS[0], ("یکی بود یکی نبود", "غیر از خدا هیچکس نبود"),
             ("دلا نزد کسی بنشین که او از دل خبر دارد", "به زیر آن درختی رو که او گل‌های تر دارد"),
             ("هر که را صبر نیست حکمت نیست", "و آن که را صبر هست حاجت نیست")]
    (match,) = index.query(_keys(mixed))
    assert match.uid == "q1" and match.shared == 1 and match.score < 90
    assert index.query(_keys(mixed[1:])) == []


def test_shipped_normalizer_table_equals_what_hazm_produces():
    """data/normalizer.json is hazm's normalization compiled (scripts/normalizer_table.py):
    regenerate it when hazm changes."""
    from persian_tui.text import TABLE_FILE, _table, build_table, table_json

    assert TABLE_FILE.read_text("utf-8") == table_json()
    for strip in (True, False):
        assert _table(strip) == build_table(strip)


def _corpus_key_by_steps(text: str) -> str:
    """corpus_key as it was defined: match_key, then hamza variants and ZWNJ dropped."""
    from persian_tui import text as t

    return t._SPACES.sub(" ", t.match_key(text).translate(t._HAMZA)).strip()


def test_corpus_key_in_one_pass_equals_the_steps():
    import random

    from persian_tui import text as t
    from persian_tui.text import corpus_key, corpus_key_once

    rng = random.Random(3)
    # every character a step maps, spaces of all kinds, joiners, punctuation, combining marks
    alphabet = ([chr(c) for c in t._table(True)] + [chr(c) for c in t._HAMZA]
                + list(" \t\n\u200c\u200d\u00a0\u2000\u2001\u3000!?،؛.«»-ـ") + list("abcابوی")
                + ["\u064e", "\u0651", "\u0654", "\u0301", "e\u0301", "\u0653"])
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 14))) for _ in range(20_000)]
    texts += ["اَلا یا اَیُّهَا السّاقی اَدِرْ کَأساً وَ ناوِلْها", "به بوی نافه‌ای کاخر صبا زان طره بگشاید",
              "عرصهٔ زمین ، مؤمن و پائیز «می‌رود»", ""]
    for text in texts:
        assert corpus_key_once(text) == _corpus_key_by_steps(text) == corpus_key(text), repr(text)
    t._WORD_KEYS.clear()  # and with the word cache cold and full
    monkey = t._WORD_KEYS_MAX
    try:
        t._WORD_KEYS_MAX = 5
        assert [corpus_key_once(x) for x in texts[:200]] == [_corpus_key_by_steps(x) for x in texts[:200]]
        assert len(t._WORD_KEYS) <= 5
    finally:
        t._WORD_KEYS_MAX = monkey
