"""The review queue's filters (pure): which judgments are in view, the values each filter
cycles through, and the filter bar's text. Blind mode shows no judged model's name."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, fields, replace
from typing import Any

from ...judging.verdicts import VERDICTS
from ...models import JudgmentRow, Run

SHOW = ("todo", "reviewed", "flagged", "all", "agreed", "overridden")
SHOW_LABELS = {"todo": "to review", "reviewed": "reviewed", "flagged": "flagged", "all": "all",
               "agreed": "reviewer agreed with the judge", "overridden": "reviewer overrode the judge"}
VERDICT_FILTERS = (*VERDICTS, "unscored")  # unscored: the judge gave no verdict (or an API error)
# filter field -> (key, bar label)
KEYS = {"judge_run": ("j", "judge"), "target_run": ("g", "judged"), "model": ("m", "model"),
        "verdict": ("v", "verdict"), "category": ("c", "category"), "show": ("a", "show")}


def final_category(j: JudgmentRow) -> str | None:
    """The category in force: the reviewer's where reviewed, else the judge's."""
    return j.review_category if j.reviewed else j.error_category


def agreed(j: JudgmentRow) -> bool:
    """Reviewed, and the reviewer's verdict (and, for a flawed answer, category) is the judge's."""
    return j.reviewed and j.review_verdict == j.verdict and (
        j.verdict != "flawed" or j.review_category == j.error_category)


def is_todo(j: JudgmentRow) -> bool:
    """Still waiting for a reviewer: no verdict in force and not sent to adjudication."""
    return not j.reviewed and not j.flagged


@dataclass(frozen=True)
class ReviewFilters:
    judge_run: int | None = None
    target_run: int | None = None
    model: str | None = None
    verdict: str | None = None  # one of VERDICT_FILTERS
    category: str | None = None  # the category in force (the reviewer's where reviewed)
    show: str = "todo"

    def in_scope(self, j: JudgmentRow) -> bool:
        """Every filter but ``show`` (the header's counts and kappa are over these rows)."""
        if self.judge_run is not None and j.run_id != self.judge_run:
            return False
        if self.target_run is not None and j.target_run != self.target_run:
            return False
        if self.model is not None and j.model != self.model:
            return False
        if self.verdict == "unscored":
            if j.verdict is not None:
                return False
        elif self.verdict is not None and j.verdict != self.verdict:
            return False
        return self.category is None or final_category(j) == self.category

    def keeps(self, j: JudgmentRow) -> bool:
        if not self.in_scope(j):
            return False
        return {"todo": is_todo(j), "reviewed": j.reviewed, "flagged": j.flagged, "agreed": agreed(j),
                "overridden": j.reviewed and not agreed(j)}.get(self.show, True)

    def choices(self, name: str, rows: list[JudgmentRow]) -> list[Any]:
        """What the filter ``name`` cycles through (None: no filter)."""
        if name == "show":
            return list(SHOW)
        if name == "verdict":
            return [None, *VERDICT_FILTERS]
        if name == "category":
            return [None, *sorted({c for j in rows if (c := final_category(j)) is not None})]
        attr = {"judge_run": "run_id", "target_run": "target_run", "model": "model"}[name]
        return [None, *sorted({getattr(j, attr) for j in rows if getattr(j, attr) is not None})]

    def cycled(self, name: str, rows: list[JudgmentRow], step: int = 1) -> ReviewFilters:
        values = self.choices(name, rows)
        current = getattr(self, name)
        i = values.index(current) if current in values else 0
        return replace(self, **{name: values[(i + step) % len(values)]})

    def saved(self, blind: bool) -> str:
        """These filters and blind mode as the setting that keeps them per reviewer (JSON)."""
        return json.dumps({**{f.name: getattr(self, f.name) for f in fields(self)}, "blind": blind})

    @classmethod
    def from_saved(cls, text: str | None) -> tuple[ReviewFilters, bool]:
        """(filters, blind) from ``saved``'s text; the defaults for a missing or bad one."""
        try:
            data = json.loads(text or "{}")
            known = {f.name: data[f.name] for f in fields(cls) if f.name in data}
            if known.get("show", "todo") not in SHOW:
                known.pop("show")
            return cls(**known), data.get("blind") is True
        except (ValueError, TypeError, AttributeError, KeyError):
            return cls(), False

    @property
    def active(self) -> list[str]:
        return [f.name for f in fields(self) if f.name != "show" and getattr(self, f.name) is not None]


def model_alias(model: str, rows: list[JudgmentRow]) -> str:
    """A blind name for a judged model: "model #2" (numbered in an order that does not
    follow the names)."""
    names = sorted({j.model for j in rows}, key=lambda m: hashlib.sha1(m.encode()).hexdigest())
    return f"model #{names.index(model) + 1}" if model in names else "model #?"


def run_label(run_id: int, runs: dict[int, Run], *, blind: bool = False,
              rows: list[JudgmentRow] | None = None) -> str:
    run = runs.get(run_id)
    if blind:  # the id would name the model (the runs list shows it)
        return f"run of {model_alias(run.model, rows)}" if run is not None and rows is not None else "a run"
    if run is None:
        return f"run {run_id}"
    return f"run {run_id} {run.model}"


def value_label(name: str, value: Any, rows: list[JudgmentRow], runs: dict[int, Run], blind: bool) -> str:
    if value is None:
        return "any" if name in ("verdict", "category") else "all"
    if name == "show":
        return SHOW_LABELS[value]
    if name == "judge_run":
        return run_label(value, runs)
    if name == "target_run":
        return run_label(value, runs, blind=blind, rows=rows)
    if name == "model":
        return model_alias(value, rows) if blind else value
    return str(value).replace("_", " ")  # verdict and category names read as words everywhere


def bar_parts(f: ReviewFilters, rows: list[JudgmentRow], runs: dict[int, Run],
              blind: bool) -> list[tuple[str, str, str, bool]]:
    """(key, label, value, active) for each filter, then blind mode."""
    out = []
    for name, (key, label) in KEYS.items():
        value = getattr(f, name)
        active = value is not None and (name != "show" or value != "todo")
        out.append((key, label, value_label(name, value, rows, runs, blind), active))
    out.append(("b", "blind", "on" if blind else "off", blind))
    return out
