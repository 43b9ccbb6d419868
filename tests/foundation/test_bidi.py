"""Tests for persian_tui.bidi (display order of Persian / mixed text)."""

import pytest
from rich.cells import cell_len

from persian_tui import bidi
from persian_tui.bidi import (
    APP,
    MODES,
    OFF,
    TERMINAL,
    Mode,
    display_line,
    display_lines,
    has_rtl,
    visual,
    wrap,
)

ZWNJ = "\u200c"
COUPLETS = [
    "طریق عشق پرآشوب و فتنه است ای دل - بیفتد آن که در این راه با شتاب رود",
    "الا یا ایها الساقی ادر کاسا و ناولها - که عشق آسان نمود اول ولی افتاد مشکل‌ها",
    "بشنو این نی چون شکایت می‌کند - از جدایی‌ها حکایت می‌کند",
    "مدل Tooka-SBERT (نسخه ۲) در بیت ۱۲ با gpt-4o برابر 123 شد",
    "خُدا را چه دیدی، شاید مَن هم [روزی] بیایم «به خانه»",
    "توانا بود هر که دانا بود\nز دانش دل پیر برنا بود",
]


def rev(s: str) -> str:
    return s[::-1]


# --- modes -----------------------------------------------------------------

def test_resolved_modes():
    assert MODES == ("app", "terminal", "off")
    assert Mode() == APP and APP.name == "app" and not APP.shape
    assert Mode("app", shape=True) != APP  # a frozen value: the app's shaping travels with it


def test_display_functions_reject_unresolved_mode_and_bad_width():
    with pytest.raises(ValueError):
        Mode("auto")
    with pytest.raises(ValueError):
        Mode("bogus")
    with pytest.raises(TypeError):
        display_line("سلام", 10, "app")  # a Mode, never a bare name
    with pytest.raises(ValueError):
        display_lines("سلام", 0, APP)
    with pytest.raises(ValueError):
        wrap("سلام", 0)
    with pytest.raises(ValueError):
        display_lines("سلام", 10, APP, align="center")


# --- visual() ----------------------------------------------------------------

def test_has_rtl():
    assert has_rtl("سلام")
    assert has_rtl("model مدل")
    assert not has_rtl("gpt-4o 123")
    assert not has_rtl("")


def test_plain_persian_is_reversed():
    assert visual("سلام") == "مالس"


def test_ltr_only_text_unchanged():
    assert visual("hello, world!") == "hello, world!"
    assert visual("(a) [b]") == "(a) [b]"


@pytest.mark.parametrize("word", ["می\u200cروم", "دل\u200cها", "جدایی\u200cها"])
def test_zwnj_kept(word):
    out = visual(word)
    assert out == rev(word)
    assert out.count(ZWNJ) == 1
    assert cell_len(out) == cell_len(word)


def test_zwnj_kept_in_app_lines():
    lines = display_lines("بشنو این نی چون شکایت می‌کند", 12, APP)
    assert sum(line.count(ZWNJ) for line in lines) == 1


@pytest.mark.parametrize(
    "logical, expected",
    [
        ("خُدا", "ادخ\u064f"),
        ("مَن", "نم\u064e"),
        ("خ\u0651\u064fدا", "ادخ\u0651\u064f"),  # two marks keep their own order
        ("کتابِ من", "نم " + "ب\u0650اتک"),
        ("خُدا (مَن)", "(نم\u064e) ادخ\u064f"),  # exact (bracket) path too
    ],
)
def test_diacritics_follow_their_base(logical, expected):
    assert visual(logical) == expected


def test_diacritics_never_precede_arabic_letter_base():
    for text in ["خُدا", "مَن", "سَلامٌ عَلَیکُم", "خُدا (مَن)"]:
        out = visual(text)
        assert out[0] not in "\u064b\u064c\u064d\u064e\u064f\u0650\u0651\u0652"


