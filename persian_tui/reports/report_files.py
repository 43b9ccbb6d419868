"""The evaluation report (reports/figures.py) as text, Markdown and JSON, and every format's files
(`render_files`, `write_report`: its CSV files are report_csv.py's, its charts report_charts.py's).

Every output is deterministic: rows in the report's own order, floats rounded to 6
significant digits, charts drawn by matplotlib's Agg canvas at a fixed size and dpi with the
PNG metadata stripped. Files are written atomically (temporary file, fsync, rename)."""

from __future__ import annotations

import json
from collections.abc import Container
from dataclasses import asdict
from pathlib import Path

from ..display import MISSING, count, interval, p_value, percent, seconds
from ..files.outputs import write_atomic
from .csv_text import rounded as _g
from .figures import DIMENSIONS, Baseline, BreakdownRow, Report
from .memory_files import memory_text
from .notes import HOW_TO_READ, family_note, letters_note, scale_note, ties_note
from .report_charts import leaderboard_png, position_png
from .report_csv import render_csvs
from .sweep_costs import sweep_text

FORMATS = ("md", "csv", "json")
SWEEP_RIGHT = {3, 4, 5, 6, 7}  # the sweep's cost table: its figures


# ---------------------------------------------------------------- numbers


def _pct(x: float | None, digits: int = 1) -> str:
    return percent(_g(x), digits, " %")


_p = p_value


def _num(x) -> str:
    if x is None:
        return "—"
    if isinstance(x, float):
        return f"{x:.4g}"
    return f"{x:,}"


def _interval(low: float | None, high: float | None) -> str:
    return interval(low, high, " %")


