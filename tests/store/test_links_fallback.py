"""The linker's fallback stage (store/links.py `halves`): options the fast stages (a verbatim key
lookup, ORs of the rarest words within OR_POSTINGS) cannot link because no hemistich is the
corpus's verbatim and every word the ORs may ask is too common for the budget, as the common
words of a famous couplet are at the full export's size (1.49 M couplets). Each pattern the
full book lost against the export is a written poem here; OR_POSTINGS is set so that its words
are over it, as they are at that size (each in 5 couplets), while two or three of them together
are within it, AND_POSTINGS and AND_RANKED in about the same proportion."""

from __future__ import annotations

import pytest
from factories import copy_mini, write_poem, write_poet

from persian_tui.corpus.ganjoor import import_corpus
from persian_tui.store import links as links_module

COMMON = ("دل من در هوای یار شب و روز می سوزد", "چو شمع از آتش عشق تو جان من می سوزد")
SPACED = ("دوش در می‌خانه دیدم پیر را سرمست و شاد", "بی‌خبر از هر دو عالم دل به دست یار داد")
RARE = [("سحرگه بلبل شوریده نالید", "که گلبن را صبا از خواب بیدار"),
        ("خرابات مغان را پیر دانا", "به جامی داد ما را راز اسرار")]  # the rare words an edition puts in
HAFEZ = ("ز من چو باد صبا بوی خود دریغ مدار", "چرا که بی سر زلف توام به سر نرود")
# other poems writing as one word («زمن», «بی‌سر», «به‌سر») two neighbours HAFEZ writes apart
JOINED = [("زمن بشنو که این دنیا نماند", "جهان جز نام نیکویی نخواند"),
          ("سری بی‌سر و سامان دارم امشب", "دلی آشفته چون موی پریشان"),
          ("شبی دیگر به‌سر شد بی‌حضورش", "نیامد یار و شمع آخر فرو مرد")]
SPRING = ("بنفشه زار چمن را نسیم شبگیر", "گلاب ریخت به دامان لاله و نسرین")
# the edition's words «خاموش», «فراموش» beside one of its words, «نسیم», in other poems; four of its
# words made commoner than the others
ASIDE = [("نسیم آمد و شمع ما خاموش شد", "سحر شد تا که دل آرام گیرد"),
         ("نسیم از یاد ما را هم فراموش", "نکرد و باز با بوی تو آمد"),
         *[(f"گلاب و لاله بر دامان {w} ریخت", "هوا خوش بود و باران بهاری") for w in ("صحرا", "کوه", "دشت")]]
DAWN = ("هر صبح که از کوه برآید خورشید جهان‌افروز", "بر دشت و دمن نور فشاند به کران تا به کران")
# another collection's edition of it
DAWN_OTHER = ("هر صبح چو از کوه برآید هور جهان‌افروز", "بر باغ و دمن نور فشاند به کران تا به کران")
BABA = ("خور آئین چهره‌ات افروته‌تر بی", "به جانم تیر عشقت دوته‌تر بی")
# the halves the book's spacing leaves («ات», «افروته», «دوته»), words of other poems
HALVES = [("به دستت دل ات دادم ای نگارین", "مرا دیگر نمانده تاب دوری"),
          ("گلی افروته از باغ جمالت", "چراغی دوته بر راه وصالت")]


def _copies(couplet: tuple[str, str], leave_out: str = "") -> list[tuple[str, str]]:
    """Five couplets of most of its words, reversed: the k-th without each hemistich's words at
    the places k, k + 5, ...; and none holding `leave_out`. Each of its words is in 5 couplets,
    any two in 4, any three in 3: common words that are rarer together, as at the export's size."""
    halves = [[w for w in h.split() if not leave_out or leave_out not in w] for h in couplet]
    return [tuple(" ".join([w for i, w in enumerate(h) if i % 5 != k][::-1]) for h in halves)  # type: ignore[misc]
            for k in range(5)]