@pytest.mark.parametrize(
    "logical, expected",
    [
        ("۱۲۳ سال", "لاس ۱۲۳"),
        ("سال 123 و ۴۵۶", "۴۵۶ و 123 لاس"),
        ("بیت ۱۲ از ۳۴۵", "۳۴۵ زا ۱۲ تیب"),
    ],
)
def test_digits_keep_order(logical, expected):
    assert visual(logical) == expected


@pytest.mark.parametrize(
    "logical, expected",
    [
        ("مدل gpt-4o خوب است", "تسا بوخ gpt-4o لدم"),
        ("Tooka-SBERT مدل", "Tooka-SBERT لدم"),  # a Latin first letter: a left-to-right line (P2–P3)
        ("نتیجه Tooka-SBERT و gpt-4o", "gpt-4o و Tooka-SBERT هجیتن"),
    ],
)
def test_latin_names_stay_ltr(logical, expected):
    out = visual(logical)
    assert out == expected
    assert "gpt-4o" in out or "Tooka-SBERT" in out


@pytest.mark.parametrize(
    "logical, expected",
    [
        ("(سلام)", "(مالس)"),
        ("«سلام»", "«مالس»"),
        ("سلام (دنیا) خوب", "بوخ (ایند) مالس"),
        ("سلام (abc) خوب", "بوخ (abc) مالس"),
        ("سلام [x]", "[x] مالس"),
        ("نمره (۱۲۳) است", "تسا (۱۲۳) هرمن"),
        ("مدل Tooka-SBERT (نسخه ۲) خوب است", "تسا بوخ (۲ هخسن) Tooka-SBERT لدم"),
        ("الف < ب", "ب > فلا"),
    ],
)
def test_brackets_mirrored(logical, expected):
    assert visual(logical) == expected


def test_brackets_inside_latin_run_not_mirrored():
    # "(b)" belongs to the Latin run "a (b)", which stays left-to-right; the line is a
    # left-to-right one (its first strong letter is Latin) unless its paragraph is Persian.
    assert visual("a (b) سلام") == "a (b) مالس"
    assert visual("a (b) سلام", rtl=True) == "مالس a (b)"


@pytest.mark.parametrize("line, expected", [
    ("1. press the number (1-4 or ۱-۴).", "1. press the number (1-4 or ۱-۴)."),  # no Persian letter
    ("judge missed: option 4 uses مار as metaphor", "judge missed: option 4 uses رام as metaphor"),
    ("۱. هر چهار بیت", "تیب راهچ رh .۱".replace("h", "ه")),
])
def test_a_line_takes_its_direction_from_its_first_strong_letter(line, expected):
    """UAX #9 P2–P3: the one rule of every field, cell and preview."""
    assert visual(line) == expected
    assert "".join(c.text for c in bidi.visual_cells(line)) == expected


def test_bracket_fallback_without_levels(monkeypatch):
    monkeypatch.setattr(bidi, "_levels", lambda line, base="R": None)
    bidi._visual.cache_clear()
    try:
        assert visual("(سلام)") == "(مالس)"
        assert visual("خُدا (مَن)") == "(نم\u064e) ادخ\u064f"
    finally:
        bidi._visual.cache_clear()


@pytest.mark.parametrize(
    "text",
    [
        "مدل gpt-4o خوب است",
        "سال 123 و ۴۵۶",
        "خُدا را چه دیدی، شاید مَن هم بیایم",
        "Tooka-SBERT مدل ۲ است",
        "بشنو این نی چون شکایت می‌کند - از جدایی‌ها",
    ],
)
def test_level_based_reorder_matches_python_bidi(text):
    # The bracket path reorders by itself; without brackets it must agree
    # with python-bidi's own reordering (+ the marks fix).
    levels = bidi._levels(text)
    assert levels is not None and len(levels) == len(text)
    assert bidi._reorder(text, levels) == bidi._fix_marks(bidi.get_display(text, base_dir="R"))


def test_shape_gives_presentation_forms_and_keeps_harakat():
    out = visual("خُدا", shape=True)
    assert out == "\ufe8d\ufeaa\ufea7\u064f"
    letters = [ch for ch in out if ch != "\u064f"]
    assert all("\ufb50" <= ch <= "\ufeff" for ch in letters)
    shaped = visual("می‌روم", shape=True)
    assert ZWNJ in shaped
    assert any("\ufb50" <= ch <= "\ufeff" for ch in shaped)


