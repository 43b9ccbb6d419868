"""The outputs the README and the docs show, made by running the current code (scripts/gen_docs.py
writes them into the pages; tests/project/test_docs.py checks them).

A page marks a generated block with a comment on the line before its fence, and a generated figure
in its prose with a pair of comments around it:

    <!-- out:NAME -->            the fenced block after it is output NAME
    <!-- out:NAME -->TEXT<!-- /out -->   TEXT is figure NAME

Outputs come from real runs in a new folder: the bundled sample bank always, the seed benchmark's
book when its files are found (names starting `seed-`; --seed DIR, $PERSIAN_TUI_SEED, or ../seed
beside the project as the Quickstart clones it). Without the seed those blocks are kept as they are
and said not to be checked. Tables are cut to the columns a page shows by their header names, from
the table the command printed, so a new or reordered column changes the page on the next run and a
removed one stops the script naming it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_DATA = ROOT / "persian_tui" / "data"
SEED_SHOWN = "../seed/exp-6"  # where the Quickstart clones the seed, as the pages show it
BOOK = "data/gherabat-book/questions-outliers.json"
KEYS = "data/gherabat-book/answer_keys.json"
ANSWERS = "benchmark/experiment-answers.csv"
MARK = re.compile(r"<!-- out:([a-z0-9-]+) -->(?:\n(```[a-z]*\n)(.*?)(```)|(.*?)<!-- /out -->)", re.S)
LEADERBOARD = ["#", "run", "model", "kind", "accuracy", "correct", "Wilson 95 %", "rank 95 %", "letters"]
PAIRS = ["a", "b", "n", "only a right", "only b right", "McNemar p", "Holm p", "diff", "diff 95 % (Tango)", "MDE"]


class OutputError(Exception):
    """A page asks for an output the current code no longer prints (a column, a section)."""


def find_seed(explicit: str | None = None) -> Path | None:
    """The seed benchmark's exp-6 folder, or None when its book is not on this machine."""
    env = os.environ.get("PERSIAN_TUI_SEED")
    for base in [explicit, env, str(ROOT.parent / "seed"), str(ROOT.parent / "shared" / "seed-data")]:
        if not base:
            continue
        for folder in (Path(base), Path(base) / "exp-6"):
            if all((folder / name).is_file() for name in (BOOK, KEYS, ANSWERS)):
                return folder.resolve()
    return None


class Folder:
    """A new working folder where commands run as a user types them, their output cleaned of this
    machine's paths."""

    def __init__(self, where: Path, seed: Path | None = None) -> None:
        self.where, self.seed = where, seed
        (where / "db").mkdir(parents=True)

    def run(self, *args: str, stderr: bool = False) -> str:
        done = subprocess.run([sys.executable, "-m", "persian_tui.cli", *args], cwd=self.where,
                              capture_output=True, text=True, timeout=600,
                              env={**os.environ, "COLUMNS": "200", "PERSIAN_TUI_DB": ""})
        if done.returncode:
            raise OutputError(f"persian-tui {' '.join(args)} failed: {done.stderr.strip()[-500:]}")
        return self.clean(done.stdout + (done.stderr if stderr else ""))

    def clean(self, text: str) -> str:
        text = text.replace(str(PACKAGE_DATA), ".../persian_tui/data").replace(str(self.where) + "/", "")
        if self.seed:
            text = text.replace(str(self.seed), SEED_SHOWN)
        return text

    def open_app(self, db: str) -> None:
        """Open the TUI on db and close it, as a user who starts with python app.py does."""
        code = ("import asyncio, sys\nfrom persian_tui.tui import make_app\n"
                "async def main():\n    app = make_app(sys.argv[1], 'app', sample=True, warm_up=False)\n"
                "    async with app.run_test() as pilot:\n        await pilot.pause()\nasyncio.run(main())\n")
        subprocess.run([sys.executable, "-c", code, db], cwd=self.where, check=True, timeout=600,
                       capture_output=True)


def section(report: str, title: str) -> list[str]:
    """The lines of the report's section `== title...`, up to the next section."""
    lines = report.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith(f"== {title}")]
    if not starts:
        raise OutputError(f"the report has no section {title!r}")
    out = []
    for line in lines[starts[0] + 1:]:
        if line.startswith("== "):
            break
        out.append(line)
    while out and not out[-1].strip():
        out.pop()
    return out