@pytest.fixture
def written(store, tmp_path, monkeypatch):
    root = copy_mini(tmp_path)
    write_poet(root, "written", "سراینده", 700)
    write_poem(root, "written", "ghazal/sh1", [COMMON, *_copies(COMMON)])
    write_poem(root, "written", "ghazal/sh2", [SPACED, *_copies(SPACED, leave_out="\u200c")])
    write_poem(root, "written", "ghazal/sh3", RARE)
    write_poem(root, "written", "ghazal/sh4", [HAFEZ, *_copies(HAFEZ)])
    write_poem(root, "written", "ghazal/sh5", JOINED)
    write_poem(root, "written", "ghazal/sh6", [SPRING, *_copies(SPRING), *ASIDE])
    write_poem(root, "written", "ghazal/sh8", [DAWN, *_copies(DAWN)])
    write_poem(root, "written", "ghazal/sh9", [DAWN_OTHER])
    write_poem(root, "written", "ghazal/sh7", [BABA, *_copies(BABA, leave_out="\u200c") * 2, *HALVES])
    import_corpus(store, root)
    monkeypatch.setattr(links_module, "OR_POSTINGS", 4)  # every word of the written couplets is in 5
    monkeypatch.setattr(links_module, "AND_POSTINGS", 20)
    monkeypatch.setattr(links_module, "AND_RANKED", 4)
    return store


def _is(d, poem: str, index: int = 0) -> bool:
    return d.status == "linked" and d.method == "fuzzy" and (d.candidate.poem, d.candidate.index) == (poem, index)


def test_a_variant_of_common_words_in_both_hemistichs_is_linked(written):
    """A word of each hemistich changed (to a common word), every other word over the OR
    budget: the ORs ask nothing; the couplets holding each hemistich's rarest words do."""
    option = ("دل ما در هوای یار شب و روز می سوزد", "چو شمع از آتش عشق تو جان ما می سوزد")
    d = written.links.link_option(*option)
    assert _is(d, "/written/ghazal/sh1"), d
    assert d.score is not None and d.score > 90


def test_a_variant_in_the_books_spacing_is_linked(written):
    """The book writes «می خانه», «بی خبر» where the corpus has «می‌خانه», «بی‌خبر» (one word in
    its key), and an edition's word in each hemistich: the split words are not the corpus's,
    the others over the budget; joined to their neighbours they are its rarest words."""
    option = ("دوش در می خانه دیدم پیر ما سرمست و شاد", "بی خبر از هر دو عالم دل به دست دوست داد")
    d = written.links.link_option(*option)
    assert _is(d, "/written/ghazal/sh2"), d
    d = written.links.link_option(*option[::-1])  # and in the book's order, hemistichs swapped
    assert _is(d, "/written/ghazal/sh2") and d.reversed, d


def test_a_variant_whose_new_words_are_the_rarest_is_linked(written):
    """The edition's word in each hemistich is a rare word of the corpus (from another poem), so
    each hemistich's rarest words are not all the couplet's: two of the option's rarest words,
    whichever two, find it."""
    option = ("دل من در هوای یار شب و روز بیدار", "چو شمع از آتش عشق تو جان من اسرار")
    d = written.links.link_option(*option)
    assert _is(d, "/written/ghazal/sh1"), d


def test_a_variant_whose_neighbours_joined_are_other_poems_words_is_linked(written):
    """Two neighbours joined are also words of other poems («ز من», «بی سر», «به سر»: «زمن»,
    «بی‌سر», «به‌سر» there), rarer than any of the couplet's words, and the edition's word in
    each hemistich a rare word too: the option's rarest units are all but one the couplet does
    not hold, so no AND of them finds it (the export's Hafez, a word changed in each hemistich,
    lost so). Its rarest words, none joined, do."""
    option = ("ز من چو باد صبا بوی خود بیدار مدار", "چرا اسرار بی سر زلف توام به سر نرود")
    d = written.links.link_option(*option)
    assert _is(d, "/written/ghazal/sh4"), d
    d = written.links.link_option(*option[::-1])
    assert _is(d, "/written/ghazal/sh4") and d.reversed, d


