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
    assert "--push needs huggingface_hub 1.0 or later" in capsys.readouterr().err


# ---------------------------------------------------------------- --push against a fake hub on 127.0.0.1

TOKEN = "hf_FakeTokenForTests0123456789"


@pytest.fixture
def hub(monkeypatch, tmp_path):
    """huggingface_hub pointed at tests/hub_server.py's fake hub (never the network), with a token."""
    pytest.importorskip("huggingface_hub", reason="huggingface_hub is not installed (datasets brings it)")
    import huggingface_hub.constants as hub_constants
    from hub_server import FakeHub

    with FakeHub() as fake:
        monkeypatch.setattr(hub_constants, "ENDPOINT", fake.url)
        monkeypatch.setenv("HF_ENDPOINT", fake.url)
        monkeypatch.setenv("HF_TOKEN", TOKEN)
        monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
        monkeypatch.setattr(hub_constants, "HF_HUB_OFFLINE", False, raising=False)
        monkeypatch.setattr(hub_constants, "HF_TOKEN_PATH", str(tmp_path / "hf" / "token"))
        yield fake


def manifest_files(out):
    import json

    return set(json.loads((out / "release.json").read_text("utf-8"))["files"]) | {"release.json"}


def test_push_uploads_exactly_the_release_files(release, hub, capsys):
    db, out = release
    (out / "secrets.env").write_text("OPENAI_API_KEY=sk-live-0123456789abcdef\n", "utf-8")
    (out / "notes").mkdir()
    (out / "notes" / "private.txt").write_text("annotator phone numbers", "utf-8")
    capsys.readouterr()
    assert main(["--db", db, "release", "v1", "-o", str(out), "--push", "someone/outlier"]) == 0
    printed = capsys.readouterr().out
    assert set(hub.repos["someone/outlier"].files) == manifest_files(out)
    assert "secrets.env" in printed and "not uploaded" in printed
    for rel, data in hub.repos["someone/outlier"].files.items():
        assert data == (out / rel).read_bytes()


def test_the_capped_hub_client_is_built_from_huggingface_hubs_public_api(release, hub, capsys, monkeypatch):
    """The capped client keeps huggingface_hub's own request hooks (each request carries its
    trace id), taken from its public `get_session`, not from a private factory a release may
    rename: without `default_client_factory` the push still goes through."""
    from huggingface_hub.utils import _http as hub_http

    monkeypatch.delattr(hub_http, "default_client_factory")
    db, out = release
    capsys.readouterr()
    assert main(["--db", db, "release", "v1", "-o", str(out), "--push", "someone/outlier"]) == 0, \
        capsys.readouterr().err
    assert set(hub.repos["someone/outlier"].files) == manifest_files(out)
    assert hub.trace_ids and all(hub.trace_ids), hub.trace_ids


def test_push_refuses_a_folder_holding_a_database(release, hub, capsys):
    import shutil

    db, out = release
    shutil.copy(db, out / "backup.sqlite")
    capsys.readouterr()
    assert main(["--db", db, "release", "v1", "-o", str(out), "--push", "someone/outlier"]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "backup.sqlite" in err and "database" in err
    assert "someone/outlier" not in hub.repos or not hub.repos["someone/outlier"].files


def test_push_refuses_the_databases_folder(release, hub, capsys, tmp_path):
    from persian_tui.files.inputs import InputError
    from persian_tui.releases.hub import push_release
    from persian_tui.store import Store

    db, out = release
    with Store(db):  # the database is open: its folder is never uploaded
        with pytest.raises(InputError) as e:
            push_release(tmp_path, "someone/outlier", "m")
    assert "database" in str(e.value)
    assert not hub.repos


def test_a_hub_error_never_prints_the_token(release, hub, capsys):
    db, out = release
    hub.fail = 401
    capsys.readouterr()
    assert main(["--db", db, "release", "v1", "-o", str(out), "--push", "someone/outlier"]) == 1
    err = capsys.readouterr().err
    assert TOKEN not in err and "***" in err and len(err.strip().splitlines()) == 1


def test_push_private_onto_an_existing_public_repository_is_refused(release, hub, capsys):
    from hub_server import Repo

    db, out = release
    hub.repos["someone/open"] = Repo(private=False)
    hub.repos["someone/closed"] = Repo(private=True)
    capsys.readouterr()
    assert main(["--db", db, "release", "v1", "-o", str(out), "--push", "someone/open", "--private"]) == 1
    err = capsys.readouterr().err
    assert "public" in err and len(err.strip().splitlines()) == 1
    assert not hub.repos["someone/open"].files
    assert main(["--db", db, "release", "v1", "-o", str(out), "--push", "someone/closed", "--private"]) == 0
    assert set(hub.repos["someone/closed"].files) == manifest_files(out)
    assert main(["--db", db, "release", "v1", "-o", str(out), "--push", "someone/open"]) == 0
    assert "public" in capsys.readouterr().out  # said, when it is not asked to be private


def test_an_endless_hub_reply_ends_in_one_line_in_bounded_memory(release, tmp_path):
    """Every hub reply is read through a cap (releases/hub.py, as the model endpoints' are): a hub
    whose answer never ends stops the push in one line, in a process whose address space is
    limited (as under `ulimit -v`), and the folder stays."""
    pytest.importorskip("huggingface_hub", reason="huggingface_hub is not installed (datasets brings it)")
    import resource

    from hub_server import FakeHub
    from processes import cli_process

    def limited():
        resource.setrlimit(resource.RLIMIT_AS, (700 * 2**20,) * 2)

    db, out = release
    with FakeHub() as fake:
        fake.endless = True
        env = {"HF_ENDPOINT": fake.url, "HF_TOKEN": TOKEN, "HF_HOME": str(tmp_path / "hf"), "HF_HUB_OFFLINE": "0"}
        done = cli_process(db, "release", "v1", "-o", str(out), "--push", "someone/outlier", env_extra=env,
                           preexec_fn=limited)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr[-2000:]
    last = done.stderr.strip().splitlines()[-1]
    assert "--push someone/outlier: " in last and "larger than 16 MB" in last and TOKEN not in done.stderr
    assert (out / "release.json").is_file()
