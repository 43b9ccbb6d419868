"""Reading a file of questions (bank/question_files.py): the format detected, malformed JSON
named by file and line."""

import pytest
from factories import write_file

from persian_tui.bank.importer import plan_import
from persian_tui.files.inputs import InputError


def test_malformed_json_names_file_and_line(store, tmp_path):
    path = write_file(tmp_path, "broken.json", '[\n  {"id": 1,\n  "options": [}\n]')
    with pytest.raises(InputError, match=r"broken.json: malformed JSON at line 3"):
        plan_import(store, path)


def test_unknown_format(store, tmp_path):
    with pytest.raises(InputError, match="cannot tell the format"):
        plan_import(store, write_file(tmp_path, "x.json", {"foo": 1}))
