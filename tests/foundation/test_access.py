"""Users and roles in the core: the one table of what each role may do, the users kept in the
database, who is acting, and the CLI's users commands and its refusals (one line, status 1)."""

from __future__ import annotations

import argparse
from dataclasses import replace

import pytest
from factories import make_question

from persian_tui import settings
from persian_tui.access import AccessDenied, acting
from persian_tui.cli import main, parser
from persian_tui.cli.access import COMMAND_ACTS, command_paths
from persian_tui.models.users import (
    ACTS,
    ROLES,
    User,
    check_add,
    check_name,
    check_remove,
    check_role,
    may,
    refusal,
)
from persian_tui.store import Store, StoreError

SECRET_KEY = 3


@pytest.fixture
def db(tmp_path, monkeypatch):
    """A bank of two keyed questions and an annotator's label; the login name is "login"."""
    monkeypatch.setattr(settings, "local_user", lambda: "login")
    path = tmp_path / "roles.db"
    with Store(path) as s:
        s.questions.add_questions([make_question("q-1", key=SECRET_KEY), make_question("q-2", key=1)])
        s.labels.add_label("q-1", "sara", 2)
    return path


def with_users(path, **roles: str) -> None:
    with Store(path) as s:
        for name, role in roles.items():
            s.users.add(name, check_role(role))


def cli(capsys, path, *argv: str) -> tuple[int, str, str]:
    code = main(["--db", str(path), *argv])
    out, err = capsys.readouterr()
    return code, out, err


# ------------------------------------------------------------------ the rules


def test_what_each_role_may_do():
    allowed = {role: {act for act in ACTS if may(role, act)} for role in ROLES}
    assert allowed["annotator"] == {"label"}
    assert allowed["reviewer"] == {"label", "see_answers", "see_sources", "adjudicate", "review"}
    assert allowed["admin"] == set(ACTS)


def test_a_refusal_is_one_line_naming_the_person_the_role_and_who_may():
    line = refusal("ali", "annotator", "see_answers")
    assert line == ("ali is an annotator: seeing keys, model answers, judge verdicts and other annotators' "
                    "labels is for reviewers and admins")
    assert "\n" not in line
    assert refusal(None, "reviewer", "settings") == "you are a reviewer: changing a shared setting is for admins"


def test_roles_and_names_are_validated():
    assert check_role("reviewer") == "reviewer"
    with pytest.raises(ValueError, match="one of annotator, reviewer, admin"):
        check_role("boss")
    assert check_name("  مریم\u200cدخت ") == "مریم\u200cدخت"  # a ZWNJ belongs in a Persian name
    for bad in ("", "   ", "a\x1b[31m", "x" * 65, "a\u202eb"):
        with pytest.raises(ValueError):
            check_name(bad)


def test_the_first_user_is_an_admin_and_the_last_admin_stays():
    with pytest.raises(ValueError, match="the first user is an admin"):
        check_add([], "ali", "annotator")
    check_add([], "boss", "admin")
    boss, ali = User("boss", "admin", "t"), User("ali", "annotator", "t")
    with pytest.raises(ValueError, match="already a user"):
        check_add([boss, ali], "ali", "reviewer")
    with pytest.raises(ValueError, match="last admin"):
        check_remove([boss, ali], "boss")
    assert check_remove([boss, ali], "ali") == ali
    with pytest.raises(ValueError, match="last admin"):
        check_remove([boss], "boss")  # alone too: else every name would act as admin
    with pytest.raises(ValueError, match="last admin"):
        check_remove([boss, User("old", "admin", "t", disabled_at="t2")], "boss")  # a removed admin is none
    assert check_remove([boss, User("root", "admin", "t")], "boss") == boss
    with pytest.raises(ValueError, match="not a user"):
        check_remove([boss], "nobody")


# ------------------------------------------------------------------ the store


def test_users_are_kept_in_the_database(db):
    with Store(db) as s:
        assert not s.users.any() and s.users.users() == []
        with pytest.raises(StoreError, match="first user is an admin"):
            s.users.add("ali", "annotator")
        s.users.add(" boss ", "admin")
        s.users.add("ali", "annotator")
        assert [(u.name, u.role) for u in s.users.users()] == [("ali", "annotator"), ("boss", "admin")]
        removed = s.users.remove("ali")
        assert removed.role == "annotator" and s.users.get("ali") is None
        assert [u.name for u in s.users.users(removed=True) if not u.active] == ["ali"]
        s.users.add("ali", "reviewer")  # a removed name comes back with its new role
        assert s.users.get("ali").role == "reviewer"
        row = s.conn.execute("SELECT password_hash FROM users WHERE name = 'ali'").fetchone()
        assert row["password_hash"] is None  # for a later web front


