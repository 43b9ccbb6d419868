"""Pure layout for the review screen: queue entries, the question-and-answer pane and the
judge pane (``render.Line``s for a width and a resolved bidi mode)."""

from __future__ import annotations

import re

from ... import bidi, display
from ...bidi import Mode
from ...models import ErrorCategory, JudgmentRow, Prediction, Question
from ..render import GUTTER, LABEL, Line, couplet_lines, fa
from ..screens.run_detail import clip_text, field_lines, mixed_lines

VERDICT_STYLE = {"sound": "bold $text-success", "flawed": "bold $text-error",
                 "key_problem": "bold $text-warning"}
KEYS_HINT = "y/Enter accept · 1 sound · 2 flawed · 3 key problem · f flag · n note · u undo"


def verdict_text(verdict: str | None) -> str:
    return verdict.replace("_", " ") if verdict else "—"


def category_text(name: str | None, cats: dict[str, ErrorCategory]) -> str:
    if not name:
        return "—"
    c = cats.get(name)
    return c.label_en if c else name


def review_state(j: JudgmentRow) -> str:
    """accepted / overridden / flagged / to review (LTR words)."""
    if j.reviewed:
        same = j.review_verdict == j.verdict and j.review_category == j.error_category
        return "accepted" if same else "overridden"
    return "flagged" if j.flagged else "to review"


MARKS = {"accepted": "✓", "overridden": "≠", "flagged": "⚑", "to review": "○"}


def queue_entry(j: JudgmentRow, cats: dict[str, ErrorCategory], model: str, uid_width: int,
                model_width: int, name: str | None = None) -> str:
    """One queue line: mark, the question (``name``: display.question_id; its uid without),
    judged model (or its blind alias), judge's verdict and category, then the review in force."""
    state = review_state(j)
    judge = verdict_text(j.verdict) if j.verdict else j.status.replace("_", " ")
    if j.verdict == "flawed":
        judge += " · " + category_text(j.error_category, cats)
    text = f"{MARKS[state]} {name or j.uid:<{uid_width}}  {model:<{model_width}}  {judge:<34}"
    if state == "overridden":
        text += "→ " + verdict_text(j.review_verdict)
        if j.review_verdict == "flawed":
            text += " · " + category_text(j.review_category, cats)
    elif state == "accepted":
        text += "accepted"
    if j.reviewed and j.flagged:
        text += " ⚑"
    if j.review_note:
        text += " ✎"
    return text.rstrip()


def _rtl_field(label: str, value: str, width: int, mode: Mode, style: str = "") -> list[Line]:
    lines = bidi.display_lines(value, max(width - LABEL, 1), mode, align="none")
    return [Line(t, style, label if i == 0 else " ") for i, t in enumerate(lines)]


_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")


def readable(reply: str | None) -> str | None:
    """A judge's reply as a reader reads it: the JSON escapes of its letters (`\\u0622`) shown
    as the letters; escapes of control characters and surrogates are left as they are."""
    if reply is None:
        return None

    def letter(m: re.Match[str]) -> str:
        code = int(m[1], 16)
        return m[0] if code < 0x20 or 0x7F <= code < 0xA0 or 0xD800 <= code < 0xE000 else chr(code)

    return _ESCAPE.sub(letter, reply)


def _block(title: str, text: str | None, width: int, mode: Mode, style: str = "") -> list[Line]:
    out = [Line(""), Line("", "", title)]
    if text:
        return out + [Line(t, style) for t in mixed_lines(clip_text(text), width, mode)]
    return out + [Line("(none)" if text is None else "(empty)", "dim")]