def table(lines: list[str], columns: Iterable[str] | None = None, rows: int | None = None,
          after: int = 0) -> tuple[list[str], int]:
    """The first text table in lines (a header over a line of dashes), cut to the named columns
    (all when None) and its first `rows` rows, laid out as the report lays it; and how many columns
    it has."""
    i = next((k for k in range(1, len(lines)) if lines[k].startswith("-") and set(lines[k]) <= {"-", " "}), None)
    if i is None:
        raise OutputError("no table where one was expected")
    header, dashes = lines[i - 1], lines[i]
    spans = [(m.start(), m.end()) for m in re.finditer(r"-+", dashes)]
    bounds = [s for s, _ in spans] + [10**6]
    body = []
    for line in lines[i + 1:]:
        if not line.strip() or any(line[s - 2:s].strip() for s, _ in spans[1:3] if len(line) > s):
            break
        body.append(line)
    cells = [[line[bounds[k]:bounds[k + 1]] for k in range(len(spans))] for line in [header, *body]]
    names = [c.strip() for c in cells[0]]
    wanted = names if columns is None else list(columns)
    missing = [c for c in wanted if c not in names]
    if missing:
        raise OutputError(f"column(s) {missing} not in the table (its columns: {names})")
    picked = [names.index(c) for c in wanted]
    right = {k: any(r[k][:1] == " " and r[k].strip() for r in cells) for k in picked}
    width = {k: max(len(r[k].strip()) for r in cells) for k in picked}
    keep = cells[0:1] + cells[1:][:rows] if rows is not None else cells

    def line(row: list[str]) -> str:
        return "  ".join(row[k].strip().rjust(width[k]) if right[k] else row[k].strip().ljust(width[k])
                         for k in picked).rstrip()

    out = [line(keep[0]), "  ".join("-" * width[k] for k in picked), *(line(r) for r in keep[1:])]
    if rows is not None and len(cells) - 1 > rows:
        out.append("...")
    return out, len(names)


def _figure(value: float, digits: int = 1) -> str:
    return f"{value:.{digits}f}"


def sample_outputs(where: Path) -> dict[str, str]:
    """The sample bank's outputs: `persian-tui sample` in a new folder and after the TUI seeded the
    bank, the TF-IDF run and its leaderboard."""
    first = Folder(where / "first")
    out = {"sample-fresh": first.run("sample")}
    app = Folder(where / "app")
    app.open_app("db/persian_tui.db")
    out["sample-after-app"] = app.run("sample")
    run = app.run("run", "embed", "--model", "tfidf")
    report = app.run("report")
    board, n = table(section(report, "Leaderboard"), LEADERBOARD)
    out["sample-run-report"] = run + "== Leaderboard\n" + "\n".join(board) + "\n"
    out["sample-report-columns"] = str(n)
    return out


def seed_outputs(where: Path, seed: Path) -> dict[str, str]:
    """The seed book's outputs: the Quickstart's import, the answers, the TF-IDF run and the
    reports of the README, the Quickstart and the reports guide, and the figures their prose gives."""
    book = Folder(where / "book", seed)
    db = ["--db", "db/book.db"]
    imported = book.run(*db, "import", str(seed / BOOK), "--answers", str(seed / KEYS), "--skip-invalid")
    lines = imported.splitlines()
    out = {"seed-import": "\n".join(lines[:3] + ["..."] + lines[-1:]) + "\n"}
    out["seed-import-rejected"] = str(sum(line.startswith("rejected:") for line in lines))
    out["seed-predictions"] = (book.run(*db, "import-predictions", str(seed / ANSWERS))
                               + book.run(*db, "run", "embed", "--model", "tfidf"))
    four = book.run(*db, "report", "--runs", "2,12,18,32")
    board, n = table(section(four, "Leaderboard"), LEADERBOARD)
    out["seed-leaderboard"] = "\n".join(board) + "\n"
    out["seed-report-columns"] = str(n)
    pairs, _ = table(section(four, "Paired comparisons"), PAIRS, rows=2)
    out.update(_pair_figures(book, db, "2,12,18,32", "seed-four"))
    out["seed-leaderboard-pairs"] = "\n".join(["== Leaderboard", *board, "", "== Paired comparisons", *pairs]) + "\n"
    out.update(_guide_example(book, db))
    out.update(_all_runs(book, db))
    return out