def test_who_is_acting(db):
    with Store(db) as s:
        solo = acting(s, None)
        assert solo.solo and solo.role == "admin" and solo.user is None and not solo.blind
        with_users(db, boss="admin", ali="annotator", sara="reviewer")
        assert acting(s, "ali").role == "annotator" and acting(s, "ali").blind
        assert acting(s, "sara").role == "reviewer" and not acting(s, "sara").blind
        with pytest.raises(AccessDenied, match="login is not a user"):
            acting(s, None)  # the login name, not a user
        with pytest.raises(AccessDenied, match="nobody is not a user"):
            acting(s, "nobody")
        s.users.remove("ali")
        with pytest.raises(AccessDenied, match="ali is not a user"):
            acting(s, "ali")


def test_a_blind_person_sees_no_key_and_no_explanation(db):
    with_users(db, boss="admin", ali="annotator")
    with Store(db) as s:
        q = s.questions.get_question("q-1")
        q = type(q)(**{**q.__dict__, "explanation": "the third differs"})
        ali, boss = acting(s, "ali"), acting(s, "boss")
        assert ali.question(q).key is None and ali.question(q).explanation is None
        assert boss.question(q) is q
        rows = s.questions.rows_for(["q-1", "q-2"])
        assert [r.key for r in ali.rows(rows)] == [None, None]
        assert [r.key for r in boss.rows(rows)] == [SECRET_KEY, 1]


def test_a_blind_person_sees_no_source_page_and_no_poet(db):
    """The seed book prints its keys on the page of its questions, and a poet tells couplets
    apart (the label screen shows neither): the core hides the page, the question's poet, each
    option's poet and the corpus links (whose poets the bank would show) from a blind person."""
    with_users(db, boss="admin", ali="annotator")
    with Store(db) as s:
        q = s.questions.get_question("q-1")
        q = replace(q, source_page=17, poet="حافظ", options=[replace(o, poet="سعدی") for o in q.options])
        ali, boss = acting(s, "ali"), acting(s, "boss")
        shown = ali.question(q)
        assert shown.source_page is None and shown.poet is None
        assert [o.poet for o in shown.options] == [None] * 4
        assert [o.mesra1 for o in shown.options] == [o.mesra1 for o in q.options]  # the couplets stay
        assert boss.question(q).source_page == 17 and boss.question(q).options[0].poet == "سعدی"
        assert ali.option_links(s, "q-1") == {}


def test_a_non_admin_exports_only_under_the_exports_folder(db, tmp_path):
    """An export's folder: beside the database when relative; a reviewer's only under the
    database's exports/ (neither `..` nor a symbolic link leads out); an admin's anywhere. Only an
    admin's choice is kept as the shared setting."""
    with_users(db, boss="admin", sara="reviewer")
    base = db.resolve().parent
    (base / "exports").mkdir()
    (base / "exports" / "link").symlink_to(tmp_path.parent)
    with Store(db) as s:
        sara, boss = acting(s, "sara"), acting(s, "boss")
        assert sara.export_folder(db, "exports/report") == base / "exports" / "report"
        assert sara.export_folder(db, base / "exports") == base / "exports"
        for folder in (tmp_path.parent / "x", "exports/../x", "exports/link/x", "x"):
            with pytest.raises(AccessDenied, match="^sara is a reviewer: an export goes under "):
                sara.export_folder(db, folder)
        assert boss.export_folder(db, tmp_path.parent / "x") == (tmp_path.parent / "x").resolve()
        sara.remember_export_folder(s, "report.export_dir", base / "exports" / "mine")
        assert s.labels.get_setting("report.export_dir") is None
        boss.remember_export_folder(s, "report.export_dir", base / "exports" / "mine")
        assert s.labels.get_setting("report.export_dir") == str(base / "exports" / "mine")


