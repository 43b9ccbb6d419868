"""Fresh questions from the corpus (corpus/propose.py, corpus/vetting.py, store/candidates.py):
candidates drawn from poems outside the bank, with their provenance and reasons, vetted by admins."""

from __future__ import annotations

import pytest
from factories import copy_mini, make_question, write_themed_poems

from persian_tui.access import Access, AccessDenied, solo
from persian_tui.corpus.ganjoor import import_corpus
from persian_tui.corpus.propose import LexicalBaseline, ProposeError, propose
from persian_tui.corpus.vetting import VettingError, accept, draft, reject
from persian_tui.models.candidates import couplet_link

ADMIN = solo("boss")


@pytest.fixture
def themed(store, tmp_path):
    """The mini export plus a generated corpus of four themes (factories.write_themed_poems)."""
    root = copy_mini(tmp_path)
    write_themed_poems(root)
    import_corpus(store, root)
    return store


def test_candidates_have_four_poems_full_provenance_and_reasons(themed):
    result = propose(themed, ADMIN, 5, seed=1)
    assert len(result.ids) == 5 and result.asked == 5 and result.embedder == "tfidf"
    made = themed.candidates.candidates()
    assert [c.id for c in made] == result.ids and all(c.state == "proposed" and c.proposed_by == "boss" for c in made)
    ids = set()
    for c in made:
        assert len({x.poem for x in c.couplets}) == 4  # four poems
        assert all(x.poet and x.poem and x.mesra1 and x.mesra2 for x in c.couplets)
        assert all(couplet_link(x) == f"https://ganjoor.net{x.poem}#bn{x.couplet + 1}" for x in c.couplets)
        r = c.reasons
        assert 1 <= c.outlier <= 4 and r["seed"] in (1, 2, 3, 4)
        assert len(r["close"]["pairs"]) == 3 and len(r["outlier"]["to_close"]) == 3
        assert r["outlier"]["gap"] > 0 and min(r["close"]["pairs"]) >= 0.12
        # the lexical baseline does not find the intended outlier: its lowest score is another's
        scores = r["baseline"]["scores"]
        assert r["baseline"]["picks"] == scores.index(min(scores)) + 1 != c.outlier
        ids |= {(x.poem, x.couplet) for x in c.couplets}
    assert len(ids) == 20  # no couplet in two candidates


def test_the_lexical_baseline_scores_as_the_centroid_scorer_on_tfidf():
    from persian_tui.runs.embedders import TfidfEmbedder
    from persian_tui.runs.outlier import predict

    texts = ["گنج قناعت به از گنج زر", "قناعت توانگر کند مرد را", "عشق آمد و جان ببرد", "قناعت کن ای نفس",
             "شب است و ماه و باغ"]
    picked, scores = LexicalBaseline(["دریا و موج و باد", "آتش و آب و خاک"], texts).pick([3, 0, 1, 2])
    vectors = TfidfEmbedder.fitted_vectors([*texts, "دریا و موج و باد", "آتش و آب و خاک"])[[3, 0, 1, 2]]
    want, want_scores = predict(vectors[None, :, :], "centroid")
    assert picked == int(want[0]) == 4 and scores == [round(float(x), 4) for x in want_scores[0]]


def test_the_same_seed_proposes_the_same_candidates(themed, tmp_path):
    from persian_tui.store import Store

    copy = Store(tmp_path / "copy.db")
    root = copy_mini(tmp_path / "again")
    write_themed_poems(root)
    import_corpus(copy, root)
    propose(themed, ADMIN, 3, seed=7)
    propose(copy, ADMIN, 3, seed=7)
    shape = [[(x.poem, x.couplet) for x in c.couplets] + [c.outlier] for c in themed.candidates.candidates()]
    assert shape == [[(x.poem, x.couplet) for x in c.couplets] + [c.outlier] for c in copy.candidates.candidates()]
    copy.close()


