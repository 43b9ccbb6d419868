"""Similar couplets from the corpus (corpus/similar.py)."""

from __future__ import annotations

from factories import HAFEZ_2, MINI

from persian_tui.corpus.ganjoor import import_corpus


def test_similar_couplets_never_return_the_couplet_itself(store):
    from persian_tui.corpus.similar import similar_couplets

    import_corpus(store, MINI)
    # the same couplet with its hemistichs swapped, a ZWNJ typed as a space and doubled spaces
    m1, m2 = HAFEZ_2[1].replace("\u200c", " "), HAFEZ_2[0].replace(" ", "  ")
    found = similar_couplets(store, m1, m2)
    assert found and all((c.poem, c.couplet) != ("/hafez/ghazal/sh1", 1) for _, c in found)
    assert all(score < 0.999 for score, _ in found)
