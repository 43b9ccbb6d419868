"""Command-line habits (cli/options.py): --db after the command, "did you mean", one way to name
run ids, help for every option, required options marked in usage."""

from __future__ import annotations

import argparse

import pytest

from persian_tui.cli import main, parser


def all_parsers(p: argparse.ArgumentParser, name: str = "persian-tui"):
    yield name, p
    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub_name, sub in action.choices.items():
                yield from all_parsers(sub, f"{name} {sub_name}")


def test_db_after_the_command(sample_db, capsys):
    capsys.readouterr()
    assert main(["stats", "--db", sample_db]) == 0
    assert f"database: {sample_db}" in capsys.readouterr().out
    assert main(["runs", "--db", sample_db]) == 0  # nested commands too
    assert main(["run", "embed", "--model", "tfidf", "--questions", "all", "--db", sample_db]) == 0
    assert main(["runs", "history", "1", "--db", sample_db]) == 0
    assert main(["--db", sample_db, "stats"]) == 0  # before the command, as always
    assert f"database: {sample_db}" in capsys.readouterr().out


def test_did_you_mean(capsys):
    with pytest.raises(SystemExit) as e:
        main(["stat"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and "did you mean 'stats'?" in err and "invalid choice: 'stat'" in err
    with pytest.raises(SystemExit):
        main(["run", "lm"])
    assert "did you mean 'llm'?" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["zzzzqq"])
    assert "did you mean" not in capsys.readouterr().err


def test_every_option_and_command_has_help():
    missing = []
    for name, p in all_parsers(parser()):
        if p.description is None and name != "persian-tui" and not any(
                isinstance(a, argparse._SubParsersAction) for a in p._actions):
            missing.append(f"{name}: no description")
        for a in p._actions:
            if a.help is None and not isinstance(a, argparse._SubParsersAction):
                missing.append(f"{name} {'/'.join(a.option_strings) or a.dest}")
    assert not missing, missing


def test_run_ids_are_named_one_way():
    """One run: a RUN positional (old --run kept, hidden); several: --runs IDS."""
    for name, p in all_parsers(parser()):
        for a in p._actions:
            if a.help == argparse.SUPPRESS:
                continue
            if not a.option_strings and a.dest in ("id", "run"):
                assert a.metavar == "RUN", f"{name} {a.dest}"
            assert "--run" not in a.option_strings, f"{name}: --run is shown; RUN is the positional"
            if "--runs" in a.option_strings:
                assert a.metavar == "IDS", name


def test_old_run_spellings_still_work(sample_db, capsys):
    assert main(["--db", sample_db, "run", "embed", "--questions", "all"]) == 0
    capsys.readouterr()
    for argv in (["errors", "--run", "1"], ["errors", "1"]):
        assert main(["--db", sample_db, *argv]) == 1
        assert "no judgments yet for run 1" in capsys.readouterr().err
    assert main(["--db", sample_db, "errors", "1", "--run", "2"]) == 1
    assert "run 1 or --run 2" in capsys.readouterr().err


def test_usage_marks_required_options(capsys):
    for argv, shown in ((["run", "llm"], "--base-url URL --model NAME"),
                        (["judge"], "RUN --judge-model NAME --base-url URL"),
                        (["run", "paraphrase"], "--base-url URL --model NAME")):
        with pytest.raises(SystemExit):
            main([*argv, "--help"])
        usage = " ".join(capsys.readouterr().out.split("\n\n")[0].split())
        assert shown in usage and f"[{shown.split()[0]}" not in usage, usage


def test_every_option_with_a_default_names_it_in_help():
    """`--help` tells each option's default (run llm's --concurrency, --max-retries, --api-key-env ...)."""
    missing = [f"{name} {a.option_strings[-1]}" for name, p in all_parsers(parser()) for a in p._actions
               if a.option_strings and a.help != argparse.SUPPRESS and a.default not in (None, False, argparse.SUPPRESS)
               and "default" not in (a.help or "").lower()]
    assert not missing