def test_no_couplet_of_a_poem_in_the_bank_is_drawn(themed):
    # a bank question whose options are couplets of three of the themed poems (linked on import)
    poems = ["/anvari/ghazal/sh1", "/sanaei/ghazal/sh2", "/jami/ghazal/sh3", "/hafez/ghazal/sh1"]
    couplets = [themed.corpus.couplet_at(p, 1) for p in poems]
    themed.questions.add_questions([make_question("q-bank", couplets=[(c.mesra1, c.mesra2) for c in couplets])])
    assert {link.couplet.poem for link in themed.links.links()["q-bank"].values()} == set(poems)
    propose(themed, ADMIN, 5, seed=3)
    drawn = {x.poem for c in themed.candidates.candidates() for x in c.couplets}
    assert len(themed.candidates.candidates()) == 5 and not drawn & set(poems)


def test_a_poet_filter_draws_from_those_poets_only(themed):
    propose(themed, ADMIN, 2, poets=["anvari", "شاعر jami", "khaju", "vahshi"], seed=2)
    made = themed.candidates.candidates()
    assert made and {x.poet_slug for c in made for x in c.couplets} <= {"anvari", "jami", "khaju", "vahshi"}


@pytest.mark.parametrize("count, poets, message", [
    (0, (), "--count must be at least 1 (got 0)"),
    (-3, (), "--count must be at least 1 (got -3)"),
    (2, ("nobody",), "poet 'nobody' is not in the corpus"),
])
def test_bad_requests_are_refused_and_write_nothing(themed, count, poets, message):
    with pytest.raises(ProposeError, match=message.replace("(", r"\(").replace(")", r"\)")):
        propose(themed, ADMIN, count, poets=poets)
    assert themed.candidates.candidates() == []


def test_no_corpus_is_refused(store):
    with pytest.raises(ProposeError, match="has no corpus: import one first"):
        propose(store, ADMIN, 2)


def test_only_admins_propose_accept_and_reject(themed):
    propose(themed, ADMIN, 1, seed=1)
    for role in ("annotator", "reviewer"):
        who = Access("ali", role)  # type: ignore[arg-type]
        with pytest.raises(AccessDenied, match="is for admins"):
            propose(themed, who, 1)
        with pytest.raises(AccessDenied, match="is for admins"):
            accept(themed, who, 1)
        with pytest.raises(AccessDenied, match="is for admins"):
            reject(themed, who, 1, "no")
    assert [c.state for c in themed.candidates.candidates()] == ["proposed"]


def test_accepting_makes_a_fresh_draft_with_provenance_and_the_intended_key(themed):
    propose(themed, ADMIN, 2, seed=1)
    c = themed.candidates.get(1)
    q = accept(themed, ADMIN, 1)
    saved = themed.questions.get_question(q.uid)
    assert (saved.origin, saved.status, saved.key, saved.author) == ("fresh", "draft", c.outlier, "boss")
    assert [(o.mesra1, o.mesra2, o.poet) for o in saved.options] == [(x.mesra1, x.mesra2, x.poet) for x in c.couplets]
    links = themed.links.links([q.uid])[q.uid]
    assert [(links[i].couplet.poem, links[i].couplet.couplet, links[i].method) for i in (1, 2, 3, 4)] == \
        [(x.poem, x.couplet, "chosen") for x in c.couplets]
    after = themed.candidates.get(1)
    assert (after.state, after.decided_by, after.question_uid) == ("accepted", "boss", q.uid)
    with pytest.raises(VettingError, match="already accepted by boss"):
        accept(themed, ADMIN, 1)
    with pytest.raises(VettingError, match="no candidate 9"):
        accept(themed, ADMIN, 9)
    # its poems are now the bank's: a new proposal never draws from them
    propose(themed, ADMIN, 4, seed=11)
    later = {x.poem for k in themed.candidates.candidates() if k.id > 2 for x in k.couplets}
    assert later and not later & {x.poem for x in c.couplets}


