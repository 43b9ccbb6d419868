"""The report screen's prose: what was compared on what, and how to read each tab's figures."""

from __future__ import annotations

from .figures import ALPHA

HOW_TO_READ = [
    "accuracy = correct / questions; an invalid answer (unparseable, ambiguous, empty, refusal, API error) "
    "counts as wrong and is also counted under `invalid`. `usable acc` = correct / usable answers (on "
    "the same questions). Chance is 25 %; the majority-key baseline (always answering the most common "
    "key) is the line a run must beat when the keys are unbalanced.",
    "Ranking (one rule, also the release's): accuracy on EVERY keyed question the run answered, with its "
    "Wilson 95 % interval; equal accuracies share a rank; `rank 95 %` is the run's rank confidence set and "
    "`rank 95 % (all runs)` the set that holds for all runs at once: 1 + the runs significantly above to R − "
    "the runs significantly below, by the exact paired tests below, Holm-corrected over the run's own pairs "
    "or over all pairs (no resampling: another seed does not move them). When the runs answered different "
    "questions they are ranked by whole-set accuracy on a common scale instead (said under the table). "
    "The `shared` columns are on the questions all the runs answered.",
    "Pairs: each pair on the questions BOTH runs answered with a single answer (`n`; a tied majority vote "
    "is left out); exact McNemar on those only one of the two got right; `Holm p` corrects within the "
    "family of this report's pairs that can reach significance (significant: Holm p < 0.05; a pair "
    "outside the family shows —). The difference interval is Tango's score interval, continuity-corrected "
    "by half a question (not adjusted for "
    "the number of pairs; † where it and McNemar p disagree about 0); --intervals simultaneous shows "
    "Bonferroni-adjusted intervals that hold for all pairs at once. `MDE` is the smallest difference the "
    "pair's questions detect with 80 % exact power of the exact test at 0.05 and, `MDE (Bonferroni)`, at "
    "0.05 / family size; `n for E` the questions needed to detect a difference of E (the same exact "
    "power, at the pair's discordance).",
    "Letters: a compact letter display of the Holm decisions. Runs sharing a letter were not found "
    "significantly different; that is not evidence that they are equal (see the MDE).",
]

_CELLS = "Each cell: the run's accuracy and correct/total on those questions; each header: how many questions."
BREAKDOWN_HELP = {
    "category": f"By the question's category. {_CELLS}",
    "source": f"By the source the question was imported from. {_CELLS}",
    "poet": f"By the question's poet (else its couplets' poets joined with +). {_CELLS}",
    "difficulty": ("By difficulty tier, from the share of these runs that solve the question: easy ≥ 70 %, "
                   f"medium 50–70 %, hard 30–50 %, very hard < 30 %. {_CELLS}"),
    "origin": ("By where the question came from: book (imported from the seed book), fresh (drawn from the "
               "corpus by `corpus propose` and vetted), authored (written in the editor or a file); shown only "
               f"when the questions have more than one. {_CELLS}"),
    **{f"key {w}": (f"By the {w} of the key couplet's corpus poem (persian-tui corpus link); "
                    f"(unlinked) when it has no link. {_CELLS}") for w in ("poet", "form", "metre")},
    **{f"question {w}": (f"By the {w} all four couplets share in the corpus; (mixed) when they "
                         f"differ, (unlinked) when one has no link. {_CELLS}") for w in ("poet", "form", "metre")},
}
SCOPES = {"all": "draft, ready and curated", "ready": "ready and curated", "curated": "curated only"}


def report_scope(questions: str) -> str:
    return f"{questions} ({SCOPES[questions]})" if questions in SCOPES else questions


def leader_note(report) -> str:
    """What the runs are ranked on, and how to read the intervals."""
    runs = len(report.run_ids)
    text = (f"Ranked by accuracy on every keyed question each run answered (of {report.keyed} keyed in set "
            f"{report_scope(report.question_set)}); equal accuracies share a rank. Wilson 95 %: the run's "
            f"true accuracy is likely inside; rank 95 %: the ranks it can hold (from the exact paired tests, "
            f"Holm-corrected over its own pairs); letters shared: not found different, not "
            f"shown equal. Usable acc: right of the usable answers; invalid: unusable answers, on the same questions.")
    b = report.baseline
    if b is not None and b.share is not None:
        text += (f" Always answering key {b.label} scores {100 * b.share:.1f} % (the majority-key baseline, "
                 "red line); chance is 25 % (grey line).")
    most = max(report.answered.values(), default=0)
    short = [r for r in report.run_ids if report.answered.get(r, 0) < most]
    if short and runs > 1:
        names = ", ".join(f"#{r} ({report.answered.get(r, 0)})" for r in short[:6])
        text += (f" {len(short)} run(s) answered fewer than {most}: {names}{' …' if len(short) > 6 else ''}; "
                 f"'shared' is on the {report.questions} question(s) all runs answered; x on a run leaves it out.")
    if note := scale_note(report):
        text += " " + note
    text += " Overlapping intervals do not mean equal runs: tab 2 tests each pair on the questions both answered."
    if ties := ties_note(report):
        text += " " + ties
    return text