def test_shape_off_by_default():
    assert not any("\ufb50" <= ch <= "\ufeff" for ch in visual("سلام دنیا"))


# --- wrap / display_lines -------------------------------------------------------

def test_wrap_basics():
    assert wrap("", 10) == []
    assert wrap("a b c", 3) == ["a b", "c"]
    assert wrap("a\n\nb", 10) == ["a", "", "b"]
    assert wrap("abcdefgh", 3) == ["abc", "def", "gh"]
    assert wrap("xy abcdefgh z", 3) == ["xy", "abc", "def", "gh", "z"]
    assert wrap("می‌روم خانه", 6) == ["می‌روم", "خانه"]


def test_wrap_hard_split_keeps_marks_with_base():
    chunks = wrap("خُدااااا", 2)
    assert chunks[0] == "خُد"
    assert "".join(chunks) == "خُدااااا"


def test_wrap_line_order_is_logical():
    text = COUPLETS[0]
    lines = display_lines(text, 20, APP)
    assert len(lines) > 1
    logical = wrap(text, 20)
    assert logical[0].startswith("طریق عشق")
    # first display line holds the first logical words, reversed and right-aligned
    assert lines[0] == " " * (20 - cell_len(logical[0])) + rev(logical[0])
    assert "قیرط" in lines[0]
    assert "دور" in lines[-1]  # last word of the couplet on the last line
    assert [rev(line.strip()) for line in lines] == logical


def test_display_lines_exact():
    assert display_lines("سلام دنیا", 12, APP) == ["   ایند مالس"]
    assert display_lines("سلام دنیا", 12, APP, align="left") == ["ایند مالس   "]
    assert display_lines("سلام دنیا", 12, APP, align="none") == ["ایند مالس"]
    assert display_lines("سلام دنیا", 6, APP) == ["  مالس", "  ایند"]


@pytest.mark.parametrize("mode", [TERMINAL, OFF])
def test_other_modes_keep_logical_unpadded(mode):
    assert display_lines("سلام دنیا", 12, mode) == ["سلام دنیا"]
    assert display_lines("سلام دنیا", 6, mode) == ["سلام", "دنیا"]
    assert display_line("سلام دنیا", 12, mode) == "سلام دنیا"


def test_empty_text():
    assert display_lines("", 7, APP) == [" " * 7]
    assert display_lines("", 7, APP, align="none") == [""]
    assert display_lines("", 7, TERMINAL) == [""]
    assert display_lines("", 7, OFF) == [""]


@pytest.mark.parametrize("shape", [False, True])
@pytest.mark.parametrize("text", COUPLETS)
def test_width_never_exceeded(text, shape):
    for width in range(5, 61):
        for align in ("right", "left"):
            lines = display_lines(text, width, Mode("app", shape), align=align)
            assert all(cell_len(line) == width for line in lines), (width, lines)
        for mode in (TERMINAL, OFF):
            assert all(cell_len(line) <= width for line in display_lines(text, width, mode))
        for mode in (Mode("app", shape), TERMINAL, OFF):
            assert cell_len(display_line(text, width, mode)) <= width


def test_no_text_lost_when_wrapping():
    def norm(s):
        return sorted(s.translate(str.maketrans("[]()«»", "((((((", " \n")))

    for text in COUPLETS:
        for width in range(5, 61):
            lines = display_lines(text, width, APP, align="none")
            # same characters as the logical text (brackets may be mirrored)
            assert norm("".join(lines)) == norm(text)
            assert sum(line.count(ZWNJ) for line in lines) == text.count(ZWNJ)


def test_wide_chars_fit_tiny_widths():
    for width in (1, 2, 3):
        assert all(cell_len(line) <= width for line in wrap("中文字 سلام", width))


# --- display_line -------------------------------------------------------------

