"""Hostile release folders: a folder that is not a release is
never written into, symlinks inside one are never written through, two releases never mix in one
folder, a stale file never survives, the manifest is written last, and raw controls from data
never reach the README or the leaderboard."""

from __future__ import annotations

import json
import os

import pytest

from persian_tui.cli import main
from persian_tui.files import outputs
from persian_tui.files.inputs import InputError
from persian_tui.models import Prediction
from persian_tui.releases.build import build_release
from persian_tui.store import Store


def one_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err


def test_a_folder_that_is_not_a_release_is_never_written(release, tmp_path, capsys):
    db, _ = release
    other = tmp_path / "project"
    (other / "lm_eval").mkdir(parents=True)
    (other / "README.md").write_text("my project", "utf-8")
    (other / "lm_eval" / "utils.py").write_text("mine", "utf-8")
    assert main(["--db", db, "release", "v1", "-o", str(other)]) == 1
    assert "not a release folder" in one_line(capsys)
    assert (other / "README.md").read_text("utf-8") == "my project"
    assert (other / "lm_eval" / "utils.py").read_text("utf-8") == "mine"
    assert not (other / "release.json").exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["--db", db, "release", "v1", "-o", str(empty)]) == 0  # an empty folder is fine


@pytest.mark.parametrize("link", ["README.md", "lm_eval", "data/test.jsonl"])
def test_a_symlink_inside_a_release_folder_is_never_written_through(release, tmp_path, capsys, link):
    db, out = release
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "test.jsonl").write_text("keep", "utf-8")
    (victim / "README.md").write_text("keep", "utf-8")
    (victim / "utils.py").write_text("keep", "utf-8")
    target = out / link
    if target.is_dir():
        import shutil

        shutil.rmtree(target)
    else:
        target.unlink()
    os.symlink(victim / target.name if link != "lm_eval" else victim, target)
    before = {p.name: p.read_text("utf-8") for p in victim.iterdir()}
    assert main(["--db", db, "release", "v1", "-o", str(out)]) == 1
    assert "symlink" in one_line(capsys)
    assert {p.name: p.read_text("utf-8") for p in victim.iterdir()} == before


def test_two_releases_into_one_folder_never_mix(release, tmp_path, monkeypatch):
    db, _ = release
    out = tmp_path / "shared"
    real = outputs.write_atomic
    seen: list[Exception] = []

    def racing(path, data, **kw):
        real(path, data, **kw)
        if not seen:  # the other release starts while this one is writing
            seen.append(RuntimeError("started"))
            with Store(db) as other:
                with pytest.raises(InputError) as e:
                    build_release(other, "p2", out)
                seen.append(e.value)

    monkeypatch.setattr(outputs, "write_atomic", racing)
    with Store(db) as s:
        build_release(s, "p1", out)
    assert len(seen) == 2 and "being written" in str(seen[1])
    assert json.loads((out / "release.json").read_text("utf-8"))["name"] == "p1"


def test_a_stale_leaderboard_does_not_survive_and_the_manifest_is_last(release, tmp_path, monkeypatch):
    db, _ = release
    with Store(db) as s:
        uid = s.questions.questions(statuses=["curated"])[0].uid
        s.runs.create_run("imported", "m", {}, total=1, status="done", predictions=[Prediction(uid, 1, "ok")])
        (run,) = s.runs.runs()
    out = tmp_path / "r"
    assert main(["--db", db, "release", "v1", "-o", str(out), "--runs", str(run.id)]) == 0
    assert (out / "leaderboard.csv").is_file()
    assert main(["--db", db, "release", "v1", "-o", str(out)]) == 0
    assert not (out / "leaderboard.csv").exists()
    written = []
    real = outputs.write_atomic
    monkeypatch.setattr(outputs, "write_atomic", lambda p, d, **kw: (written.append(p.name), real(p, d, **kw)))
    assert main(["--db", db, "release", "v1", "-o", str(tmp_path / "r2")]) == 0
    assert written[-1] == "release.json"
    files = json.loads((tmp_path / "r2" / "release.json").read_text("utf-8"))["files"]
    assert "data/test.jsonl" in files and "README.md" in files and "release.json" not in files


def test_controls_from_data_never_reach_the_release_files(release, tmp_path):
    db, _ = release
    with Store(db) as s:
        uid = s.questions.questions(statuses=["curated"])[0].uid
        s.runs.create_run("imported", "evil\x1b]0;pwned\x07model", {}, total=1, status="done",
                          predictions=[Prediction(uid, 1, "ok")])
        (run,) = s.runs.runs()
    out = tmp_path / "r"
    assert main(["--db", db, "release", "v1", "-o", str(out), "--runs", str(run.id)]) == 0
    for name in ("README.md", "leaderboard.csv"):
        text = (out / name).read_text("utf-8")
        assert "\x1b" not in text and "\x07" not in text, name
        assert "evil" in text
