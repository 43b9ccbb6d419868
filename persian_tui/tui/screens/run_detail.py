"""One run's predictions: a table (filter: all, wrong, invalid/errors) and, for the
highlighted row, the question's couplets with the prediction and key marked, the raw output,
the reasoning, the scores (embedding runs), the shown order (shuffled prompts) and the error."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.widgets import DataTable, Static

from ... import bidi
from ...bidi import Mode
from ...models import JudgmentRow, Prediction, Question, Run, SampleVote, scored_key
from ...store import Store, StoreError
from ..keys import Key, bindings, help_key
from ..messages import DetailLoaded  # noqa: F401 (re-exported)
from ..render import GUTTER, LABEL, Line, couplet_lines, fa
from ..widgets.run_panel import accuracy_text
from .rows_pane import RowsPaneScreen

LIVE_EVERY = 1.0  # seconds between checks for new predictions while the run is going
MAX_TEXT = 6000  # characters of raw output / reasoning shown
FILTERS = {"all": "all", "wrong": "wrong", "invalid": "invalid/errors"}


# ------------------------------------------------------------------ pure layout


def is_correct(p: Prediction, q: Question | None) -> bool | None:
    """None when the question is not scored (no key, or retired: models.scored_key)."""
    key = scored_key(q.key, q.status) if q else None
    return None if key is None else p.predicted == key


def keep(p: Prediction, q: Question | None, which: str) -> bool:
    if which == "wrong":
        return is_correct(p, q) is False
    if which == "invalid":
        return p.parse_status != "ok"
    return True


def margin(scores: list[float] | None) -> float | None:
    """How far the outlier (lowest score) is ahead of the next option."""
    if not scores or len(scores) < 2:
        return None
    low = sorted(scores)
    return low[1] - low[0]


def row_cells(run: Run, p: Prediction, q: Question | None) -> list[str]:
    ok = is_correct(p, q)
    cells = [p.uid, str(p.predicted or "—"), str(q.key if q and q.key else "—"),
             "·" if ok is None else "✓" if ok else "✗", p.parse_status]
    if run.kind == "embedding":
        m = margin(p.scores)
        return cells + ["—" if m is None else f"{m:.4f}"]
    tokens = "—"  # in/out; a side the source did not give shows "—" (never "None")
    if p.tokens_in is not None or p.tokens_out is not None:
        tokens = "/".join("—" if t is None else str(t) for t in (p.tokens_in, p.tokens_out))
    return cells + ["—" if p.latency is None else f"{p.latency:.2f}s", tokens]


def columns(run: Run) -> list[tuple[str, int]]:
    head = [("question", 14), ("pred", 4), ("key", 3), ("", 1), ("parse", 9)]
    return head + ([("margin", 7)] if run.kind == "embedding" else [("latency", 7), ("tokens", 9)])


def mixed_lines(text: str, width: int, mode: Mode) -> list[str]:
    """Model output mixing Persian and English, wrapped to ``width`` (``bidi.block``: each
    paragraph wrapped in logical order, then reordered; Persian paragraphs right-aligned in app
    mode, English ones left-to-right with their Persian runs reordered in place)."""
    return bidi.block(text, max(width, 1), mode)


def clip_text(text: str) -> str:
    if len(text) <= MAX_TEXT:
        return text
    return text[:MAX_TEXT] + f"\n… ({len(text) - MAX_TEXT} more characters)"


def field_lines(label: str, value: str, width: int, style: str = "") -> list[Line]:
    lines = bidi.wrap(value, max(width - LABEL, 1)) or [""]
    return [Line(t, style, label if i == 0 else " ") for i, t in enumerate(lines)]


def _marks(pos: int, p: Prediction, q: Question, shown: dict[int, int] | None) -> tuple[str, str]:
    marks, style = [], ""
    if pos == q.key:
        marks.append("key")
        style = "$text-success"
    if pos == p.predicted:
        marks.append("predicted ✓" if pos == q.key else "predicted ✗" if q.key else "predicted")
        style = "bold $text-success" if pos == q.key else "bold $text-error"
    if p.scores and len(p.scores) >= pos:
        marks.append(f"score {p.scores[pos - 1]:.4f}")
    if shown:
        marks.append(f"shown as {shown[pos]}")
    return ("◆ " + " · ".join(marks) if marks else ""), style


def prediction_lines(run: Run | None, p: Prediction | None, q: Question | None, width: int,
                     mode: Mode, v: SampleVote | None = None, judged: Sequence[JudgmentRow] = ()) -> list[Line]:
    """Everything the pane shows for one prediction at ``width`` cells (``v``: the question's
    models.SampleVote when the run asked it several times; ``p`` is then the majority's first;
    ``judged``: the judge's verdicts on it, each with the review in force)."""
    width = max(width, 20)
    if p is None or run is None:
        return [Line("no prediction selected", "dim")]
    ok = is_correct(p, q)
    verdict = ("✓ correct", "bold $text-success") if ok else ("✗ wrong", "bold $text-error") \
        if ok is False else ("· no key", "dim")
    out = [Line(f"{p.uid}  " + verdict[0] + f"  · parse {p.parse_status}", "",
                mark=(len(p.uid) + 2, len(p.uid) + 2 + len(verdict[0]), verdict[1]))]
    perm = p.permutation if p.permutation and list(p.permutation) != sorted(p.permutation) else None
    shown = {orig: i for i, orig in enumerate(perm, 1)} if perm else None
    if q is None:
        out.append(Line("the question is no longer in the bank", "$text-warning"))
    else:
        if q.stem:
            out += [Line(t, "bold") for t in bidi.display_lines(q.stem, width, mode)]
        for o in sorted(q.options, key=lambda o: o.position):
            out.append(Line(""))
            out += couplet_lines(o.position, o.mesra1, o.mesra2, width, mode, poet=o.poet,
                                 is_key=q.key == o.position)
            text, style = _marks(o.position, p, q, shown)
            if text:  # in words too, not only in colour
                pad = "" if mode.name == "app" else " " * GUTTER
                out += [Line(pad + t, style) for t in bidi.display_lines(text, max(width - GUTTER, 1), mode)]
    out += [Line(""), Line("─" * width, "dim")]
    out += field_lines("predicted", fa(p.predicted) if p.predicted else "none", width,
                  "bold $text-success" if ok else "bold $text-error" if ok is False else "")
    out += field_lines("key", fa(q.key) if q and q.key else "none", width)
    out += field_lines("parse", p.parse_status, width)
    for j in judged:
        out += field_lines("judge", judged_text(j), width)
    if v is not None and len(v.answers) > 1:
        agree = "—" if v.agreement is None else f"{v.agreement:.0%}"
        out += field_lines("samples", " ".join(fa(a) if a else "-" for a in v.answers)
                           + f" (majority {fa(v.answer) or 'none'}, agreement {agree}; shown: sample {p.sample})",
                           width)
    if run.kind == "embedding" and p.scores:
        m = margin(p.scores)
        out += field_lines("scores", "  ".join(f"{i}:{s:.4f}" for i, s in enumerate(p.scores, 1))
                      + " (lowest = outlier)", width)
        if m is not None:
            out += field_lines("margin", f"{m:.4f}", width)
    if p.latency is not None:
        out += field_lines("latency", f"{p.latency:.2f} s", width)
    if p.tokens_in is not None or p.tokens_out is not None:
        out += field_lines("tokens", f"{p.tokens_in if p.tokens_in is not None else '?'} in · "
                      f"{p.tokens_out if p.tokens_out is not None else '?'} out", width)
    if p.cost is not None:
        out += field_lines("cost", f"${p.cost:.6f}", width)
    if perm:
        out += field_lines("shown order", " ".join(map(str, perm)) + " (position 1 showed option "
                      f"{perm[0]}, …; answers are mapped back)", width)
    if p.exemplars:
        out += field_lines("exemplars", ", ".join(p.exemplars), width)
    if p.error:
        out += [Line(""), Line("", "", "error")]
        out += [Line(t, "$text-error") for t in mixed_lines(clip_text(p.error), width, mode)]
    texts: tuple[tuple[str, str | None], ...] = (("raw output", p.raw_output), ("reasoning", p.reasoning))
    for title, body in texts:
        out += [Line(""), Line("", "", title)]
        if body:
            out += [Line(t) for t in mixed_lines(clip_text(body), width, mode)]
        else:
            out.append(Line("(none)" if body is None else "(empty)", "dim"))
    return out


def judged_text(j: JudgmentRow) -> str:
    """A judge's verdict on an answer in one line: the judge run, the verdict (and category), the
    review in force."""
    said = (j.verdict or j.status).replace("_", " ") + (f" · {j.error_category}" if j.verdict == "flawed" else "")
    text = f"run {j.run_id}: {said}"
    if j.reviewed:
        same = j.review_verdict == j.verdict and j.review_category == j.error_category
        final = (j.review_verdict or "").replace("_", " ") + (
            f" · {j.review_category}" if j.review_verdict == "flawed" else "")
        text += f"; accepted by {j.reviewer}" if same else f"; overridden by {j.reviewer}: {final}"
    if j.flagged:
        text += "; flagged as a key problem"
    if j.sample:
        text += f" (sample {j.sample})"
    return text


def run_head(run: Run, preds: list[Prediction], keys: dict[str, int | None],
             replies: int | None = None) -> str:
    """The header: what the run is and its figures (a run asked K times: on the majority's
    answers, `replies` of its total stored)."""
    p = run.params
    what = p.get("strategy") if run.kind == "llm" else p.get("scorer")
    extra = [f"shuffle seed {p['shuffle_seed']}"] if p.get("shuffle_seed") is not None else []
    if int(p.get("samples") or 1) > 1:
        extra.append(f"{p['samples']} samples, majority vote")
    if p.get("release"):
        extra.append(f"release {p['release']}")
    scored = [x for x in preds if keys.get(x.uid) is not None]
    correct = sum(x.predicted == keys[x.uid] for x in scored)
    invalid = sum(x.parse_status not in ("ok", "api_error") for x in preds)
    errors = sum(x.parse_status == "api_error" for x in preds)
    head = [f"run {run.id}", run.kind, run.model, *([what] if what else []), *extra, run.shown_status]
    stored = len(preds) if replies is None else replies
    return " · ".join(head) + \
        f" │ {stored}/{run.total} · accuracy {accuracy_text(correct, len(scored), len(preds), errors)} · " \
        f"invalid {invalid} · errors {errors}"


# ------------------------------------------------------------------ the screen


def load_detail(db_path: str | Path, run_id: int, known: dict[str, Question]) -> DetailLoaded:
    """Read on a worker thread with its own connection: only the questions not known yet."""
    try:
        with Store(db_path) as store:
            version = store.data_version()
            run = store.runs.get_run(run_id)
            preds, voted = store.runs.voted_predictions(run_id) if run else ([], None)
            votes = {v.chosen.uid: v for v in voted or ()}
            missing = [p.uid for p in preds if p.uid not in known]
            questions = {**known, **store.questions.questions_for_uids(missing)}
            judged: dict[str, list[JudgmentRow]] = {}
            for j in store.judging.judgments(target_run=run_id) if run else ():
                judged.setdefault(j.uid, []).append(j)
    except (StoreError, OSError) as e:
        return DetailLoaded(None, [], known, None, str(e))
    return DetailLoaded(run, preds, questions, version, votes=votes, judged=judged)


class RunDetailScreen(RowsPaneScreen):
    KEYS_TITLE = "run answers"
    KEY_TABLE = (
        Key("escape,q", "back", "Back", "back to the runs", palette="Back"),
        Key("a", "filter('all')", "All", "show every answer", palette="Show all answers"),
        Key("w", "filter('wrong')", "Wrong", "show the wrong answers", palette="Show wrong answers"),
        Key("i", "filter('invalid')", "Invalid/errors", "show the unparsed answers and API errors",
            palette="Show invalid answers and errors"),
        Key("r", "reload", "Reload", "reload the run's answers", palette="Reload"),
        help_key(),
    )
    BINDINGS = bindings(KEY_TABLE)

    def __init__(self, run_id: int) -> None:
        super().__init__()
        self.run_id = run_id
        self.run: Run | None = None
        self.preds: list[Prediction] = []
        self.votes: dict[str, SampleVote] = {}  # uid -> its vote (a run asked several times)
        self.judged: dict[str, list[JudgmentRow]] = {}  # uid -> the judge's verdicts on its answers
        self.by_uid: dict[str, Prediction] = {}
        self.questions: dict[str, Question] = {}
        self.which = "all"
        self.shown: list[str] = []  # uids in the table
        self.loaded_version: tuple[int, int] | None = None  # the database state last shown
        self.reading_version: tuple[int, int] | None = None  # the state when the read in progress began
        self.loading = False

    def on_mount(self) -> None:
        self._apply_layout()
        self.query_one("#rd-head", Static).update(f"run {self.run_id} · loading…")
        self.reload()
        self.query_one(DataTable).focus()
        self.set_interval(LIVE_EVERY, self._live)

    def reload(self) -> None:
        """Read the run in a worker; the table is refilled when DetailLoaded arrives. The
        database state is noted before the read: a write landing during it is read next time."""
        self.loading = True
        try:
            self.reading_version = self.store.data_version()
        except StoreError:
            self.reading_version = None
        self._load()

    @work(thread=True, exclusive=True, group="run-detail", exit_on_error=False)
    def _load(self) -> None:
        self.post_message(load_detail(self.app.db_path, self.run_id, dict(self.questions)))

    def _live(self) -> None:
        """While the run is going, reload (at most every LIVE_EVERY s) when the database changed."""
        if self.loading or self.run is None or self.run.status != "running":
            return
        try:
            changed = self.store.data_version() != self.loaded_version
        except StoreError:
            return
        if changed:
            self.reload()

    @on(DetailLoaded)
    def _loaded(self, event: DetailLoaded) -> None:
        self.loading = False
        if event.error:
            self.query_one("#rd-head", Static).update(f"run {self.run_id}: {event.error}")
            return
        self.run, self.questions = event.run, event.questions
        self.loaded_version = self.reading_version
        if self.run is None:
            self.query_one("#rd-head", Static).update(f"no run {self.run_id}")
            return
        self.preds, self.votes, self.judged = event.preds, event.votes, event.judged
        self.by_uid = {p.uid: p for p in self.preds}
        keys = {uid: scored_key(q.key, q.status) for uid, q in self.questions.items()}
        replies = sum(len(v.answers) for v in self.votes.values()) if self.votes else None
        self.query_one("#rd-head", Static).update(run_head(self.run, self.preds, keys, replies))
        table = self.query_one(DataTable)
        if not table.columns:
            for label, width in columns(self.run):
                table.add_column(label, width=width)
        self.fill()

    def fill(self) -> None:
        table = self.query_one(DataTable)
        current = self.current_key
        table.clear()
        run = self.run  # None: not read yet, or deleted since
        rows = [p for p in self.preds if keep(p, self.questions.get(p.uid), self.which)] if run is not None else []
        self.shown = [p.uid for p in rows]
        if run is not None:
            for p in rows:
                table.add_row(*(Text(c, no_wrap=True) for c in row_cells(run, p, self.questions.get(p.uid))),
                              key=p.uid)
        if current in self.shown:
            table.move_cursor(row=self.shown.index(current), animate=False)
        counts = {w: sum(keep(p, self.questions.get(p.uid), w) for p in self.preds) for w in FILTERS}
        self.show_filters(FILTERS, counts, {w: w[0] for w in FILTERS})
        self.show(self.current_key)

    def show(self, uid: str | None) -> None:
        pred = self.by_uid.get(uid) if uid else None
        q = self.questions.get(uid) if uid else None
        run, mode, v = self.run, self.mode, self.votes.get(uid) if uid else None
        judged = self.judged.get(uid, []) if uid else []
        self.show_lines(lambda width: prediction_lines(run, pred, q, width, mode, v, judged))