def test_a_variant_whose_new_words_match_a_few_other_couplets_is_linked(written, monkeypatch):
    """The edition's rare word of each hemistich stands beside one of the couplet's words in
    other poems, so its ANDs with that word match a couplet or two, none the couplet: fewest
    first, they took the ranking budget (AND_RANKED) before any AND of the couplet's own words.
    ANDs matching no more couplets together than a ranked query keeps (FTS_CANDIDATES) are taken
    as they are, outside the budget."""
    monkeypatch.setattr(links_module, "FTS_CANDIDATES", 4)  # as many as AND_RANKED: 40 to 1,000 at size
    option = ("بنفشه زار چمن را نسیم خاموش", "گلاب ریخت به دامان لاله و فراموش")
    d = written.links.link_option(*option)
    assert _is(d, "/written/ghazal/sh6"), d


def test_a_variant_in_the_books_spacing_whose_split_halves_are_other_poems_words_is_linked(written, monkeypatch):
    """The book splits «چهره‌ات», «افروته‌تر», «دوته‌تر» (Baba Taher's dialect) and a letter is lost
    in each hemistich; the halves «ات», «افروته», «دوته» are words of other poems, as rare as the
    joined words and taken before them, so no AND held the couplet's words (its other words are
    in too many couplets together to rank). Where the corpus has two neighbours joined, the
    joined reading leaves their halves out."""
    monkeypatch.setattr(links_module, "FTS_CANDIDATES", 4)
    option = ("خور آئی چهره ات افروته تر بی", "ب جانم تیر عشقت دوته تر بی")
    d = written.links.link_option(*option)
    assert _is(d, "/written/ghazal/sh7"), d


def test_a_variant_is_linked_to_the_closer_of_two_editions(written):
    """The option is one edition with a word of each hemistich changed; another collection's
    edition, two words further, holds its rarest word («هور»), so the fast stages find that one
    only and link it (fuzzy, 85 or more): a fuzzy link under CLOSE also asks the fallback, whose
    ANDs of the option's words find the closer edition, linked instead (its source)."""
    option = ("هر صبح که از کوه برآید هور جهان‌افروز", "بر دشت و دمن نور فشاند به کنار تا به کران")
    d = written.links.link_option(*option)
    assert _is(d, "/written/ghazal/sh8"), d
    assert d.score is not None and d.score < links_module.CLOSE
    assert [o.poem for o in d.others] in ([], ["/written/ghazal/sh9"])


def test_the_fallback_asks_only_for_an_option_not_linked_and_within_its_budget(written, monkeypatch):
    """The fallback's queries (each hemistich's rarest words ANDed, in every spelling; pairs of
    the option's rarest words) are sent only when the stages before it linked nothing, and
    each AND only when its rarest word is in at most AND_POSTINGS couplets; those ranked match
    at most AND_RANKED couplets together."""
    sent: list[str] = []

    def link(*option: str):
        sent.clear()
        written.conn.set_trace_callback(lambda sql: sent.append(sql) if "corpus_fts MATCH" in sql
                                        and "ORDER BY rank" in sql else None)
        try:
            return written.links.link_option(*option)
        finally:
            written.conn.set_trace_callback(None)

    option = ("دل مان در هوای یار شب و روز می سوزد", "چو شمع از آتش عشق تو جان مان می سوزد")  # «مان»: not in it
    monkeypatch.setattr(links_module, "OR_POSTINGS", 4_000)
    d = link(*option)
    assert _is(d, "/written/ghazal/sh1") and not any(" AND " in q for q in sent)  # the ORs found it
    monkeypatch.setattr(links_module, "OR_POSTINGS", 4)
    d = link(*option)
    assert _is(d, "/written/ghazal/sh1") and any(" AND " in q for q in sent)
    for sql in (q for q in sent if " AND " in q):  # the ANDs ranked match 4 couplets at most
        query = sql.split("MATCH '")[1].split("' ORDER BY")[0]
        assert written.conn.execute("SELECT COUNT(*) FROM corpus_fts WHERE corpus_fts MATCH ?",
                                    (query,)).fetchone()[0] <= 4
    monkeypatch.setattr(links_module, "AND_POSTINGS", 4)  # every word of the couplet is in 5 or more
    d = link(*option)
    assert d.status == "unlinked" and not any(" AND " in q for q in sent)
