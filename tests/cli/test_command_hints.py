"""A hint that names a command names one that works: every `persian-tui ...` command line the
package shows a user (a notice, an error, a dialog, a report's note) is run through the CLI's
parser, its placeholders (RUN, PATH, NAME, URL, a formatted value) filled in; so is the command
that goes on with an interrupted run of each kind, and the one the quit question shows."""

from __future__ import annotations

import argparse
import ast
import re
from pathlib import Path

import pytest

import persian_tui
from persian_tui.cli import parser
from persian_tui.runs import SPECS, resume_command

PACKAGE = Path(persian_tui.__file__).parent
MENTION = re.compile(r"persian-tui ([^\n`()\[\];:\"“”]*)")
# words after "persian-tui" that are prose, not a command ("a persian-tui database"; the typo the
# CLI reference shows on purpose to explain "did you mean")
PROSE = {"database", "schema", "documentation", "understands", "stat", "is", "sends", "parser"}
NUMBERS = {"RUN", "K", "N", "7"}  # "7": an f-string's field
FILLED = {"URL": "http://127.0.0.1:9/v1", "PATH": "corpus", "FILE": "bank.jsonl", "LOG": "log.json"}


def shown_strings(path: Path) -> list[str]:
    """Every string literal of a module but its docstrings, an f-string's fields written as 7."""
    tree = ast.parse(path.read_text("utf-8"))
    docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                  if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    parts = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
    out = []
    for node in ast.walk(tree):
        if id(node) in docstrings | parts:
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            out.append(node.value)
        elif isinstance(node, ast.JoinedStr):
            out.append("".join(v.value if isinstance(v, ast.Constant) else "7" for v in node.values))
    return out


def subcommands(p: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def placeholder(word: str) -> str:
    """A value for a placeholder (RUN, NAME, FILE.csv, 1,2,...)."""
    if word in NUMBERS:
        return "7"
    return FILLED.get(word, "x") if word.isupper() or word == "M" else word


def command_line(words: list[str]) -> list[str] | None:
    """The argv a mention stands for: the (sub)commands it names, then options and values, up to
    the first word of prose; None when the mention is no command (``PROSE``, a formatted field)."""
    p, argv, i = parser(), [], 0
    while i < len(words) and words[i] in subcommands(p):
        p = subcommands(p)[words[i]]
        argv.append(words[i])
        i += 1
    if not argv and (not words or words[0] in PROSE | {"7"} or words[0].startswith("-")):
        return None
    if not argv:
        return [words[0]]  # an unknown command: refused
    options = {s: a for a in p._actions for s in a.option_strings}
    positionals = [a for a in p._actions if not a.option_strings and not isinstance(a, argparse._SubParsersAction)]
    while i < len(words):
        w = words[i]
        if w.startswith("-"):
            argv.append(w)
            action = options.get(w)
            if action is not None and action.nargs != 0 and i + 1 < len(words):
                argv.append(placeholder(words[i + 1]))
                i += 1
        elif positionals and (w.isupper() or w[0].isdigit() or "." in w or "/" in w):
            positionals.pop(0)
            argv.append(placeholder(w))
        else:
            break  # prose ("goes on", "first", "lists every question") or a formatted kind
        i += 1
    return argv


def is_reference(argv: list[str]) -> bool:
    """Only command names (`persian-tui import-labels`, `persian-tui corpus link`): the command
    is named, not a line to type as is; it must exist, its arguments may be left out."""
    p = parser()
    for word in argv:
        subs = subcommands(p)
        if word not in subs:
            return False
        p = subs[word]
    return True


def alternatives(words: list[str]) -> list[list[str]]:
    """One line per choice a mention offers (``--role annotator|reviewer|admin``): each must work."""
    for i, w in enumerate(words):
        if "|" in w.strip("|"):
            return [line for choice in w.split("|")
                    for line in alternatives(words[:i] + [choice] + words[i + 1:])]
    return [words]


def mentions() -> list[tuple[str, str, list[str]]]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for text in shown_strings(path):
            for m in MENTION.finditer(text):
                for words in alternatives(m[1].replace(",", " , ").split()):
                    argv = command_line(words)
                    if argv is not None:
                        out.append((path.relative_to(PACKAGE.parent).as_posix(), m[0].strip(), argv))
    return out


def parses(argv: list[str]) -> str | None:
    """None when the CLI's parser takes ``argv``; else why not."""
    try:
        parser().parse_args(argv)
    except SystemExit as e:
        return None if not e.code else f"refused (exit {e.code})"
    return None


def test_every_command_the_package_suggests_parses(capsys):
    found = mentions()
    assert len(found) > 30
    bad = [f"{path}: `{text}` -> {argv}: {why}" for path, text, argv in found
           if not is_reference(argv) and (why := parses(argv))]
    assert not bad, "\n".join(bad) + "\n" + capsys.readouterr().err


def test_a_mention_with_a_missing_argument_is_caught():
    """The quit question's old hint: `persian-tui run --resume` lacks the KIND."""
    argv = command_line("run --resume) goes on".replace(")", " ").split())
    assert argv == ["run", "--resume"] and not is_reference(argv) and parses(argv) is not None
    assert parses(command_line("run llm --resume RUN".split())) is None
    assert is_reference(command_line("import-labels".split()))


@pytest.mark.parametrize("kind", list(SPECS))
def test_the_resume_command_of_each_run_kind_parses(kind, capsys):
    command = resume_command(kind, 12)
    if kind == "embedding":  # launched again, never resumed
        assert command is None
        return
    argv = command.split()
    assert argv[0] == "persian-tui"
    args = parser().parse_args(argv[1:])
    assert args.resume == 12


def test_the_quit_question_names_a_command_that_goes_on_with_each_live_run(capsys):
    from types import SimpleNamespace

    from persian_tui.tui.jobs import _REGISTRY, Jobs, live_runs

    class App:  # what the registry keys on
        pass

    app, jobs = App(), Jobs()
    for kind, run_id in (("llm", 7), ("judge", 8), ("paraphrase", 9), ("embedding", 10)):
        jobs.new(kind, "m", run_id).worker = SimpleNamespace(is_finished=False)
    _REGISTRY[app] = jobs
    lines = live_runs(app)
    assert len(lines) == 4 and "u on the runs screen" not in lines[3]  # an embedding run is launched again
    for line, kind in zip(lines[:3], ("llm", "judge", "paraphrase")):
        command = re.search(r"\(or (persian-tui [^)]*)\)", line)[1]
        assert kind in command
        parser().parse_args(command.split()[1:])
