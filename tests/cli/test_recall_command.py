"""`run recall` (cli/runs.py): a run end to end, refusals in one line, a resume that may not change
what is asked, the runs list."""

from __future__ import annotations

from factories import recall_bank, recall_script
from llm_server import LLMServer, Reply

from persian_tui.cli import main


def test_run_recall_probes_every_couplet_and_says_what_it_recalled(store, tmp_path, capsys):
    texts = recall_bank(store, tmp_path)
    memory = {texts[("r-000", 1)][0]: texts[("r-000", 1)][1], texts[("r-000", 2)][0]: texts[("r-000", 2)][1]}
    with LLMServer(recall_script(memory)) as server:
        code = main(["--db", str(store.path), "run", "recall", "--base-url", server.url, "--model", "m",
                     "--cue", "words"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "16/16 probes, recalled 12.5% (2/16)" in out, out
    assert "cue words, format complete, 16 couplets" in err
    assert main(["--db", str(store.path), "runs"]) == 0
    listed = capsys.readouterr().out
    assert "recall" in listed and "rec  12.5%" in listed, listed


def test_refusals_are_one_line(store, tmp_path, capsys):
    recall_bank(store, tmp_path)
    code = main(["--db", str(store.path), "run", "recall", "--base-url", "http://127.0.0.1:9/v1", "--model", "m",
                 "--cue", "shuffled", "--format", "choose"])
    err = capsys.readouterr().err
    assert code != 0 and "choose is not for cue shuffled" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    code = main(["--db", str(store.path), "run", "recall", "--base-url", "http://127.0.0.1:9/v1", "--model", "m",
                 "--cue", "prose", "--paraphrases", "99"])
    err = capsys.readouterr().err
    assert code != 0 and "no paraphrase run 99" in err and len(err.strip().splitlines()) == 1, err


def test_a_resume_may_not_change_the_cue(store, tmp_path, capsys):
    recall_bank(store, tmp_path)
    with LLMServer(lambda body, n: Reply(500, {"error": {"message": "down"}})) as server:
        main(["--db", str(store.path), "run", "recall", "--base-url", server.url, "--model", "m",
              "--max-retries", "0", "--max-failures", "2"])
        run = store.runs.runs()[-1]
        capsys.readouterr()
        code = main(["--db", str(store.path), "run", "recall", "--resume", str(run.id), "--cue", "words"])
    err = capsys.readouterr().err
    assert code != 0 and "cannot be resumed with a different cue" in err
    with LLMServer(recall_script({})) as server:
        code = main(["--db", str(store.path), "run", "recall", "--resume", str(run.id), "--base-url", server.url,
                     "--retry-errors"])
    assert code == 0 and len(store.probes.probes(run.id)) == 16