def test_report_o_of_a_non_admin_is_refused_outside_the_exports_folder(db, capsys, tmp_path, monkeypatch):
    with_users(db, boss="admin", sara="reviewer")
    monkeypatch.chdir(tmp_path)
    code, _, err = cli(capsys, db, "--user", "sara", "report", "--format", "json", "-o", str(tmp_path / "out"))
    assert code == 1 and "sara is a reviewer: an export goes under " in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_a_blind_person_sees_no_status_and_no_label_count(db, capsys):
    """A status that turns `curated` after a bulk accept, a label count that grows: either tells
    an annotator what the key is. The core hides both (rows, counts, filter), and so does `stats`."""
    with_users(db, boss="admin", ali="annotator")
    with Store(db) as s:
        ali, boss = acting(s, "ali"), acting(s, "boss")
        rows = s.questions.rows_for(["q-1"])
        assert (ali.rows(rows)[0].status, ali.rows(rows)[0].labels) == ("", 0)
        assert (boss.rows(rows)[0].status, boss.rows(rows)[0].labels) == ("ready", 1)
        assert ali.question(s.questions.get_question("q-1")).status == ""
        assert ali.counts(s.questions.counts()).by_status == {} and boss.counts(s.questions.counts()).by_status
        with pytest.raises(AccessDenied):
            ali.status_filter("curated")
        assert ali.status_filter(None) is None and boss.status_filter("curated") == "curated"
    assert main(["--db", str(db), "--user", "ali", "stats"]) == 0
    assert "ready" not in capsys.readouterr().out
    assert main(["--db", str(db), "--user", "boss", "stats"]) == 0
    assert "ready: 2" in capsys.readouterr().out


# ------------------------------------------------------------------ the CLI


def test_every_command_says_who_may_run_it():
    assert sorted(command_paths(parser())) == sorted(COMMAND_ACTS)


def test_users_commands(db, capsys):
    code, out, _ = cli(capsys, db, "users", "list")
    assert code == 0 and "no users" in out
    code, _, err = cli(capsys, db, "users", "add", "ali", "--role", "annotator")
    assert code == 1 and err.strip().startswith("persian-tui: error: the first user is an admin")
    code, out, _ = cli(capsys, db, "users", "add", "boss", "--role", "admin")
    assert code == 0 and "added boss as admin" in out and "--user boss" in out  # the login name is not boss
    assert cli(capsys, db, "users", "add", "ali", "--role", "annotator", "--user", "boss")[0] == 0
    assert cli(capsys, db, "--user", "boss", "users", "add", "sara", "--role", "reviewer")[0] == 0
    code, out, _ = cli(capsys, db, "users", "list", "--user", "boss")
    assert code == 0 and [line.split()[:2] for line in out.splitlines()] == [
        ["ali", "annotator"], ["boss", "admin"], ["sara", "reviewer"]]
    code, _, err = cli(capsys, db, "users", "remove", "boss", "--user", "boss")
    assert code == 1 and "last admin" in err
    code, out, _ = cli(capsys, db, "users", "remove", "ali", "--user", "boss")
    assert code == 0 and "removed ali" in out
    code, out, _ = cli(capsys, db, "users", "list", "--all", "--user", "boss")
    assert "removed" in out.splitlines()[0]


def test_only_admins_manage_users_once_there_are_users(db, capsys):
    with_users(db, boss="admin", ali="annotator", sara="reviewer")
    for who in ("ali", "sara", "login"):
        code, out, err = cli(capsys, db, "users", "add", "eve", "--role", "admin", "--user", who)
        assert code == 1 and out == "" and len(err.strip().splitlines()) == 1, who
    code, _, err = cli(capsys, db, "users", "list")  # the login name is not a user
    assert code == 1 and "login is not a user" in err


@pytest.mark.parametrize("argv", [
    ["export", "-o", "{tmp}/out.jsonl"], ["export", "--with-labels", "-o", "{tmp}/out.jsonl"],
    ["agreement"], ["report"], ["items"], ["errors"], ["runs"], ["shortcuts"], ["samples", "1"],
])
def test_an_annotator_is_refused_what_shows_keys_answers_verdicts_or_labels(db, capsys, tmp_path, argv):
    with_users(db, boss="admin", ali="annotator")
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    code, out, err = cli(capsys, db, *argv, "--user", "ali")
    assert code == 1 and out == ""
    assert err == ("persian-tui: error: ali is an annotator: seeing keys, model answers, judge verdicts and "
                   "other annotators' labels is for reviewers and admins\n")
    assert not (tmp_path / "out.jsonl").exists()


def test_what_an_annotator_may_run(db, capsys):
    with_users(db, boss="admin", ali="annotator")
    assert cli(capsys, db, "stats", "--user", "ali")[0] == 0
    code, out, _ = cli(capsys, db, "setting", "--user", "ali")
    assert code == 0 and "label_target" in out


