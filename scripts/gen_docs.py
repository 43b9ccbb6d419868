"""Write the generated pages of the documentation and copy its pictures:

    docs/reference/cli.md    from the argparse parser (persian_tui/cli/reference.py)
    docs/reference/keys.md   from the TUI's key tables (persian_tui/tui/key_reference.py)
    docs/images/*.svg        the SVG snapshots the tests compare the screens against
    README.md, docs/**/*.md  every command output and figure marked `<!-- out:NAME -->`, from real
                             runs on the sample bank and, when its files are found, the seed book
                             (scripts/doc_outputs.py; `--seed DIR` or $PERSIAN_TUI_SEED: its clone)

Run after changing a command, an option, a key or a screen: python scripts/gen_docs.py
(`--check` writes nothing and exits 1 when a page is out of date; tests/project/test_docs.py checks
the pages). A snapshot is found by its test's name anywhere under tests/ (tests/tui/__snapshots__/
today), so moving test files does not break this; a picture whose snapshot is not found is left as
it is, with a warning."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

DOCS = ROOT / "docs"

import doc_outputs  # noqa: E402  (beside this script)

# docs/images/NAME: the snapshot file of the test that draws it (120x40 unless named 80x24)
IMAGES = {
    "bank.svg": "test_bank_snapshot_app_mode.svg",
    "label.svg": "test_label_snapshot.svg",
    "review.svg": "test_review_snapshot.svg",
    "runs.svg": "test_runs_snapshot.svg",
    "report.svg": "test_leaderboard_snapshot.svg",
    "editor-80x24.svg": "test_every_screen_at_80x24[question-editor].svg",
    "corpus-80x24.svg": "test_every_screen_at_80x24[corpus].svg",
    "agreement-80x24.svg": "test_every_screen_at_80x24[agreement].svg",
    "adjudication-80x24.svg": "test_every_screen_at_80x24[adjudication].svg",
    "run-answers-80x24.svg": "test_every_screen_at_80x24[run-answers].svg",
    "report-80x24.svg": "test_every_screen_at_80x24[report].svg",
}


def pages() -> dict[Path, str]:
    """{path: text} of every generated page."""
    from persian_tui.cli.reference import cli_markdown
    from persian_tui.tui.key_reference import keys_markdown

    return {DOCS / "reference" / "cli.md": cli_markdown(), DOCS / "reference" / "keys.md": keys_markdown()}


def snapshot(name: str) -> Path | None:
    found = sorted(p for p in (ROOT / "tests").rglob("*.svg") if p.name == name and "__snapshots__" in p.parts)
    return found[0] if found else None


def output_pages(seed_arg: str | None) -> tuple[dict[Path, str], list[str]]:
    """{path: text} of every page with marked outputs, regenerated; and what could not be (the
    seed's blocks without the seed)."""
    seed = doc_outputs.find_seed(seed_arg)
    texts = {p: p.read_text("utf-8") for p in doc_outputs.pages()}
    texts = {p: t for p, t in texts.items() if doc_outputs.marked(t)}
    made = doc_outputs.outputs(seed, set().union(*map(doc_outputs.marked, texts.values())))
    out, notes = {}, []
    for path, text in texts.items():
        new, unknown = doc_outputs.fill(text, made)
        if unknown:
            raise doc_outputs.OutputError(f"{path.relative_to(ROOT)}: no output named {', '.join(unknown)}")
        out[path] = new
    if seed is None:
        notes.append("the seed book was not found (--seed DIR, $PERSIAN_TUI_SEED or ../seed): its outputs "
                     "were left as they are, unchecked")
    return out, notes


def main(argv: list[str]) -> int:
    check = "--check" in argv
    seed_arg = argv[argv.index("--seed") + 1] if "--seed" in argv else None
    stale = []
    generated = pages()
    if "--no-outputs" not in argv:
        try:
            outputs, notes = output_pages(seed_arg)
        except doc_outputs.OutputError as e:
            print(f"error: {e}", file=sys.stderr)
            return 1
        generated.update(outputs)
        for note in notes:
            print(f"note: {note}", file=sys.stderr)
    for path, text in generated.items():
        if not path.is_file() or path.read_text("utf-8") != text:
            stale.append(path)
            if not check:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, "utf-8")
    for name, source in IMAGES.items():
        found, target = snapshot(source), DOCS / "images" / name
        if found is None:
            print(f"warning: no snapshot {source} under tests/; {target} left as it is", file=sys.stderr)
        elif not target.is_file() or target.read_bytes() != found.read_bytes():
            stale.append(target)
            if not check:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(found.read_bytes())
    for path in stale:
        print(f"{'out of date' if check else 'wrote'}: {path.relative_to(ROOT)}")
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