def test_display_line_fits_without_truncation():
    assert display_line("سلام دنیا", 9, APP) == "ایند مالس"
    assert display_line("سلام\nدنیا", 20, APP) == "ایند مالس"


def test_display_line_truncates_with_ellipsis():
    out = display_line("طریق عشق پرآشوب و فتنه است", 10, APP)
    assert out == "…قشع قیرط"  # ellipsis at the logical end = visual left
    assert display_line("طریق عشق پرآشوب و فتنه است", 10, OFF) == "طریق عشق…"
    assert display_line("abcdefgh", 5, APP) == "abcd…"
    assert display_line("abcdefgh", 1, APP) == "…"


def test_display_line_truncation_keeps_marks_and_brackets():
    out = display_line("خُدا (مَن) و دیگران و دیگران", 12, APP)
    assert cell_len(out) <= 12
    assert out.startswith("…")
    assert "ادخ\u064f" in out


def test_wrapped_line_without_persian_letters_keeps_the_paragraphs_direction():
    """The last line of an RTL paragraph may hold only Latin text: it is laid out
    right-to-left with its paragraph (the full stop ends it on the left)."""
    from persian_tui import bidi

    text = "این مدل را با مدل‌های دیگر سنجیدیم (OpenAI GPT-4o, 2024)."
    lines = bidi.display_lines(text, 36, APP)
    assert lines[-1].strip() == ".(OpenAI GPT-4o, 2024)"
    assert bidi.display_lines("GPT-4o, 2024).", 36, APP)[0].strip() == "GPT-4o, 2024)."  # an LTR paragraph


def test_shaping_travels_with_the_mode():
    word = "سلام"
    plain = display_line(word, 10, APP)
    joined = display_line(word, 10, Mode("app", shape=True))
    assert joined != plain and all("\ufb50" <= c <= "\ufeff" for c in joined)  # presentation forms
    assert display_lines(word, 10, Mode("app", shape=True), align="none") == [joined]
    assert display_line(word, 10, Mode("terminal", shape=True)) == word  # the terminal lays it out
    assert visual(word) == plain  # nothing left switched on


def test_app_shape_flag_reaches_the_layout(tmp_path):
    from persian_tui.cli import parser, tui_options

    args = parser().parse_args(["tui", "--shape", "on"])
    assert tui_options(args)["shape"] == "on"


# --- cells: the display order with each cluster's place in the logical line (editable fields) ---

SEED_LINES = [line for text in COUPLETS for line in text.split("\n")] + [
    f"من می{ZWNJ}خواهم", "بَ بِ بّ", "مدل GPT-4o در بیت ۱۲ (نسخه ۲) بود.", "GPT-4o [بیت] ۱۲"]


@pytest.mark.parametrize("line", SEED_LINES)
@pytest.mark.parametrize("shape", [False, True])
def test_cells_join_into_the_visual_line(line, shape):
    cells = bidi.visual_cells(line, shape=shape)
    assert "".join(c.text for c in cells) == visual(line, shape=shape)
    spans = sorted((c.start, c.end) for c in cells)  # every char in exactly one cell
    assert spans[0][0] == 0 and spans[-1][1] == len(line)
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:]))
    assert all(c.width == cell_len(c.text) for c in cells)


def test_cells_of_persian_run_right_to_left():
    cells = bidi.visual_cells("سلام")
    assert [c.start for c in cells] == [3, 2, 1, 0]
    assert bidi.visual_cells("سلام", rtl=False)[0].start == 3  # Persian letters make it RTL anyway


def test_cells_of_latin_text_keep_logical_order():
    assert [c.start for c in bidi.visual_cells("GPT-4o")] == [0, 1, 2, 3, 4, 5]
    # one Latin run stays left to right, even in a right-to-left paragraph
    assert [c.start for c in bidi.visual_cells("ab c", rtl=True)] == [0, 1, 2, 3]