def test_roles_on_shared_settings_authoring_and_adjudication(db, capsys, tmp_path):
    with_users(db, boss="admin", ali="annotator", sara="reviewer")
    for who in ("ali", "sara"):
        code, _, err = cli(capsys, db, "setting", "label_target", "4", "--user", who)
        assert code == 1 and "changing a shared setting is for admins" in err
        code, _, err = cli(capsys, db, "sample", "--user", who)
        assert code == 1 and "authoring and importing" in err
    assert cli(capsys, db, "agreement", "--user", "sara")[0] == 0
    code, _, err = cli(capsys, db, "curate", "q-1", "--annotator", "ali")  # the decider is the actor
    assert code == 1 and "ali is an annotator: adjudicating keys is for reviewers and admins" in err
    code, _, err = cli(capsys, db, "curate", "q-1", "--annotator", "sara", "--user", "boss")
    assert code == 1 and "name one person" in err
    assert cli(capsys, db, "setting", "label_target", "4", "--user", "boss")[0] == 0
    with Store(db) as s:
        assert settings.label_target(s.labels) == 4


def test_without_users_everyone_is_admin_as_before(db, capsys, tmp_path):
    assert cli(capsys, db, "setting", "label_target", "2")[0] == 0
    assert cli(capsys, db, "export", "-o", str(tmp_path / "out.jsonl"))[0] == 0
    assert cli(capsys, tmp_path / "new.db", "sample")[0] == 0  # a new database: its creator is admin


def test_the_reference_says_who_may_run_a_command():
    from persian_tui.cli.reference import cli_markdown

    page = cli_markdown()
    assert "## users add\n" in page
    section = page.split("## report\n", 1)[1].split("\n## ", 1)[0]
    assert "*Who*: reviewers and admins" in section


def test_the_acting_name_needs_no_database_when_none_exists(tmp_path, capsys):
    ns = argparse.Namespace(db=str(tmp_path / "none.db"), act="see_answers", user="x")
    from persian_tui.cli.access import check

    check(ns)  # no database: no users, nothing refused, nothing created
    assert not (tmp_path / "none.db").exists()


@pytest.mark.parametrize("name, reason", [
    ("bоss", "does not mix Cyrillic and Latin letters"),  # a Cyrillic о
    ("ali\u200d", "no control characters"),  # ZWJ
    ("\u3164", "no invisible characters"),  # a Hangul filler draws nothing
    ("ali\u00a0x", "no invisible characters"),  # a no-break space inside a name
    ("ali\u2800x", "no invisible characters"),  # the braille blank
])
def test_invisible_and_look_alike_names_are_refused(name, reason):
    with pytest.raises(ValueError, match=reason):
        check_name(name)
    assert check_name("علی\u200cرضا") == "علی\u200cرضا"  # ZWNJ is Persian spelling, kept


def test_names_are_compared_after_the_normalizer():
    boss, ali = User("boss", "admin", "t"), User("علی", "annotator", "t")
    for alike in ("علي", "BOSS", "Boss"):
        with pytest.raises(ValueError, match="looks like the user"):
            check_add([boss, ali], alike, "annotator")
    gone = User("sara", "annotator", "t", disabled_at="t2")
    with pytest.raises(ValueError, match="looks like the user sara"):
        check_add([boss, gone], "SARA", "annotator")  # a removed name too: it keeps its labels
    check_add([boss, gone], "sara", "reviewer")  # the same name comes back


def test_an_annotator_cannot_search_the_corpus_for_a_couplets_poet(db, capsys):
    """`corpus search` and `corpus similar` print every couplet's poet: an annotator pasting a
    couplet of the label screen would learn what it hides. They are for reviewers and admins;
    the corpus counts (`corpus stats`) stay everyone's."""
    with_users(db, boss="admin", ali="annotator", sara="reviewer")
    for argv in (("corpus", "search", "عشق"), ("corpus", "similar", "عشق")):
        code, out, err = cli(capsys, db, "--user", "ali", *argv)
        assert code == 1 and out == "", argv
        assert err.strip() == ("persian-tui: error: ali is an annotator: seeing or searching poets, source "
                               "pages and the corpus "
                               "is for reviewers and admins"), argv
    code, _, err = cli(capsys, db, "--user", "sara", "corpus", "search", "عشق")
    assert "is for reviewers" not in err
    code, _, err = cli(capsys, db, "--user", "ali", "corpus", "stats")
    assert code == 0, err