def question_lines(j: JudgmentRow, q: Question | None, p: Prediction | None, model: str,
                   width: int, mode: Mode, blind: bool = False) -> list[Line]:
    """The question with the key and the model's choice marked, then the model's raw output
    and reasoning. Blind: the run's id is left out too (the runs list would name the model)."""
    width = max(width, 20)
    name = display.question_id(j.uid, q.source_id if q else None)
    head = f"{name}  ·  {model}" + ("" if blind else f"  ·  run {j.target_run}")
    if j.sample:  # the run asked each question several times: which reply was judged
        head += f"  ·  sample {j.sample}"
    out = [Line(head, "dim")]
    if q is None:
        return out + [Line("the question is no longer in the bank", "$text-warning")]
    chosen = p.predicted if p else None
    if q.stem:
        out += [Line(t, "bold") for t in bidi.display_lines(q.stem, width, mode)]
    perm = p.permutation if p and p.permutation and list(p.permutation) != sorted(p.permutation) else None
    shown = {orig: i for i, orig in enumerate(perm, 1)} if perm else {}
    for o in sorted(q.options, key=lambda o: o.position):
        out.append(Line(""))
        out += couplet_lines(o.position, o.mesra1, o.mesra2, width, mode, poet=o.poet,
                             is_key=q.key == o.position)
        marks, style = [], ""
        if o.position == q.key:
            marks, style = ["key"], "$text-success"
        if o.position == chosen:
            right = chosen == q.key
            marks.append("model's choice " + ("✓" if right else "✗" if q.key else ""))
            style = "bold $text-success" if right else "bold $text-error"
        if o.position in shown:
            marks.append(f"shown as {shown[o.position]}")
        if marks:
            pad = "" if mode.name == "app" else " " * GUTTER
            text = "◆ " + " · ".join(m.strip() for m in marks)
            out += [Line(pad + t, style) for t in bidi.display_lines(text, max(width - GUTTER, 1), mode)]
    out += [Line(""), Line("─" * width, "dim")]
    if p is None:
        return out + [Line("no prediction for this judgment", "$text-warning")]
    right = chosen is not None and chosen == q.key
    out += field_lines("choice", fa(chosen) if chosen else f"none ({p.parse_status})", width,
                  "bold $text-success" if right else "bold $text-error")
    out += field_lines("key", fa(q.key) if q.key else "none", width)
    if p.parse_status != "ok":
        out += field_lines("parse", p.parse_status, width)
    if q.explanation:
        out += [Line(""), Line("", "", "explanation")]
        out += [Line(t) for t in bidi.display_lines(q.explanation, width, mode)]
    if p.error:
        out += _block("error", p.error, width, mode, "$text-error")
    out += _block("raw output", p.raw_output, width, mode)
    out += _block("reasoning", p.reasoning, width, mode)
    return out


def _category_lines(name: str | None, cats: dict[str, ErrorCategory], width: int, mode: Mode,
                    style: str = "") -> list[Line]:
    if not name:
        return field_lines("category", "—", width)
    c = cats.get(name)
    if c is None:
        return field_lines("category", f"{name} (not in the taxonomy)", width, style)
    out = field_lines("category", c.label_en, width, style)
    out += _rtl_field(" ", c.label_fa, width, mode, style)
    if c.description_en:
        out += field_lines(" ", c.description_en, width, "dim")
    return out


def judge_lines(j: JudgmentRow, cats: dict[str, ErrorCategory], judge_model: str | None,
                width: int, mode: Mode) -> list[Line]:
    """The judge's verdict, category and rationale, then the review in force beside it."""
    width = max(width, 20)
    out = [Line(f"judge  ·  run {j.run_id}" + (f"  ·  {judge_model}" if judge_model else ""), "bold")]
    if j.verdict is None:
        why = "unscored (its reply could not be parsed)" if j.status == "unscored" else j.status
        out += field_lines("verdict", why, width, "bold $text-warning")
        if j.error:
            out += _block("error", j.error, width, mode, "$text-error")
        out += _block("judge's reply", readable(j.raw_reply), width, mode)
        out += [Line(""), Line("No verdict to accept: press 1, 2 or 3 to give one.", "$text-warning")]
    else:
        out += field_lines("verdict", verdict_text(j.verdict), width, VERDICT_STYLE.get(j.verdict, ""))
        out += _category_lines(j.error_category, cats, width, mode)
        out += _block("rationale", j.rationale, width, mode)
    out += [Line(""), Line("─" * width, "dim")]
    state = review_state(j)
    out.append(Line("review", "bold"))
    if j.reviewed:
        out += field_lines("state", f"{state} by {j.reviewer}", width,
                      "$text-success" if state == "accepted" else "$text-warning")
        out += field_lines("verdict", verdict_text(j.review_verdict), width,
                           VERDICT_STYLE.get(j.review_verdict or "", ""))
        out += _category_lines(j.review_category, cats, width, mode)
    else:
        out += field_lines("state", "not reviewed yet" if not j.flagged else "no verdict yet", width, "dim")
    if j.flagged:
        out += field_lines("flag", "⚑ sent to adjudication as a key problem", width, "$text-error")
    if j.review_note:
        out += [Line(""), Line("", "", "note")]
        out += [Line(t) for t in mixed_lines(j.review_note, width, mode)]
    if j.verdict == "key_problem" and not j.flagged:
        hint = "The judge sees a key problem: y (accept), 3 or f sends the question to adjudication."
        out += [Line(""), *[Line(t, "$text-warning") for t in bidi.wrap(hint, width)]]
    out += [Line(""), *[Line(t, "dim") for t in bidi.wrap(KEYS_HINT, width)]]
    return out