def test_an_edited_draft_keeps_links_only_where_the_text_is_the_couplets(themed):
    propose(themed, ADMIN, 1, seed=1)
    c = themed.candidates.get(1)
    q = draft(c)
    q.options[0].mesra1 = "بیتی که ویراستار نوشت و در هیچ دیوانی نیست"
    q.stem = "کدام بیت متفاوت است؟"
    saved = accept(themed, ADMIN, 1, q)
    links = themed.links.links([saved.uid])[saved.uid]
    assert saved.stem == "کدام بیت متفاوت است؟" and links[1].method != "chosen"
    assert [links[i].method for i in (2, 3, 4)] == ["chosen"] * 3


def test_rejecting_keeps_the_reason_and_the_counts_say_how_vetting_went(themed):
    propose(themed, ADMIN, 4, seed=1)
    accept(themed, ADMIN, 1)
    reject(themed, ADMIN, 2, "the three are not close")
    reject(themed, ADMIN, 3, "  the three   are not close ")
    reject(themed, ADMIN, 4, "outlier too obvious")
    with pytest.raises(VettingError, match="needs a reason"):
        reject(themed, ADMIN, 1, " ")
    counts = themed.candidates.counts()
    assert (counts.proposed, counts.accepted, counts.rejected, counts.acceptance) == (0, 1, 3, 0.25)
    assert counts.reasons == (("the three are not close", 2), ("outlier too obvious", 1))
    # a rejected candidate's couplets may be drawn again
    assert len(themed.candidates.used_couplets()) == 4  # the accepted one's


def test_a_sentence_transformers_model_reads_meaning(themed, tiny_st):
    result = propose(themed, ADMIN, 2, embedder_spec=f"st:{tiny_st['plain']}", seed=1)
    made = themed.candidates.candidates()
    assert len(made) == len(result.ids) >= 1 and all(c.embedder == result.embedder != "tfidf" for c in made)
    assert all(c.reasons["baseline"]["picks"] != c.outlier for c in made)


def test_an_embedder_that_cannot_load_is_one_line(themed, tmp_path):
    with pytest.raises(ProposeError, match="embedder st:"):
        propose(themed, ADMIN, 1, embedder_spec=f"st:{tmp_path / 'missing'}")
    assert themed.candidates.candidates() == []


def _word_vectors(body):
    """An embedding endpoint's reply: each text as counts of its words hashed into 32 buckets
    (zlib.crc32: the same in every process)."""
    import zlib

    from llm_server import Reply

    def vector(text: str) -> list[float]:
        v = [0.0] * 32
        for w in text.split():
            v[zlib.crc32(w.encode()) % 32] += 1.0
        return v

    return Reply(body={"object": "list", "model": "e", "usage": {"prompt_tokens": 1, "total_tokens": 1},
                       "data": [{"object": "embedding", "index": i, "embedding": vector(t)}
                                for i, t in enumerate(body["input"])]})


def test_an_openai_compatible_endpoint_is_the_meaning_embedder(themed, monkeypatch):
    from llm_server import LLMServer

    with LLMServer(lambda body, n: _word_vectors(body)) as server:
        monkeypatch.setenv("PERSIAN_TUI_SIMILAR_BASE_URL", server.url)
        result = propose(themed, ADMIN, 2, embedder_spec="openai:e", seed=1)
        assert server.requests and all(r["model"] == "e" and r["input"] for r in server.requests)
    made = themed.candidates.candidates()
    assert len(made) == len(result.ids) >= 1 and {c.embedder for c in made} == {result.embedder}
    assert result.embedder != "tfidf"


def test_an_endpoint_that_fails_is_one_line_and_keeps_what_was_made(themed, monkeypatch):
    from llm_server import LLMServer, Reply

    with LLMServer(lambda body, n: Reply(status=500, body={"error": {"message": "down"}})) as server:
        monkeypatch.setenv("PERSIAN_TUI_SIMILAR_BASE_URL", server.url)
        with pytest.raises(ProposeError, match=r"embedder openai:e: .*\(0 candidate\(s\) written\)") as e:
            propose(themed, ADMIN, 2, embedder_spec="openai:e", seed=1)
    assert "\n" not in str(e.value) and themed.candidates.candidates() == []