def _round(obj):
    if isinstance(obj, float):
        return _g(obj)
    if isinstance(obj, dict):
        return {str(k): _round(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_round(v) for v in obj]
    return obj


def report_dict(report: Report) -> dict:
    """The whole report as JSON-ready data (floats rounded to 6 significant digits)."""
    d = asdict(report)
    if d.get("memory"):
        d["memory"].pop("probes")  # every probe and its reply: probes.csv (--format csv)
    for acc, obj in zip(d["human"], report.human):
        acc["accuracy"] = obj.accuracy
    d["limiting"] = report.limiting
    runs, matrix = report.agreement
    d["agreement"] = {"runs": runs, "matrix": matrix}
    d["confusion_columns"] = ["1", "2", "3", "4", "invalid"]
    from .item_files import item_dict

    d["items"] = [item_dict(r) for r in report.items]
    for run, obj in zip(d["samples"], report.samples):
        run["agreement_is"] = obj.agreement_label
    return _round(d)


def statement(report: Report) -> str:
    """The sentence saying what was compared on what."""
    n = len(report.run_ids)
    text = (f"{n} run(s) ranked on the keyed questions each answered and compared pair by pair on the "
            f"questions both answered; {report.questions} question(s) answered by all (the shared sections), "
            f"out of {report.keyed} with a key in the question set '{report.question_set}'")
    limit = report.limiting
    if limit and len(limit) == len(report.run_ids) and len({report.answered[r] for r in limit}) == 1:
        text += f" (every run answered {report.answered[limit[0]]} of them)"
    elif len(limit) > 6:
        counts = [report.answered[r] for r in limit]
        text += f" ({len(limit)} runs answered fewer: {min(counts)} to {max(counts)})"
    elif limit:
        text += f" (runs answering fewer: {', '.join(f'#{r} ({report.answered[r]})' for r in limit)})"
    text += f". Bootstrap: {report.n_boot} resamples, seed {report.seed}."
    if report.baseline and report.baseline.share is not None:
        text += " " + baseline_sentence(report.baseline)
    if report.dropped:
        text += (" Imported answers that matched no single question here were left out ("
                 + ", ".join(f"#{r}: {d} of {n}" for r, (d, n) in sorted(report.dropped.items()))
                 + "): those runs' accuracies are on fewer questions than the published table and can "
                 "differ from it.")
    if report.left_out:
        text += (" Left out: " + ", ".join(f"#{r} ({why})" for r, why in sorted(report.left_out.items()))
                 + "; name runs with --runs to include them.")
    return text


def baseline_sentence(b: Baseline) -> str:
    """The majority-key baseline, said once for every format."""
    return (f"Majority-key baseline: always answering {b.label} scores {_pct(b.share)} "
            f"({b.correct}/{b.total} keyed questions, Wilson {_interval(b.low, b.high)}; keys 1/2/3/4: "
            f"{'/'.join(map(str, b.counts))}); chance is 25 %.")


# ---------------------------------------------------------------- plain text (stdout)


def text_table(header: list[str], rows: list[list[str]], right: Container[int] = frozenset()) -> list[str]:
    """A plain-text table: columns padded to their widest cell, those in `right` right-aligned."""
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows)]

    def line(cells):
        return "  ".join(str(c).rjust(w) if i in right else str(c).ljust(w)
                         for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    return [line(header), line(["-" * w for w in widths])] + [line(r) for r in rows]


def _rank(r) -> str:
    return "—" if r.rank_low is None else f"{r.rank_low}–{r.rank_high}"


def _rank_all(r) -> str:
    return ("—" if r.rank_low_simultaneous is None else f"{r.rank_low_simultaneous}–{r.rank_high_simultaneous}"
)


def _leader_rows(report: Report) -> list[list[str]]:
    def row(r) -> list[str]:
        cells = [str(r.rank), f"#{r.run_id}", r.model, r.kind, _pct(r.answered_accuracy),
                 f"{count(r.answered_correct)}/{r.answered}", _interval(r.answered_low, r.answered_high), _rank(r),
                 _rank_all(r), r.letters or "—", _pct(r.usable_accuracy), str(r.invalid), _pct(r.key_baseline),
                 _pct(r.accuracy), f"{count(r.correct)}/{r.total}", _num(r.tokens_in), _num(r.tokens_out),
                 seconds(r.latency_mean), _num(r.cost)]
        if r.no_success:  # not one request succeeded: no accuracy to show, not 0.0 %
            for i in (4, 6, 7, 8, 10, 13):
                cells[i] = MISSING
        if report.ranked_by == "whole set":  # the figure the runs are ranked by, on the common scale
            ability = "—" if r.ability is None else (
                f"{r.ability:+.2f} ({r.ability_low:+.2f} to {r.ability_high:+.2f})")
            cells[7:7] = [_pct(r.whole_accuracy), _interval(r.whole_low, r.whole_high), ability]
        return cells
    return [row(r) for r in report.leaderboard]


def leader_header(report: Report) -> tuple[list[str], set[int]]:
    """The leaderboard's columns and those right-aligned (three more when ranked on the common scale)."""
    right = {0, 4, 5, 7, 8, 10, 11, 12, 13, 14, 15, 16, 17, 18}
    if report.ranked_by != "whole set":
        return LEADER_HEADER, right
    return (LEADER_HEADER[:7] + ["whole-set acc", "whole-set 95 %", "ability (95 %)"] + LEADER_HEADER[7:],
            {i if i < 7 else i + 3 for i in right} | {7, 8, 9})


LEADER_HEADER = ["#", "run", "model", "kind", "accuracy", "correct", "Wilson 95 %", "rank 95 %",
                 "rank 95 % (all runs)", "letters", "usable acc", "invalid", "key baseline", "shared acc",
                 "shared correct", "tokens in", "tokens out", "latency", "cost"]
INTERVALS = ("pair", "simultaneous")


def pair_header(intervals: str = "pair") -> list[str]:
    ci = "diff 95 % (Tango)" if intervals == "pair" else "diff 95 % (simultaneous)"
    return ["a", "b", "n", "only a right", "only b right", "McNemar p", "Holm p", "diff", ci, "MDE",
            "MDE (Bonferroni)", "n for E", "n for E (Bonferroni)"]


def _pt(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.1f} pt"


def _pair_cells(p, intervals: str = "pair") -> list[str]:
    mark = " *" if p.significant else ""
    lo, hi = ((p.diff_low, p.diff_high) if intervals == "pair"
              else (p.diff_low_simultaneous, p.diff_high_simultaneous))
    return [f"#{p.a}", f"#{p.b}", str(p.n), str(p.a_only), str(p.b_only), _p(p.p_exact), _p(p.p_holm) + mark,
            "—" if p.diff is None else f"{100 * p.diff:+.1f} pt",
            "—" if lo is None else f"{100 * lo:+.1f} … {100 * hi:+.1f}" + (" †" if p.disagree else ""),
            _pt(p.mde), _pt(p.mde_adjusted), _num(p.n_needed), _num(p.n_needed_adjusted)]


CLUSTER_HEADER = ["run", "unit", "questions", "clusters", "SE", "SE unclustered", "design effect",
                  "shuffled 95 %", "reading"]


def _cluster_rows(report: Report) -> list[list[str]]:
    return [[f"#{c.run_id}", c.unit, str(c.questions), str(c.clusters),
             "—" if c.se is None else f"{100 * c.se:.2f} pt",
             "—" if c.se_unclustered is None else f"{100 * c.se_unclustered:.2f} pt",
             "—" if c.design_effect is None else f"{c.design_effect:.2f}",
             "—" if c.null_low is None else f"{c.null_low:.2f}–{c.null_high:.2f}", c.reading or "—"]
            for c in report.clusters]


def cluster_note(report: Report) -> str:
    units = sorted({c.unit for c in report.clusters})
    text = ("Standard error of each run's accuracy (on the questions it is ranked on) clustered by "
            + ", ".join(units) + " (cluster-robust, statsmodels' small-sample correction), beside the "
            "unclustered SE; design effect = (SE / SE unclustered)^2. It is itself noisy: `shuffled 95 %` is "
            "the range it takes with the unit labels shuffled over the same questions (no clustering). "
            "Inside that range it is no evidence of clustering; `above noise` only where its permutation p, "
            "Holm-corrected over the runs read, is below 0.05 "
            "(one run of many beyond its range is what chance gives): then questions of one unit are "
            "likely not independent and the intervals above too narrow by about sqrt(design effect).")
    if "poem" not in units:
        text += " No corpus links: no poem or poet clusters (persian-tui corpus link adds them)."
    return text


POSITION_HEADER = ["run", "chosen 1/2/3/4", "keys 1/2/3/4", "chi2 vs uniform", "p vs uniform",
                   "chi2 vs keys", "p vs keys"]


def _position_rows(report: Report) -> list[list[str]]:
    def chi(x):
        return "—" if x is None else f"{x:.2f}"

    return [[f"#{p.run_id}", "/".join(map(str, p.chosen)), "/".join(map(str, p.keys)),
             chi(p.chi2_uniform), _p(p.p_uniform), chi(p.chi2), _p(p.p)] for p in report.position]


ITEMS_SHOWN = 20


def _items_text(report: Report, *, md: bool = False) -> list[str]:
    """The item-analysis section: the flag counts and the flagged questions, most serious first."""
    from .item_files import INDEPENDENCE_NOTE, TABLE_HEADER, flag_summary, item_table_rows

    if not report.items:
        return []
    flagged = [r for r in report.items if r.flags]
    title = "## Item analysis" if md else "== Item analysis (persian-tui items lists every question)"
    out = ["", title, ""] if md else ["", title]
    out.append(flag_summary(report.items) + ". p = share right, disc = rest-score point-biserial; "
               "all keyed questions, not only the shared ones. " + INDEPENDENCE_NOTE)
    if flagged:
        rows = item_table_rows(flagged[:ITEMS_SHOWN])
        out += [""] + (_md_table(TABLE_HEADER, rows) if md else
                       text_table(TABLE_HEADER, rows, right={2, 3, 4, 6, 7}))
        out += [""] + [f"{'- ' if md else ''}{r.uid} {f}: {r.evidence[f]}"
                       for r in flagged[:ITEMS_SHOWN] for f in r.flags]
        if len(flagged) > ITEMS_SHOWN:
            out.append(f"... and {len(flagged) - ITEMS_SHOWN} more flagged: persian-tui items")
    return out


def _samples_text(report: Report, *, md: bool = False) -> list[str]:
    """Runs asked each question several times: majority vote against the mean of the samples."""
    from .sample_files import SUMMARY_HEADER, answers_text, least_consistent, summary_rows

    if not report.samples:
        return []
    title = "## Repeated samples" if md else "== Repeated samples (persian-tui samples RUN lists every question)"
    out = ["", title, ""] if md else ["", title]
    out.append("These runs take part above with their majority vote. Majority acc: the majority's "
               "answer, a tie for the majority giving 1/t credit when the key is one of the t tied options "
               "(`ties` counts them; never decided by sample order), Wilson 95 %; mean acc: the share of "
               "samples right (one sample's expected accuracy), t 95 % over questions; majority − mean: "
               "the gain from voting with its paired t 95 % interval; agreement beside `chance`, the "
               "agreement of a uniform random answerer asked K times (E[max count]/K) whose replies are "
               "unusable as often as the run's (like for like: unusable replies count in both); on all "
               "keyed questions each run answered.")
    rows = summary_rows(report.samples)
    out += [""] + (_md_table(SUMMARY_HEADER, rows) if md else
                   text_table(SUMMARY_HEADER, rows, right=set(range(2, 14))))
    for r in report.samples:
        worst = least_consistent(r, 5)
        if worst:
            out.append("")
            out.append(f"#{r.run_id} least consistent: " + "; ".join(
                f"{i.uid} ({answers_text(i.answers)}, key {i.key})" for i in worst))
    return out


def _dimensions(report: Report) -> list[str]:
    """The breakdowns this report has (provenance ones only when the bank is linked)."""
    present = {b.dimension for b in report.breakdowns}
    return [d for d in DIMENSIONS if (d in present or d in DIMENSIONS[:4]) and d != "origin"]


def _origin_split(report: Report) -> tuple[list[str], list[list[str]]] | None:
    """Each run's accuracy by the questions' origin, when they have more than one (else None)."""
    if not any(b.dimension == "origin" for b in report.breakdowns):
        return None
    return _breakdown_pivot(report, "origin")


def _breakdown_pivot(report: Report, dim: str, *, summary: bool = False) -> tuple[list[str], list[list[str]]]:
    """value x run accuracy table; `summary`: mean, min and max over the runs instead."""
    runs = [r.run_id for r in report.leaderboard]
    cells: dict[str, dict[int, BreakdownRow]] = {}
    for b in report.breakdowns:
        if b.dimension == dim:
            cells.setdefault(b.value, {})[b.run_id] = b
    if summary:
        header = [dim, "questions", "mean", "min", "max"]
    else:
        header = [dim, "questions"] + [f"#{r}" for r in runs]
    rows = []
    for value, by_run in cells.items():
        accs = [by_run[r].accuracy for r in runs]
        shown = [sum(accs) / len(accs), min(accs), max(accs)] if summary else accs
        rows.append([value, str(by_run[runs[0]].total)] + [f"{100 * a:.0f} %" for a in shown])
    return header, rows


def render_text(report: Report, *, max_pairs: int = 28, intervals: str = "pair") -> str:
    """The report for a terminal: `persian-tui report --format table`."""
    out = ["== Evaluation report", statement(report), ""]
    if not report.questions:
        out.append("nothing to compare: " + ("no runs with predictions" if not report.run_ids else
                                               "the runs share no question with a key"))
        out += memory_text(report.memory, lambda h, r: text_table(h, r, right={4, 5, 6, 7, 8}))
        out += sweep_text(report.sweep, lambda h, r: text_table(h, r, right=SWEEP_RIGHT))
        return "\n".join(out) + "\n"
    out += ["How to read it:"] + [f"  - {line}" for line in HOW_TO_READ] + [""]
    header, right = leader_header(report)
    out += ["== Leaderboard"] + text_table(header, _leader_rows(report), right=right)
    if note := scale_note(report):
        out.append(note)
    out.append(letters_note(report))
    if note := ties_note(report):
        out.append(note)
    if split := _origin_split(report):
        out += ["", "== Leaderboard by origin (book: the seed book's questions; fresh: vetted corpus candidates; "
                "authored: written by people)"] + text_table(*split, right=set(range(1, len(split[0]))))
    if report.pairs:
        out += ["", "== Paired comparisons (each pair on the questions both answered; exact McNemar, "
                "Holm-corrected; * = significant at 0.05)", family_note(report)]
        pairs = report.pairs
        if len(pairs) > max_pairs:
            ranked = [r.run_id for r in report.leaderboard]
            neighbours = set(zip(ranked, ranked[1:]))
            pairs = [p for p in pairs if (p.a, p.b) in neighbours]
            out.append(f"neighbours on the leaderboard only; all {len(report.pairs)} pairs are in "
                       "--format md/csv/json")
        out += text_table(pair_header(intervals), [_pair_cells(p, intervals) for p in pairs],
                      right={2, 3, 4, 5, 6, 7, 9, 10, 11, 12})
    if report.clusters:
        out += ["", "== Clustered standard errors", cluster_note(report)]
        out += text_table(CLUSTER_HEADER, _cluster_rows(report), right={2, 3, 4, 5, 6, 7})
    if report.human:
        out += ["", "== Human baseline (annotators against the key, same questions)"]
        out += text_table(["annotator", "accuracy", "correct", "Wilson 95 %"],
                      [[a.annotator, _pct(a.accuracy), f"{a.correct}/{a.total}", _interval(a.low, a.high)]
                       for a in report.human], right={1, 2})
    for dim in _dimensions(report):
        header, rows = _breakdown_pivot(report, dim, summary=len(report.leaderboard) > 8)
        out += ["", f"== Accuracy by {dim}"] + text_table(header, rows, right=set(range(1, len(header))))
    out += ["", "== Position bias (chosen positions, original order; chi-square against a uniform "
            "choice and against the keys' distribution)"]
    out += text_table(POSITION_HEADER, _position_rows(report), right={3, 4, 5, 6})
    out += ["", f"== Hardest questions (of {report.questions}; solved by fewest runs)"]
    out += text_table(["question", "solved", "most common wrong answer"],
                  [[h.uid, f"{count(h.solved)}/{h.runs}",
                    "—" if h.common_wrong is None else f"{h.common_wrong} ({h.common_wrong_count} runs)"]
                   for h in report.hardest[:10]], right={1})
    out += _items_text(report)
    out += _samples_text(report)
    out += memory_text(report.memory, lambda h, r: text_table(h, r, right={4, 5, 6, 7, 8}))
    out += sweep_text(report.sweep, lambda h, r: text_table(h, r, right=SWEEP_RIGHT))
    out += ["", "Confusion matrices and the agreement matrix: --format md/csv/json."]
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- Markdown


def _md_table(header: list[str], rows: list[list[str]]) -> list[str]:
    def esc(c):
        return str(c).replace("|", "\\|")

    return (["| " + " | ".join(esc(h) for h in header) + " |", "|" + "---|" * len(header)]
            + ["| " + " | ".join(esc(c) for c in r) + " |" for r in rows])


def render_markdown(report: Report, intervals: str = "pair") -> str:
    out = ["# Evaluation report", "", statement(report), ""]
    if not report.questions:
        out.append("Nothing to compare: " + ("no runs with predictions." if not report.run_ids else
                                               "the runs share no question with a key."))
        out += memory_text(report.memory, _md_table, md=True)
        out += sweep_text(report.sweep, _md_table, md=True)
        return "\n".join(out) + "\n"
    out += ["How to read it:", ""] + [f"- {line}" for line in HOW_TO_READ] + [""]
    out += ["## Leaderboard", "", "![Leaderboard: accuracy on all answered with Wilson 95 % intervals, "
            "chance and the majority-key baseline](leaderboard.png)", ""]
    out += _md_table(leader_header(report)[0], _leader_rows(report)) + [""]
    if note := scale_note(report):
        out += [note, ""]
    out.append(letters_note(report))
    if note := ties_note(report):
        out += ["", note]
    if split := _origin_split(report):
        out += ["", "### Leaderboard by origin", "", "Each run's accuracy on the questions of each origin: book "
                "(the seed book's), fresh (vetted corpus candidates), authored (written by people).", ""]
        out += _md_table(*split)
    if report.pairs:
        out += ["", "## Paired comparisons", "",
                "Each pair on the questions both runs answered with a single answer (n). Exact McNemar, "
                "Holm-corrected within the family (* = significant at 0.05); diff = accuracy of a minus b on "
                "those questions "
                + ("with Tango's continuity-corrected score 95 % interval (per pair, not adjusted; † where it and "
                   "McNemar p "
                   "disagree about 0)." if intervals == "pair"
                   else "with Bonferroni-adjusted simultaneous 95 % intervals.")
                + " MDE at 0.05 and at the Bonferroni level 0.05 / family size (Holm's first step), from the "
                "exact power of the exact test, 80 % power.", "", family_note(report), ""]
        out += _md_table(pair_header(intervals), [_pair_cells(p, intervals) for p in report.pairs])
    if report.clusters:
        out += ["", "## Clustered standard errors", "", cluster_note(report), ""]
        out += _md_table(CLUSTER_HEADER, _cluster_rows(report))
    if report.human:
        out += ["", "## Human baseline", "", "Annotators' accuracy against the current key on the same "
                "questions (those each annotator answered).", ""]
        out += _md_table(["annotator", "accuracy", "correct", "Wilson 95 %"],
                         [[a.annotator, _pct(a.accuracy), f"{a.correct}/{a.total}", _interval(a.low, a.high)]
                          for a in report.human])
    out += ["", "## Breakdowns", "", "Accuracy per run (columns: run ids, as on the leaderboard). "
            "Difficulty from the share of these runs that solve a question: easy >= 70 %, medium "
            "50–70 %, hard 30–50 %, very hard < 30 %."]
    for dim in _dimensions(report):
        header, rows = _breakdown_pivot(report, dim)
        out += ["", f"### By {dim}", ""] + _md_table(header, rows)
    out += ["", "## Position bias", "", "![Chosen positions against the key](position.png)", "",
            "Valid answers per original option position, chi-square goodness of fit twice: against "
            "a uniform choice (a small p: the run prefers some positions, whatever the keys) and "
            "against the keys of the same questions (a small p: it picks some positions more often "
            "than the keys warrant, which also reflects its errors).", ""]
    out += _md_table(POSITION_HEADER, _position_rows(report))
    out += ["", "## Confusion (key × chosen)", ""]
    rows = []
    for run_id, matrix in report.confusion.items():
        rows += [[f"#{run_id}", str(k)] + [str(c) for c in row] for k, row in enumerate(matrix, 1)]
    out += _md_table(["run", "key", "chose 1", "chose 2", "chose 3", "chose 4", "invalid"], rows)
    runs, shares = report.agreement
    out += ["", "## Agreement between runs", "", "Share of the shared questions on which both runs "
            "chose the same option (diagonal: the run's share of valid answers).", ""]
    out += _md_table(["run"] + [f"#{r}" for r in runs],
                     [[f"#{r}"] + [f"{x:.2f}" for x in row] for r, row in zip(runs, shares)])
    out += _items_text(report, md=True)
    out += _samples_text(report, md=True)
    out += memory_text(report.memory, _md_table, md=True)
    out += ["", "## Hardest questions", ""]
    out += _md_table(["question", "solved", "most common wrong answer", "runs choosing it"],
                     [[h.uid, f"{count(h.solved)}/{h.runs}", "—" if h.common_wrong is None else str(h.common_wrong),
                       str(h.common_wrong_count)] for h in report.hardest])
    out += sweep_text(report.sweep, _md_table, md=True)
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- files


def render_files(report: Report, fmt: str, intervals: str = "pair") -> dict[str, bytes]:
    """file name -> bytes for one format: md (report.md + the PNG charts it embeds), csv (one
    CSV per table), json (report.json)."""
    if fmt == "json":
        text = json.dumps(report_dict(report), ensure_ascii=False, indent=2, allow_nan=False) + "\n"
        return {"report.json": text.encode("utf-8")}
    if fmt == "csv":
        from ..display import clean

        return {name: clean(text).encode("utf-8") for name, text in render_csvs(report).items()}
    if fmt == "md":
        from ..display import clean

        # no raw control from data (a model or category name) reaches the file: ESC, BEL, ... shown as pictures
        files = {"report.md": clean(render_markdown(report, intervals)).encode("utf-8")}
        if report.questions:
            files["leaderboard.png"] = leaderboard_png(report)
            files["position.png"] = position_png(report)
        return files
    raise ValueError(f"unknown report format {fmt!r}; choose {', '.join(FORMATS)}")


def write_report(report: Report, directory: str | Path, fmt: str, intervals: str = "pair") -> list[Path]:
    """Write one format's files into `directory` (created), each atomically; returns the paths."""
    directory = Path(directory)
    paths = []
    for name, data in render_files(report, fmt, intervals).items():
        write_atomic(directory / name, data)
        paths.append(directory / name)
    return paths
