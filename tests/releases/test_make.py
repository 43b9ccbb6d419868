"""A release as a person makes it (releases/make.py): the role checked in the core, the one
datasheet previewed before anything is frozen, what a folder holds, the runs a leaderboard offers."""

from __future__ import annotations

import pytest
from factories import add_questions, add_run

from persian_tui.access import Access, AccessDenied
from persian_tui.files.inputs import InputError
from persian_tui.releases.make import folder_note, make_release, preview, release_runs

ADMIN = Access("boss", "admin")


@pytest.fixture
def bank(store):
    add_questions(store, [1, 2, 3, 4], status=["curated"] * 4)
    add_run(store, "alpha", [1, 2, 3, 4])
    add_run(store, "running", [1, 2, 3, 4], status="running")
    store.runs.create_run("judge", "j", {}, status="done")
    return store


@pytest.mark.parametrize("role", ["annotator", "reviewer"])
def test_only_an_admin_makes_a_release(bank, tmp_path, role):
    with pytest.raises(AccessDenied, match=f"ali is an? {role}: freezing releases is for admins"):
        make_release(bank, Access("ali", role), "v1", tmp_path / "v1")
    assert bank.releases.releases() == [] and not (tmp_path / "v1").exists()
    made = make_release(bank, ADMIN, "v1", tmp_path / "v1", run_ids=[1], license_id="mit")
    assert made.created and made.release.created_by == "boss"
    assert "frozen " + made.release.created_at + " by boss" in (tmp_path / "v1" / "README.md").read_text("utf-8")


def test_the_preview_is_the_datasheet_but_for_the_time_it_is_frozen(bank, tmp_path):
    before = preview(bank, "v1", run_ids=[1], license_id="mit", who="boss")
    assert not before.frozen and bank.releases.releases() == []  # nothing frozen by a preview
    made = make_release(bank, ADMIN, "v1", tmp_path / "v1", run_ids=[1], license_id="mit")
    readme = (tmp_path / "v1" / "README.md").read_text("utf-8")
    assert before.text == readme.replace(f"frozen {made.release.created_at}", "frozen when written")
    after = preview(bank, "v1", run_ids=[1], license_id="mit")
    assert after.frozen and after.text == readme


def test_the_preview_says_what_the_write_would_refuse(bank):
    for kw, said in (({"name": "../x"}, "release name must be"), ({"name": "v1", "license_id": "CC BY"}, "--license"),
                     ({"name": "v1", "run_ids": [99]}, "no run 99"),
                     ({"name": "v1", "frozen": True}, "no release 'v1' to write as it was frozen")):
        name = kw.pop("name")
        with pytest.raises(InputError, match=said):
            preview(bank, name, **kw)


def test_a_name_frozen_with_other_content_is_said_in_the_preview(bank, tmp_path):
    make_release(bank, ADMIN, "v1", tmp_path / "v1")
    q = bank.questions.get_question("q2")
    q.explanation = "تغییر"
    bank.curation.update_question(q, "boss")
    with pytest.raises(InputError, match="release 'v1' was frozen .* with other content"):
        preview(bank, "v1")
    assert preview(bank, "v1", frozen=True).frozen  # as it was frozen: fine


def test_the_runs_a_leaderboard_offers(bank):
    assert [r.model for r in release_runs(bank)] == ["alpha"]  # not running, not a judge run


def test_what_a_folder_holds(bank, tmp_path):
    assert folder_note(tmp_path / "new", "v1") == "a new folder"
    (tmp_path / "empty").mkdir()
    assert folder_note(tmp_path / "empty", "v1") == "an empty folder"
    make_release(bank, ADMIN, "v1", tmp_path / "v1")
    assert folder_note(tmp_path / "v1", "v1").startswith("holds release v1: written again")
    assert folder_note(tmp_path / "v1", "v2") == "holds another release ('v1'): refused"
    (tmp_path / "file").write_text("x")
    assert folder_note(tmp_path / "file", "v1") == "exists and is not a folder: refused"
    with pytest.raises(InputError, match="exists and is not a folder"):
        make_release(bank, ADMIN, "v2", tmp_path / "file")
    assert [r.name for r in bank.releases.releases()] == ["v1"]  # refused before freezing
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("x")
    assert folder_note(tmp_path / "other", "v1").startswith("exists, no release in it (1 entries)")
