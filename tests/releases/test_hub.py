"""`release --push` (releases/hub.py): refused without a token or the library, the folder kept
(no network in tests)."""

from __future__ import annotations

import sys

import pytest

from persian_tui.cli import main

# ---------------------------------------------------------------- --push (no network in tests)


def test_push_refuses_without_a_token_or_the_library_and_keeps_the_folder(release, tmp_path, monkeypatch, capsys):
    db, _ = release
    pytest.importorskip("huggingface_hub", reason="huggingface_hub is not installed (datasets brings it)")
    import huggingface_hub.constants as hub_constants
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.setattr(hub_constants, "HF_TOKEN_PATH", str(tmp_path / "hf" / "token"))  # no stored login
    monkeypatch.setattr(hub_constants, "HF_STORED_TOKENS_PATH", str(tmp_path / "hf" / "stored_tokens"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    out = tmp_path / "p"
    assert main(["--db", db, "release", "v1", "-o", str(out), "--push", "someone/outlier"]) == 1
    err = capsys.readouterr().err
    assert "--push needs a Hugging Face token" in err and len(err.strip().splitlines()) == 1
    assert (out / "release.json").is_file()  # written before the upload was refused
    assert main(["--db", db, "release", "v1", "-o", str(out), "--push", "not a repo"]) == 1
    assert "--push takes a repository id" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "huggingface_hub", None)
    assert main(["--db", db, "release", "v1", "-o", str(out), "--push", "someone/outlier"]) == 1
    assert "--push needs huggingface_hub" in capsys.readouterr().err
