"""The release datasheet's contamination section: per probed model, how many of the release's couplets
it recalls (recall runs against the local test server); said plainly when no model was probed."""

from __future__ import annotations

import asyncio

from factories import recall_bank, recall_script
from llm_server import LLMServer

from persian_tui.releases.build import build_release
from persian_tui.runs import RecallRunSpec, create_recall_run, execute_recall_run


def probe(store, model, script, **kw):
    with LLMServer(script) as server:
        run, _ = create_recall_run(store, RecallRunSpec(base_url=server.url, model=model, max_retries=0, **kw))
        asyncio.run(execute_recall_run(store.path, run.id, overrides={"base_url": server.url}))


def section(folder) -> str:
    text = (folder / "README.md").read_text(encoding="utf-8")
    return text.split("## Contamination (recall probes)")[1].split("## Known issues")[0]


def test_the_datasheet_reports_each_probed_models_recall_of_the_release(store, tmp_path):
    texts = recall_bank(store, tmp_path, status="curated")
    exact = {texts[k][0]: texts[k][1] for k in (("r-000", 1), ("r-000", 2), ("u-000", 3))}
    edited = {texts[("r-001", 4)][0]: texts[("r-001", 4)][1]}
    probe(store, "model-a", recall_script({**exact, **edited}, set(edited)))
    probe(store, "model-a", recall_script(exact), cue="words")  # a second run: couplets count once
    probe(store, "model-b", recall_script({}))
    build_release(store, "v1", tmp_path / "v1")
    rows = [line for line in section(tmp_path / "v1").splitlines() if line.startswith("| model-")]
    assert rows == ["| model-a | 16 | 3 | 1 | 25.0% | 10.2%–49.5% |",
                    "| model-b | 16 | 0 | 0 | 0.0% | 0.0%–19.4% |"]


def test_a_release_without_probes_says_so(store, tmp_path):
    recall_bank(store, tmp_path, status="curated")
    build_release(store, "v1", tmp_path / "v1")
    assert "No model was asked to write these couplets" in section(tmp_path / "v1")


def test_picks_among_four_are_not_counted_as_contamination(store, tmp_path):
    from llm_server import chat

    recall_bank(store, tmp_path, status="curated")
    probe(store, "guesser", lambda body, n: chat("Answer: 2"), format="choose")
    build_release(store, "v1", tmp_path / "v1")
    text = section(tmp_path / "v1")
    assert "No model was asked to write these couplets" in text and "| guesser" not in text