def scale_note(report) -> str | None:
    """Why the runs are ranked on the common scale, and the model's fit; None when they answered
    the same questions (ranked by accuracy)."""
    if report.ranked_by != "whole set" or report.scale_model is None:
        return None
    model = {"rasch": "Rasch", "2pl": "two-parameter logistic (2PL)"}[report.scale_model]
    text = (f"The runs answered different questions, so accuracies are not comparable: runs are ranked by "
            f"their whole-set accuracy, what each would have scored on all {report.keyed} keyed questions, "
            f"on one scale from a {model} model fitted to every run's answers (chosen by BIC; "
            f"docs/methods.md, \"Common scale\"), with its 95 % prediction interval and the run's ability "
            f"(logits, 95 %). Rank sets are on the same figure.")
    if report.moved:
        text += (" Moved below the figure's order by a significant paired test: "
                 + ", ".join(f"#{r}" for r in report.moved) + ".")
    if report.misfit:
        shown = ", ".join(report.misfit[:10]) + (" …" if len(report.misfit) > 10 else "")
        text += f" {len(report.misfit)} question(s) misfit the model (outfit, Holm p < 0.05): {shown}."
    else:
        text += " No question misfits the model (outfit, Holm p < 0.05)."
    return text


def ties_note(report) -> str | None:
    """The runs whose majority vote tied somewhere, and how ties are scored; None without ties."""
    tied = [f"#{r.run_id}: {r.ties}" for r in report.leaderboard if r.ties]
    if not tied:
        return None
    return ("Tied majority votes (" + ", ".join(tied) + "): credited 1/t when the key is one of the t "
            "tied options (the expected score of a random tie-break, never the answer given first), "
            "and left out of the pair tests, position counts and item analysis, which need one answer: "
            "the leaderboard's accuracy and a pair's test rest on different questions (the pair's n says "
            "how many it kept).")


def family_note(report) -> str:
    """What the Holm correction was over (the runs of this report, Tarone's restriction)."""
    return "" if report.family is None else report.family.sentence


def letters_note(report) -> str:
    """The compact letter display in one line, worded so as not to claim equality."""
    from .pairs import run_letters

    named = run_letters([r.run_id for r in report.leaderboard], report.groups)
    shown = "  ".join(f"#{r} {named[r]}" for r in named)
    return (f"letters (compact letter display of the Holm decisions): {shown}. Runs sharing a letter were not "
            f"found significantly different at {ALPHA}; that is not evidence that they are equal.")


def pairs_note(report, pairs: int, differ: int) -> str:
    """How to read the paired comparisons."""
    size = report.family.size if report.family is not None else pairs
    return (f"Each pair on the n questions both runs answered with one answer, A ranked above B. Only A / "
            f"only B: questions just one of them got right; exact McNemar p on those, Holm-corrected within "
            f"the family of {size} of the {pairs} comparison(s) that can reach significance (— outside it). "
            f"A − B: accuracy difference in points on those n questions, with Tango's continuity-corrected "
            f"score 95 % interval "
            f"(not adjusted for the comparisons: Holm p decides; † where it and McNemar p disagree about 0); "
            f"MDE: the smallest difference these questions detect with {100 * report.power:.0f} % exact "
            f"power at {ALPHA}, MDE (Bonferroni) at {ALPHA} / {size}. {differ} pair(s) differ "
            f"(Holm p < {ALPHA})."
            + (" A run's tied majority votes have no single answer: n leaves those questions out."
               if any(r.ties for r in report.leaderboard) else ""))


def cluster_text(report) -> str:
    """Clustered standard errors, one line per run: the unit, the SE and the design effect."""
    if not report.clusters:
        return ""
    units = list(dict.fromkeys(c.unit for c in report.clusters))
    lines = [("Standard error of each accuracy clustered by " + ", ".join(units) + " (design effect "
              "(SE / SE unclustered)², beside its range with the unit labels shuffled, i.e. without "
              "clustering; above noise: its permutation p, Holm-corrected over the runs, below 0.05, and "
              "the Wilson interval likely too narrow by about its square root)"
              + ("" if "poem" in units else "; no corpus links, so no poem or poet clusters") + ":")]
    by_run: dict[int, list] = {}
    for c in report.clusters:
        by_run.setdefault(c.run_id, []).append(c)
    for run_id, rows in by_run.items():
        cells = [f"{c.unit}: {c.clusters} cluster(s), no clustered SE" if c.se is None else
                 f"{c.unit} {100 * c.se:.1f} pt ({c.clusters} clusters, deff "
                 f"{'—' if c.design_effect is None else f'{c.design_effect:.2f}'}"
                 + ("" if c.null_low is None else f", shuffled {c.null_low:.2f}–{c.null_high:.2f}: {c.reading}")
                 + ")" for c in rows]
        se0 = rows[0].se_unclustered
        lines.append(f"  #{run_id}: unclustered {'—' if se0 is None else f'{100 * se0:.1f} pt'}; " + "; ".join(cells))
    return "\n".join(lines)


GROUPS_TITLE = (f"Letters (compact letter display of the Holm decisions): runs sharing a letter were not "
                f"found different at {ALPHA} — not evidence that they are equal")


def no_shared_message(report, questions: str, excluded: set[int]) -> str:
    """Why there is nothing to compare, and what to press."""
    runs = len(report.run_ids)
    if not report.keyed:
        return (f"The question set {report_scope(questions)} has no question with a key, so no run "
                "can be scored on it.\n\nc switches the question set"
                + (", a brings back the runs left out" if excluded else "")
                + "; keys are set when authoring (n / e on the bank).")
    return (f"These {runs} runs share no question: of the {report.keyed} keyed question(s) in the set "
            f"{report_scope(questions)}, none was answered by every run, so they cannot be compared "
            "on the same questions.\n\nx leaves the highlighted run out"
            + (", a brings back the runs left out" if excluded else "")
            + ", c switches the question set. How many keyed questions each run answered:")
