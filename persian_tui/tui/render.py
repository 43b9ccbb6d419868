"""Pure text layout for the bank screen: table cells and the detail pane's lines.

No Textual here, so it is cheap to test: every function takes a ``bidi.Mode`` (a resolved
mode, "app", "terminal" or "off", and whether letters are joined) and a width in terminal
cells and returns display strings (see ``persian_tui.bidi``: "app" reorders and pads, the
other modes keep logical text).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from .. import bidi, display
from ..bidi import Mode
from ..models import OptionLink, Question, QuestionRow

FA_DIGITS = str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹")
GUTTER = 2  # cells on the right of a couplet (app mode) for its number: " ۱"
LABEL = 12  # width of the field names under the couplets


def fa(n: int | str | None) -> str:
    """Persian digits ("" for None). The one digit rule of every screen: an option number — a
    key, an answer, a vote, a couplet's number: it names a couplet of a Persian question, as the
    book prints it — is written with ``fa``; every other figure (a count, a target, an id, a time,
    a statistic) in Latin digits, as the tables, the reports and the CLI print them."""
    return "" if n is None else str(n).translate(FA_DIGITS)


@dataclass(frozen=True)
class Line:
    """One display line of the detail pane; styles are Textual style strings."""

    text: str
    style: str = ""
    label: str = ""  # an LTR field name printed (dim, padded to LABEL) before ``text``
    mark: tuple[int, int, str] | None = None  # (start, end, style) of a span of ``text``


# ------------------------------------------------------------------ table


def row_id(row: QuestionRow) -> str:
    """The question's one identifier (display.question_id: its uid, the source id beside it)."""
    return display.question_id(row.uid, row.source_id)


def couplet_cell(text: str, width: int, mode: Mode) -> str:
    """A table cell: one line of at most ``width`` cells (cut with "…")."""
    return bidi.display_line(text or "", max(width, 1), mode)


# ------------------------------------------------------------------ detail pane


def _rtl_block(text: str, width: int, mode: Mode, style: str = "") -> list[Line]:
    """Wrapped text; right-aligned and reordered in app mode, logical otherwise."""
    return [Line(t, style) for t in bidi.display_lines(text, max(width, 1), mode)]


def couplet_lines(number: int, mesra1: str, mesra2: str, width: int, mode: Mode,
                  *, poet: str | None = None, is_key: bool = False) -> list[Line]:
    """One couplet: hemistich 1, hemistich 2 below it, each right-aligned (app mode),
    with the couplet's Persian number on the right of its first line (the key's in green)."""
    num = fa(number)
    num_style = "bold $text-success" if is_key else "bold $text-accent"
    text_width = max(width - GUTTER, 1)
    first = bidi.display_lines(mesra1 or "", text_width, mode)
    second = bidi.display_lines(mesra2 or "", text_width, mode)
    by = bidi.display_lines(f"— {poet}", text_width, mode) if poet else []
    pad = " " * GUTTER
    if mode.name == "app":
        out = [Line(first[0] + " " + num, mark=(len(first[0]) + 1, len(first[0]) + 1 + len(num), num_style))]
        out += [Line(t + pad) for t in first[1:] + second]
        out += [Line(t + pad, "dim italic") for t in by]
    else:
        # logical order, unpadded: a bidi terminal puts the number on the right itself
        out = [Line(num + " " + first[0], mark=(0, len(num), num_style))]
        out += [Line(pad + t) for t in first[1:] + second]
        out += [Line(pad + t, "dim italic") for t in by]
    return out


def label_lines(label: str, value: str, width: int, mode: Mode) -> list[Line]:
    """``label  value``: the value wrapped to the space after the label (unpadded)."""
    lines = bidi.display_lines(value, max(width - LABEL, 1), mode, align="none")
    return [Line(t, "", label if i == 0 else " ") for i, t in enumerate(lines)]


DERIVED = " (گنجور)"  # marks a poet derived from the option's corpus link, not stored


def with_derived_poets(q: Question, links: dict[int, OptionLink]) -> Question:
    """A copy of ``q`` for display: options without a poet show their corpus link's poet,
    marked as derived (the stored question is not changed)."""
    options = []
    for o in q.options:
        link = links.get(o.position)
        if not o.poet and link is not None and link.status == "linked" and link.couplet is not None:
            o = dataclasses.replace(o, poet=link.couplet.poet + DERIVED)
        options.append(o)
    return dataclasses.replace(q, options=options)


def recall_value(recall: dict[int, tuple[int, int]]) -> str:
    """A question's couplets' recall: '1:2/3 2:0/3 models' (recalled / probed)."""
    return " ".join(f"{p}:{n}/{m}" for p, (n, m) in sorted(recall.items())) + " models"


def detail_lines(q: Question | None, width: int, mode: Mode, *, blind: bool = False,
                 recall: dict[int, tuple[int, int]] | None = None) -> list[Line]:
    """Everything the detail pane shows for ``q`` at ``width`` cells; ``blind``: nothing of its
    key (no key field, no key couplet marked, no explanation), for an annotator. ``recall``:
    each couplet's recall by the probed models (access.couplet_recall; never when blind)."""
    width = max(width, 8)
    if q is None:
        return [Line("no question selected", "dim")]
    out: list[Line] = [Line(display.question_id(q.uid, q.source_id), "dim")]
    if q.stem:
        out += _rtl_block(q.stem, width, mode, "bold")
    for o in sorted(q.options, key=lambda o: o.position):
        out.append(Line(""))
        out += couplet_lines(o.position, o.mesra1, o.mesra2, width, mode,
                             poet=o.poet, is_key=not blind and q.key == o.position)
    out.append(Line(""))
    out.append(Line("─" * width, "dim"))
    refs = [r.label() for r in q.references()]  # every source the question is known by
    poets = [q.poet] if q.poet else []
    poets += [p for p in dict.fromkeys(o.poet for o in q.options if o.poet) if p not in poets]
    # a poet both stored and derived from a link is one poet: named once, as stored
    named = {p for p in poets if not p.endswith(DERIVED)}
    poets = [p for p in poets if not p.endswith(DERIVED) or p.removesuffix(DERIVED) not in named]
    fields = [
        *([] if blind else [("key", fa(q.key) if q.key else "—")]),
        ("category", q.category or "—"),
        ("poet" if len(poets) < 2 else "poets", "، ".join(poets) or "—"),
        ("sources" if len(refs) > 1 else "source", "; ".join(refs) or "—"),
        *([] if blind else [("status", q.status)]),
        ("tags", "، ".join(q.tags) or "—"),
        ("author", q.author or "—"),
        ("updated", q.updated_at or "—"),
        *([("recall", recall_value(recall))] if recall and not blind else []),
    ]
    for label, value in fields:
        out += label_lines(label, value, width, mode)
    if q.explanation and not blind:
        out.append(Line(""))
        out.append(Line("", "", "explanation"))
        out += _rtl_block(q.explanation, width, mode)
    return out


def padded(label: str) -> str:
    """A field name in LABEL cells; a longer one keeps one space before its value."""
    return label.ljust(LABEL) if len(label) < LABEL else label + " "


def plain(lines: list[Line]) -> list[str]:
    """The lines as a user sees them (labels padded to LABEL cells)."""
    out = []
    for line in lines:
        if line.label:
            out.append(padded(line.label) + line.text if line.text else line.label)
        else:
            out.append(line.text)
    return out