def test_cells_keep_marks_with_their_base_and_zwnj_alone():
    cells = bidi.visual_cells("بَت")
    assert [(c.start, c.end, c.text) for c in cells] == [(2, 3, "ت"), (0, 2, "بَ")]
    cells = bidi.visual_cells(f"می{ZWNJ}خ")
    assert [(c.start, c.text, c.width) for c in cells] == [(3, "خ", 1), (2, ZWNJ, 0), (1, "ی", 1), (0, "م", 1)]


def test_cells_mixed_run_in_place():
    cells = bidi.visual_cells("مدل GPT-4o")
    assert "".join(c.text for c in cells) == "GPT-4o لدم"
    assert [c.start for c in cells[:6]] == [4, 5, 6, 7, 8, 9]


# --- block: wrap in logical order first, reorder each line after ----------------------------

LONG = "گر چه دوریم به یاد تو قدح می‌گیریم بعد منزل نبود در سفر روحانی"


def test_block_wraps_logical_text_then_reorders_each_line():
    """A Persian paragraph too long for its width: the logical first words are on the first
    line (at its right end), each line is the reordered logical line, right-aligned."""
    lines = bidi.block(LONG, 24, APP)
    logical = wrap(LONG, 24)
    assert len(lines) == len(logical) > 1
    assert lines == [" " * (24 - cell_len(visual(t))) + visual(t) for t in logical]
    assert lines[0].endswith(visual("گر چه"))  # never the first word alone on the second line
    assert bidi.block(LONG, 24, TERMINAL) == logical  # the terminal reorders logical lines


def test_block_keeps_english_lines_left_and_lays_out_their_persian_runs():
    """An English sentence naming a Persian poet in brackets: the sentence reads left to right,
    the poet's name is reordered (and joined when the mode shapes), the brackets stay put."""
    text = "Option 1 holds text you typed:\n  " + LONG + "\nReplace it with غزل ۱#3 (حافظ)?"
    lines = bidi.block(text, 40, Mode("app", shape=True))
    last = lines[-1]
    assert last == "Replace it with " + visual("غزل ۱#3 (حافظ)", shape=True) + "?"
    assert "(" + visual("حافظ", shape=True) + ")" in last  # joined letters, visual order
    assert lines[0] == "Option 1 holds text you typed:"
    persian = lines[1:-1]
    assert len(persian) > 1 and all(cell_len(t) == 40 for t in persian)
    assert persian[0].rstrip().endswith(visual("گر چه", shape=True))
    assert bidi.block(text, 40, OFF)[-1] == "Replace it with غزل ۱#3 (حافظ)?"


@pytest.mark.parametrize("width", [6, 11, 17, 30])
def test_block_never_exceeds_its_width_and_loses_no_word(width):
    text = COUPLETS[3] + "\nSee " + COUPLETS[2]
    for mode in (APP, Mode("app", shape=True), TERMINAL):
        lines = bidi.block(text, width, mode)
        assert all(cell_len(t) <= width for t in lines)
    assert "".join("".join(bidi.block(text, width, OFF)).split()) == "".join(text.split())


def test_cut_is_at_the_logical_end():
    assert bidi.cut(LONG, 12) == "گر چه دوریم…"
    assert display_line(LONG, 12, APP) == visual("گر چه دوریم…")
    assert bidi.cut("short", 12) == "short"


def test_a_cut_word_keeps_its_joined_form_before_the_ellipsis():
    """Cut on logical text, then shape: a word cut after a letter that joins onward keeps that
    letter joined (a tatweel before the ellipsis), so `است` cut to `اس` does not read as the word
    `اس`; a word cut after a letter that never joins onward, and an uncut word, are left as they are."""
    from persian_tui.bidi import Mode, display_line

    shaped = Mode("app", True)
    cut = display_line("کتاب استوار", 9, shaped)
    assert "\ufeb3" in cut and "\ufeb1" not in cut and "ـ" in cut and cut.startswith("…")  # ﺳ initial, not ﺱ
    assert bidi.cut("کتاب استوار", 9) == "کتاب اسـ…"
    assert bidi.cut("کتاب است و", 9) == "کتاب است…"  # cut between words: no tatweel
    assert bidi.cut("کتاب است", 9) == "کتاب است"
