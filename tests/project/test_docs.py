"""The documentation: the generated references are current, every command the pages show parses,
the site builds with `mkdocs build --strict`, and the README stays a short front page."""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())  # wherever this file sits
DOCS = ROOT / "docs"
REGENERATE = "python scripts/gen_docs.py"


def test_cli_reference_is_current():
    from persian_tui.cli.reference import cli_markdown

    page = DOCS / "reference" / "cli.md"
    assert page.is_file() and page.read_text("utf-8") == cli_markdown(), \
        f"docs/reference/cli.md is out of date (a command or option changed): run {REGENERATE}"


def test_keys_reference_is_current():
    from persian_tui.tui.key_reference import keys_markdown

    page = DOCS / "reference" / "keys.md"
    assert page.is_file() and page.read_text("utf-8") == keys_markdown(), \
        f"docs/reference/keys.md is out of date (a key table changed): run {REGENERATE}"


def test_cli_reference_lists_every_command():
    from persian_tui.cli import parser
    from persian_tui.cli.reference import _commands, cli_markdown

    text = cli_markdown()
    for path, _ in _commands(parser(), ["persian-tui"]):
        assert f"# {' '.join(path[1:])}\n" in text, path


def test_keys_reference_names_every_screen_with_a_key_table():
    from persian_tui.tui.key_reference import keys_markdown, screen_classes

    text = keys_markdown()
    titled = [c for c in screen_classes() if getattr(c, "KEY_TABLE", ())]
    assert len(titled) >= 20
    for cls in titled:
        assert f"## {cls.KEYS_TITLE[0].upper()}{cls.KEYS_TITLE[1:]} (" in text, cls


def shown_commands() -> list[tuple[str, str]]:
    """(page, command line) of every `persian-tui ...` command in the README's and the docs'
    shell blocks (continuation lines joined; `;` and `&&` split; comments dropped)."""
    pages = [ROOT / "README.md", *sorted(p for p in DOCS.rglob("*.md") if p.parent.name != "reference")]
    out = []
    for page in pages:
        for block in re.findall(r"```(?:bash|sh)\n(.*?)```", page.read_text("utf-8"), re.S):
            for line in block.replace("\\\n", " ").splitlines():
                for part in re.split(r";|&&", line.split(" #")[0]):
                    if part.strip().startswith("persian-tui "):
                        out.append((page.relative_to(ROOT).as_posix(), part.strip()))
    return out


def test_every_command_the_pages_show_parses(capsys):
    """A command in the README or a guide page that the parser refuses (a renamed option, a
    removed command) fails here, naming the page."""
    from persian_tui.cli import parser

    commands = shown_commands()
    assert len(commands) > 40
    for page, line in commands:
        if "<" in line:  # a placeholder such as <the log>
            continue
        try:
            parser().parse_args(shlex.split(line)[1:])
        except SystemExit as e:  # --help and --version exit 0
            if e.code:
                pytest.fail(f"{page}: `{line}` does not parse: {capsys.readouterr().err.strip()}")


def test_readme_is_a_short_front_page():
    text = (ROOT / "README.md").read_text("utf-8")
    lines = text.splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines: move the detail into docs/"
    picture = re.search(r"!\[[^\]]*\]\((docs/images/[^)]+\.svg)\)", "\n".join(lines[:15]))
    assert picture and (ROOT / picture[1]).is_file(), "a screenshot near the top of the README"
    ci = (ROOT / ".ci" / "run").read_text("utf-8")
    (command,) = (line.split(" #")[0].strip() for line in re.findall(r"^(pytest .*)$", ci, re.M))
    assert command in text, f"the README shows the test command CI runs ({command})"
    for target in re.findall(r"\]\(((?:docs/|bench/|[A-Z]+\.md)[^)#]*)", text):
        assert (ROOT / target).exists(), target


def test_docs_build_strict(tmp_path):
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None:
        pytest.skip('mkdocs-material is not installed (the docs extra: pip install -e ".[docs]")')
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
                           "-f", str(ROOT / "mkdocs.yml"), "-d", str(tmp_path / "site")],
                          cwd=ROOT, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "site" / "reference" / "cli" / "index.html").is_file()
    assert (tmp_path / "site" / "images" / "bank.svg").is_file()


def _gen_docs():
    sys.path.insert(0, str(ROOT / "scripts"))
    import doc_outputs
    import gen_docs

    return gen_docs, doc_outputs


def test_every_output_the_pages_show_is_what_the_code_prints():
    """The outputs marked `<!-- out:NAME -->` in the README and the docs are regenerated from real
    runs (the sample bank; the seed book where its files are found) and must equal the pages: a
    changed message, column or figure fails here until `python scripts/gen_docs.py` is run."""
    gen_docs, doc_outputs = _gen_docs()
    pages, notes = gen_docs.output_pages(None)
    names = set().union(*map(doc_outputs.marked, pages.values()))
    assert {"sample-after-app", "sample-fresh", "sample-run-report", "seed-leaderboard"} <= names
    for path, text in pages.items():
        assert path.read_text("utf-8") == text, f"{path.relative_to(ROOT)} shows stale output: run {REGENERATE}"
    after_app = re.search(r"<!-- out:sample-after-app -->\n```text\n(.*?)```", pages[DOCS / "quickstart.md"], re.S)
    assert after_app and "0 new" in after_app[1] and "16 unchanged" in after_app[1], \
        "what a user who opened the app first sees"


def test_pages_show_no_output_block_that_is_not_generated():
    """In the pages that show command outputs, every output block is a generated one."""
    _, doc_outputs = _gen_docs()
    for page in [ROOT / "README.md", DOCS / "quickstart.md", DOCS / "guide" / "reports.md"]:
        text = page.read_text("utf-8")
        for m in re.finditer(r"```(\w*)\n(.*?)```", text, re.S):
            before = text[:m.start()].rstrip("\n").rsplit("\n", 1)[-1]
            if m[1] in ("", "text"):
                assert before.startswith("<!-- out:"), \
                    f"{page.name}: an output block that is not generated: {m[2][:80]!r}"


def test_an_output_follows_the_columns_the_report_prints():
    """The cut of a table is taken by header name from what was printed: a stale block is
    replaced, a reordered column follows, a removed one stops the script naming it."""
    _, doc_outputs = _gen_docs()
    printed = ["== Leaderboard", "#  run  accuracy  letters", "-  ---  --------  -------",
               "1  #2     68.0 %  a", "2  #12    56.7 %  ab", "letters: #2 a  #12 ab"]
    lines, n = doc_outputs.table(doc_outputs.section("\n".join(printed), "Leaderboard"), ["run", "letters", "accuracy"])
    assert n == 4 and lines == ["run  letters  accuracy", "---  -------  --------",
                                "#2   a          68.0 %", "#12  ab         56.7 %"]
    with pytest.raises(doc_outputs.OutputError, match="rank 95 %"):
        doc_outputs.table(printed[1:], ["run", "rank 95 %"])
    page = "before\n<!-- out:sample-x -->\n```text\nold 1–1\n```\nafter <!-- out:sample-n -->20<!-- /out --> columns"
    new, unknown = doc_outputs.fill(page, {"sample-x": "new 1–2\n", "sample-n": "19"})
    assert new == page.replace("old 1–1", "new 1–2").replace("-->20<", "-->19<")
    assert not unknown and doc_outputs.fill(page, {})[1] == ["sample-x", "sample-n"]