def _guide_example(book: Folder, db: list[str]) -> dict[str, str]:
    """docs/guide/reports.md's example, `report --runs 2,12,13,5`, and the figures its prose reads."""
    text = book.run(*db, "report", "--runs", "2,12,13,5")
    parts = [section(text, "Evaluation report")[0], ""]
    for title, columns, rows in [("Leaderboard", LEADERBOARD + ["usable acc", "invalid"], None),
                                 ("Paired comparisons", PAIRS + ["MDE (Bonferroni)"], 3),
                                 ("Clustered standard errors", None, 1),
                                 ("Position bias", None, None)]:
        lines = section(text, title)
        head = next(line for line in text.splitlines() if line.startswith(f"== {title}"))
        parts += [head, *table(lines, columns, rows)[0], ""]
    out = {"seed-guide-example": "\n".join(parts).rstrip() + "\n"}
    report = _json(book, db, "2,12,13,5")
    out.update(_pair_figures(book, db, "2,12,13,5", "seed-guide", report))
    board = {r["run_id"]: r for r in report["leaderboard"]}
    mdes = [p["mde"] * 100 for p in report["pairs"] if p.get("mde") is not None]
    out["seed-guide-mde"] = f"{min(mdes):.0f}–{max(mdes):.0f}"
    out["seed-guide-ranks-13"] = _ranks(board[13])
    out["seed-guide-ranks-5"] = _ranks(board[5])
    return out


def _json(book: Folder, db: list[str], runs: str | None) -> dict:
    folder = book.where / f"json-{runs or 'all'}"
    book.run(*db, "report", *(["--runs", runs] if runs else []), "--format", "json", "-o", str(folder))
    return json.loads((folder / "report.json").read_text("utf-8"))


def _pair_figures(book: Folder, db: list[str], runs: str, prefix: str, report: dict | None = None) -> dict[str, str]:
    """Gemini 2.5 Pro (#2) against GPT-5 mini (#12) in the report on runs, and its baseline."""
    report = report or _json(book, db, runs)
    pair = next(p for p in report["pairs"] if {p["a"], p["b"]} == {2, 12})
    base = report["baseline"]
    return {f"{prefix}-diff": _figure(abs(pair["diff"]) * 100), f"{prefix}-holm": f"{pair['p_holm']:.2f}",
            f"{prefix}-n": str(pair["n"]), f"{prefix}-baseline": _figure(base["share"] * 100),
            f"{prefix}-keys": "/".join(map(str, base["counts"]))}


def _ranks(row: dict) -> str:
    low, high = row["rank_low"], row["rank_high"]
    return f"rank {low}" if low == high else f"any rank from {low} to {high}"


def _all_runs(book: Folder, db: list[str]) -> dict[str, str]:
    """The figures of a report on every run of the book (runs, reported, pairs, letter a)."""
    report = _json(book, db, None)
    ranked = report["leaderboard"]
    return {"seed-all-reported": str(len(ranked)),
            "seed-all-runs": str(len(ranked) + len(report.get("left_out") or {})),
            "seed-all-pairs": str(len(report["pairs"])),
            "seed-all-letter-a": str(sum("a" in (r.get("letters") or "") for r in ranked))}


def outputs(seed: Path | None, wanted: set[str]) -> dict[str, str]:
    """Every output the pages ask for that can be made on this machine ({name: text})."""
    makers: list[tuple[str, Callable[[Path], dict[str, str]]]] = [("sample-", sample_outputs)]
    if seed is not None:
        makers.append(("seed-", lambda where: seed_outputs(where, seed)))
    out: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="persian-tui-docs-") as tmp:
        for prefix, make in makers:
            if any(name.startswith(prefix) for name in wanted):
                where = Path(tmp) / prefix.rstrip("-")
                where.mkdir()
                out.update(make(where))
    return out


def fill(text: str, made: dict[str, str]) -> tuple[str, list[str]]:
    """The page with every marked output that was made put in; the names asked for that are not
    known to any maker."""
    unknown: list[str] = []

    def put(m: re.Match[str]) -> str:
        name = m[1]
        if name not in made:
            if not name.startswith("seed-"):
                unknown.append(name)
            return m[0]
        if m[2] is not None:
            return f"<!-- out:{name} -->\n{m[2]}{made[name]}{m[4]}"
        return f"<!-- out:{name} -->{made[name]}<!-- /out -->"

    return MARK.sub(put, text), unknown


def marked(text: str) -> set[str]:
    return {m[1] for m in MARK.finditer(text)}


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").rglob("*.md") if p.parent.name != "reference")]
