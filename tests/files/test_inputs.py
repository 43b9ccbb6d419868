"""Opening input files (files/inputs.py): regular files only (never a FIFO, device or folder),
never more than the cap."""

import os
import sqlite3

import pytest
from processes import cli_process

from persian_tui.cli import main


def _intact(db):
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM questions").fetchone()[0] == 3


def _targets(tmp_path):
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    folder = tmp_path / "traces"
    folder.mkdir()
    os.mkfifo(folder / "a.json")
    devs = tmp_path / "devs"
    devs.mkdir()
    (devs / "z.json").symlink_to("/dev/zero")
    return {"fifo": fifo, "zero": "/dev/zero", "fifo-folder": folder, "device-folder": devs}


@pytest.mark.parametrize("command", ["import", "answers", "import-labels", "import-predictions",
                                     "import-reasoning"])
def test_importers_refuse_fifos_and_devices_at_once(small_db, tmp_path, command):
    targets = _targets(tmp_path)
    keys = tmp_path / "q.json"
    keys.write_text('{"pages": []}', encoding="utf-8")
    for name, target in targets.items():
        if "folder" in name and command != "import-reasoning":
            continue
        if command == "answers":
            args = ["import", str(keys), "--format", "book", "--answers", str(target)]
        else:
            args = [command, str(target)]
        r = cli_process(small_db, *args)
        assert r.returncode == 1, (name, r.stdout, r.stderr)
        assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, (name, r.stderr)
        assert "regular files only" in r.stderr, (name, r.stderr)
    _intact(small_db)


def test_a_file_over_the_input_cap_is_refused_naming_the_cap(small_db, tmp_path, monkeypatch, capsys):
    from persian_tui.files import inputs

    big = tmp_path / "big.jsonl"
    big.write_bytes(b"x" * 2048)
    monkeypatch.setattr(inputs, "MAX_INPUT_BYTES", 1024)
    monkeypatch.setattr(inputs.read_input, "__defaults__", (1024,))
    assert main(["--db", str(small_db), "import", str(big)]) == 1
    err = capsys.readouterr().err
    assert "big.jsonl: 0.00195312 MB is larger than the 0.000976562 MB an input file may be" in err, err


def test_folder_given_as_a_file(small_db, tmp_path, capsys):
    (tmp_path / "d").mkdir()
    for command in ("import", "import-labels", "import-predictions"):
        assert main(["--db", str(small_db), command, str(tmp_path / "d")]) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and str(tmp_path / "d") in err and "directory" in err, err
