"""The report screen's prose: what was compared on what, and how to read each tab's figures."""

from __future__ import annotations

from ..eval.report import ALPHA

_CELLS = "Each cell: the run's accuracy and correct/total on those questions; each header: how many questions."
BREAKDOWN_HELP = {
    "category": f"By the question's category. {_CELLS}",
    "source": f"By the source the question was imported from. {_CELLS}",
    "poet": f"By the question's poet (else its couplets' poets joined with +). {_CELLS}",
    "difficulty": ("By difficulty tier, from the share of these runs that solve the question: easy ≥ 70 %, "
                   f"medium 50–70 %, hard 30–50 %, very hard < 30 %. {_CELLS}"),
    **{f"key {w}": (f"By the {w} of the key couplet's corpus poem (persian-tui corpus link); "
                    f"(unlinked) when it has no link. {_CELLS}") for w in ("poet", "form", "metre")},
    **{f"question {w}": (f"By the {w} all four couplets share in the corpus; (mixed) when they "
                         f"differ, (unlinked) when one has no link. {_CELLS}") for w in ("poet", "form", "metre")},
}
SCOPES = {"all": "draft, ready and curated", "ready": "ready and curated", "curated": "curated only"}


def report_scope(questions: str) -> str:
    return f"{questions} ({SCOPES[questions]})" if questions in SCOPES else questions


def leader_note(report) -> str:
    """How many questions the runs are compared on, and how to read the intervals."""
    runs = len(report.run_ids)
    every = "the run" if runs == 1 else f"all {runs} runs"
    text = (f"Ranked by 'all answered': accuracy on every keyed question the run answered. The other "
            f"columns compare on the {report.questions} question(s) with a key that {every} answered, of "
            f"{report.keyed} keyed in set {report_scope(report.question_set)}.")
    most = max(report.answered.values(), default=0)
    short = [r for r in report.run_ids if report.answered.get(r, 0) < most]
    if short and runs > 1:
        names = ", ".join(f"#{r} ({report.answered.get(r, 0)})" for r in short[:6])
        text += (f" {len(short)} run(s) answered fewer than {most} and limit the shared set: {names}"
                 f"{' …' if len(short) > 6 else ''}; x on a run leaves it out.")
    text += (f" Wilson and bootstrap ({report.n_boot} resamples of these questions, seed {report.seed}) "
             "are 95 % intervals: the run's true accuracy is likely inside. Overlapping intervals do not "
             "mean equal runs: tab 2 tests each pair on the same questions. Chance is 25 %.")
    return text


def pairs_note(report, pairs: int, differ: int) -> str:
    """How to read the paired comparisons."""
    return (f"Each pair on the same {report.questions} questions, A ranked above B. Only A / only B: "
            f"questions just one of them got right; exact McNemar p on those, Holm-corrected for the "
            f"{pairs} comparison(s). A − B: accuracy difference in points, with its paired bootstrap "
            f"95 % interval NOT adjusted for the comparisons (trust Holm p); MDE: the smallest "
            f"difference these questions detect with 80 % power. {differ} pair(s) differ (Holm p < {ALPHA}).")


GROUPS_TITLE = (f"Groups that cannot be told apart: from the top, each group's first run and every run "
                f"below it that it does not beat (Holm p ≥ {ALPHA})")


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
