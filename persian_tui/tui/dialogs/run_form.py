"""The launch form of a run: its pure validation (``parse_form``) and the modal dialog.

The API key is never asked for: only the NAME of the environment variable holding it."""

from __future__ import annotations

from collections.abc import Callable

from pydantic import ValidationError
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Button, Input, Label, Select, Static

from ... import settings
from ...models import QUESTION_SETS
from ...models.recall import CUES, FORMATS
from ...redact import check_env_name
from ...runs.corpus_prose import CORPUS_LIMIT
from ...runs.outlier import SCORERS
from ...runs.prompts import STRATEGIES
from ...runs.spec import SPECS, EmbedRunSpec, JudgeRunSpec, LLMRunSpec, ParaphraseRunSpec, RecallRunSpec, field_errors
from ..fields.persian_input import PersianInput
from ..keys import Key, bindings, help_key
from .common import drop_asking

Spec = LLMRunSpec | ParaphraseRunSpec | JudgeRunSpec | EmbedRunSpec | RecallRunSpec
KINDS = ("llm", "paraphrase", "recall", "judge", "embedding")
KIND_LABELS = {"llm": "LLM (chat completions)", "paraphrase": "paraphrase (couplets as prose)",
               "recall": "recall (does the model remember the couplets?)",
               "judge": "judge (classify a run's errors)", "embedding": "embedding (outlier scorer)"}

DEFAULTS: dict[str, str] = {
    "kind": "llm", "questions": "ready", "limit": "",
    "base_url": "", "model": "", "api_key_env": "OPENAI_API_KEY", "strategy": STRATEGIES[0],
    "concurrency": "4", "temperature": "0", "shuffle_seed": "", "target_run": "", "only_wrong": "no",
    "embed_model": "tfidf", "embed_base_url": "", "scorer": SCORERS[0], "prefix": "",
    "samples": "1", "sample": "", "release": "", "cue": CUES[0], "format": FORMATS[0], "paraphrase_run": "",
    "source": "questions", "poets": "", "corpus_seed": "",
}

# (field, label, placeholder) of the text inputs, by section
COMMON = [("limit", "limit", "optional: ask only the first N questions"),
          ("release", "release", "optional: exactly this release's questions (recorded)")]
LLM_FIELDS = [
    ("base_url", "base URL", "e.g. http://127.0.0.1:8000/v1 or https://openrouter.ai/api/v1"),
    ("model", "model", "e.g. gpt-4o-mini, qwen2.5:7b"),
    ("concurrency", "concurrency", "parallel requests, 1..256"),
    ("temperature", "temperature", "0..2, empty: the server's default"),
    ("shuffle_seed", "shuffle seed", "optional: shuffle the option order with this seed"),
    ("samples", "samples", "ask each question K times (1..100; use a temperature above 0)"),
    ("sample", "judged sample", "optional: this sample (0-based); default: the majority's"),
]
KEY_FIELD = ("api_key_env", "API key var", "NAME of the environment variable holding the key")
EMBED_FIELDS = [
    ("embed_model", "model", "tfidf | st:<folder or name> | openai:<model>"),
    ("embed_base_url", "base URL", "for openai:<model>, e.g. http://127.0.0.1:11434/v1"),
    ("prefix", "prefix", "optional, e.g. 'query: ' (not for tfidf)"),
]
INTEGER_FIELDS = {"limit", "concurrency", "shuffle_seed", "target_run", "samples", "sample", "paraphrase_run",
                  "corpus_seed"}
PROSE_FIELD = ("paraphrase_run", "paraphrase run", "cue prose: the paraphrase run whose prose is given")
CUE_LABELS = {"first": "first: the poet and the first hemistich",
              "prose": "prose: + the couplet's prose (a paraphrase run)",
              "words": "words: + the two rarest words of the second",
              "shuffled": "shuffled: + the second's words shuffled"}
FORMAT_LABELS = {"complete": "complete: write the second hemistich",
                 "choose": "choose: pick it among four (cues first, prose)"}
# a paraphrase run's couplets: the bank's questions, or corpus couplets of poems outside the bank
# (`run paraphrase --corpus`: their prose is what the Candidates screen can propose from)
SOURCE_LABELS = {"questions": "the bank's questions",
                 "corpus": "corpus couplets outside the bank (fresh questions)"}
CORPUS_FIELDS = [("poets", "poets", "optional: only these poets (slug or name, comma-separated)"),
                 ("corpus_seed", "corpus seed", "optional: seed of the couplets' draw (default 0)")]
LIMIT_HINTS = {"questions": COMMON[0][2], "corpus": f"optional: N couplets (default {CORPUS_LIMIT})"}
# form field -> spec field, where they differ (embedding runs have their own model and URL inputs)
EMBED_NAMES = {"embed_model": "model", "embed_base_url": "base_url"}
# the form fields each kind uses
KIND_FIELDS = {
    "llm": ["questions", "limit", "release", "base_url", "model", "strategy", "concurrency", "temperature",
            "shuffle_seed", "samples", "api_key_env"],
    "paraphrase": ["source", "questions", "limit", "release", "base_url", "model", "concurrency", "temperature",
                   "api_key_env"],
    "recall": ["questions", "limit", "release", "base_url", "model", "cue", "format", "paraphrase_run",
               "concurrency", "temperature", "api_key_env"],
    "judge": ["target_run", "only_wrong", "sample", "limit", "base_url", "model", "concurrency", "temperature",
              "api_key_env"],
    "embedding": ["questions", "limit", "release", "embed_model", "scorer", "embed_base_url", "prefix",
                  "api_key_env"],
}
CORPUS_KIND_FIELDS = ["source", "poets", "corpus_seed", "limit", "base_url", "model", "concurrency",
                      "temperature", "api_key_env"]


def fields_of(kind: str, source: str) -> list[str]:
    """The form fields a run of `kind` uses (a paraphrase run of the corpus: its own)."""
    return CORPUS_KIND_FIELDS if kind == "paraphrase" and source == "corpus" else KIND_FIELDS.get(kind, [])


# ------------------------------------------------------------------ validation (pure)


def _value(field: str, text: str) -> int | float | bool | str | list[str] | None:
    """A form text as the spec's value; raises ValueError with the field's message."""
    text = text.strip()
    if field in INTEGER_FIELDS:
        if not text:
            return None
        try:
            return int(text)
        except ValueError:
            raise ValueError("must be a whole number") from None
    if field == "temperature":
        if not text:
            return None
        try:
            return float(text)
        except ValueError:
            raise ValueError("must be a number from 0 to 2 (or empty)") from None
    if field == "only_wrong":
        return text == "yes"
    if field == "poets":  # commas, Latin or Persian
        return [p.strip() for p in text.replace("،", ",").split(",") if p.strip()] or None
    return text or None


def parse_form(values: dict[str, str]) -> tuple[Spec | None, list[tuple[str, str]]]:
    """The validated spec of the form's values (persian_tui.runs.spec, the one definition the CLI
    uses too), or None and (form field, message) errors, never quoting what was typed."""
    v = {**DEFAULTS, **{k: (val or "") for k, val in values.items()}}
    kind = v["kind"]
    if kind not in KINDS:
        return None, [("kind", f"kind must be one of {', '.join(KINDS)}")]
    data: dict[str, object] = {}
    errors: list[tuple[str, str]] = []
    for field in fields_of(kind, v["source"]):
        if field == "source":
            data["corpus"] = v["source"] == "corpus"
            continue
        try:
            value = _value(field, v[field])
        except ValueError as e:
            errors.append((field, f"{_label(field)} {e}"))
            continue
        if value is not None or field == "temperature":  # an empty temperature: the server's default
            data[EMBED_NAMES.get(field, field)] = value
    if kind == "judge" and "target_run" not in data and not any(f == "target_run" for f, _ in errors):
        errors.append(("target_run", "judged run: choose the run whose answers are judged"))
    for name in ("base_url", "model") if kind != "embedding" else ():
        if name not in data and not any(f == name for f, _ in errors):
            errors.append((name, f"{_label(name)} is required"))
    try:
        spec = SPECS[kind](**data)
    except ValidationError as e:
        back = {b: a for a, b in EMBED_NAMES.items()} if kind == "embedding" else {}
        known = {f for f, _ in errors}
        errors += [(back.get(name, name), f"{_label(back.get(name, name))} {msg}")
                   for name, msg in field_errors(e).items() if back.get(name, name) not in known]
        spec = None
    return (None if errors else spec), errors


def _label(field: str) -> str:
    labels = {f: label for f, label, _ in COMMON + LLM_FIELDS + EMBED_FIELDS + CORPUS_FIELDS
              + [KEY_FIELD, PROSE_FIELD]}
    labels.update(target_run="judged run", only_wrong="only wrong", strategy="strategy", scorer="scorer",
                  questions="question set", source="couplets")
    return labels.get(field, field.replace("_", " "))


# what the form keeps from the last launch without a word: where and whom to ask; the other
# fields it keeps are named on top of the form when they differ from the default
IDENTITY = {"kind", "base_url", "model", "api_key_env", "embed_model", "embed_base_url"}


def kept_note(values: dict[str, str] | None) -> str:
    """The form's line naming the last launch's values it keeps that differ from the defaults
    (pure): "kept from your last launch: concurrency 16 (default 4), limit 5 (default none)"."""
    if not values:
        return ""
    kind = values.get("kind") or DEFAULTS["kind"]
    fields = fields_of(kind, values.get("source") or DEFAULTS["source"])
    kept = [f"{_label(f)} {values[f]} (default {DEFAULTS[f] or 'none'})" for f in fields
            if f not in IDENTITY and f in values and (values[f] or "") != DEFAULTS[f]]
    return "kept from your last launch: " + ", ".join(kept) if kept else ""


def looks_like_key(text: str) -> bool:
    try:
        check_env_name(text)
    except ValueError:
        return bool(text)
    return False


def key_note(name: str) -> str:
    """Whether the named variable is set (never its value)."""
    if not name or looks_like_key(name):
        return ""
    return f"{name} is set" if settings.api_key(name) else f"{name} is not set (fine for a local server)"


# ------------------------------------------------------------------ the dialog

WHERE = {"base_url", "api_key_env"}  # where to ask: kept when switching to a kind never launched
ERROR_LINES = 3  # the form's error lines, kept free from the start (the fields never move)


class RunForm(ModalScreen[None]):
    """Launch a run. ``launch(spec)`` starts it and returns an error to show, or None
    (then the form closes). Enter in a field or Ctrl+S launches; Escape cancels."""

    KEYS_TITLE = "new run"
    KEY_TABLE = (
        Key("escape", "cancel", "Cancel", "cancel", palette="Cancel"),
        Key("ctrl+s", "launch", "Launch", "launch the run (Enter in a field too)", palette="Launch"),
        Key("tab", "", "", "next field"),
        help_key("f1"),
    )
    BINDINGS = bindings(KEY_TABLE)

    def __init__(self, launch: Callable[[Spec, dict[str, str]], str | None],
                 remembered: dict[str, dict[str, str]] | None = None,
                 judgeable: list[tuple[str, str]] | None = None, kind: str | None = None) -> None:
        super().__init__()
        self.launch = launch
        self.remembered = remembered or {}  # the last launch's values of each kind
        kind = kind if kind in KINDS else DEFAULTS["kind"]
        self.initial = self.filled = {**DEFAULTS, **self.remembered.get(kind, {}), "kind": kind}
        self.kept = kept_note(self.remembered.get(kind))
        self.judgeable = judgeable or []  # (label, run id) of runs with answers to judge
        self.shown_errors: dict[str, str] = {}

    def _row(self, field: str, label: str, widget: Widget) -> Horizontal:
        """The field's row; an error marks its label (✗) and is told in the form's error lines."""
        return Horizontal(Label(label, classes="run-form-label", id=f"label-{field}"), widget,
                          classes="run-form-row run-form-field", id=f"row-{field}")

    def _input(self, field: str, placeholder: str) -> Input:
        kind = "integer" if field in INTEGER_FIELDS else "number" if field == "temperature" else "text"
        return PersianInput(self.initial[field], placeholder=placeholder, id=field, type=kind,
                     valid_empty=True, compact=True)

    def compose(self) -> ComposeResult:
        i = self.initial
        with Vertical(id="run-form-box"):
            yield Static("New run", id="run-form-title")
            yield Static(self.kept, id="run-form-kept", classes="run-form-note", markup=False)
            with VerticalScroll(id="run-form-fields"):
                yield self._row("kind", "kind", Select([(KIND_LABELS[k], k) for k in KINDS],
                                                       value=i["kind"], allow_blank=False, id="kind",
                                                       compact=True))
                target = i["target_run"] if i["target_run"] in {r for _, r in self.judgeable} else Select.NULL
                yield self._row("target_run", "judged run", Select(
                    self.judgeable, value=target, allow_blank=True, id="target_run", compact=True,
                    prompt="choose a run with answers"))
                yield self._row("only_wrong", "only wrong", Select(
                    [("judge every answer", "no"), ("judge only wrong or unusable answers", "yes")],
                    value=i["only_wrong"], allow_blank=False, id="only_wrong", compact=True))
                yield self._row("source", "couplets", Select(
                    [(label, k) for k, label in SOURCE_LABELS.items()], value=i["source"], allow_blank=False,
                    id="source", compact=True))
                yield self._row("questions", "questions", Select(
                    [(f"{k}: {', '.join(QUESTION_SETS[k])}", k) for k in QUESTION_SETS],
                    value=i["questions"], allow_blank=False, id="questions", compact=True))
                for field, label, hint in CORPUS_FIELDS + COMMON:
                    yield self._row(field, label, self._input(field, hint))
                for field, label, hint in LLM_FIELDS[:2]:
                    yield self._row(field, label, self._input(field, hint))
                yield self._row("strategy", "strategy", Select(
                    [(s, s) for s in STRATEGIES], value=i["strategy"], allow_blank=False,
                    id="strategy", compact=True))
                yield self._row("cue", "cue", Select(
                    [(CUE_LABELS[c], c) for c in CUES], value=i["cue"], allow_blank=False, id="cue", compact=True))
                yield self._row("format", "format", Select(
                    [(FORMAT_LABELS[f], f) for f in FORMATS], value=i["format"], allow_blank=False, id="format",
                    compact=True))
                yield self._row(PROSE_FIELD[0], PROSE_FIELD[1], self._input(PROSE_FIELD[0], PROSE_FIELD[2]))
                for field, label, hint in LLM_FIELDS[2:]:
                    yield self._row(field, label, self._input(field, hint))
                yield self._row("embed_model", "model", self._input("embed_model", EMBED_FIELDS[0][2]))
                yield self._row("scorer", "scorer", Select(
                    [(s, s) for s in SCORERS], value=i["scorer"], allow_blank=False,
                    id="scorer", compact=True))
                for field, label, hint in EMBED_FIELDS[1:]:
                    yield self._row(field, label, self._input(field, hint))
                # LLMs and openai:<model> embeddings: the variable's NAME, never the key
                yield self._row("api_key_env", "API key var", self._input("api_key_env", KEY_FIELD[2]))
                yield Static(key_note(i["api_key_env"]), id="key-note", classes="run-form-note")
            yield Static("", id="run-form-errors")
            with Horizontal(id="run-form-buttons"):
                yield Button("Launch", variant="primary", id="launch", compact=True)
                yield Button("Cancel", id="cancel", compact=True)
            yield Static("Enter or Ctrl+S: launch   Escape: cancel   Tab: next field",
                         classes="run-form-note")

    def on_mount(self) -> None:
        self._loaded = self.values()
        self._show_kind(self.initial["kind"])
        first = {"embedding": "#embed_model", "judge": "#target_run"}.get(self.initial["kind"], "#base_url")
        self.query_one(first).focus()

    def values(self) -> dict[str, str]:
        out = {f: self.query_one(f"#{f}", Input).value
               for f, _, _ in COMMON + LLM_FIELDS + EMBED_FIELDS + CORPUS_FIELDS + [KEY_FIELD, PROSE_FIELD]}
        for f in ("kind", "source", "questions", "strategy", "scorer", "target_run", "only_wrong", "cue", "format"):
            value = self.query_one(f"#{f}", Select).value
            out[f] = "" if value is Select.NULL else str(value)
        return out

    def unsaved_work(self) -> str | None:
        """What quitting would lose: what was typed or chosen in the form."""
        loaded = getattr(self, "_loaded", None)
        return "the new-run form's fields" if loaded is not None and self.values() != loaded else None

    def _show_kind(self, kind: str) -> None:
        chosen = str(self.query_one("#source", Select).value)
        source = chosen if chosen in SOURCE_LABELS and kind == "paraphrase" else "questions"
        wanted = set(fields_of(kind, source)) | {"kind"}
        for row in self.query(".run-form-field"):
            row.display = (row.id or "").removeprefix("row-") in wanted
        self.query_one("#limit", Input).placeholder = LIMIT_HINTS[source]

    @on(Select.Changed, "#kind")
    def _kind_changed(self, event: Select.Changed) -> None:
        kind = str(event.value)
        if kind != self.filled["kind"]:
            self._recall(kind)
        self._show_kind(kind)
        self.show_errors([])

    @on(Select.Changed, "#source")
    def _source_changed(self, event: Select.Changed) -> None:
        self._show_kind(str(self.query_one("#kind", Select).value))
        self.show_errors([])

    def _recall(self, kind: str) -> None:
        """The kind's own remembered values (or the defaults) in every field still showing what
        the form filled in; what was typed here stays."""
        now = self.values()
        own = self.remembered.get(kind)
        wanted = {**DEFAULTS, **(own or {}), "kind": kind}
        filled = dict(self.filled, kind=kind)
        for field, value in wanted.items():
            if field == "kind" or now.get(field, "") != (self.filled.get(field) or ""):
                continue
            if own is None and field in WHERE:  # a kind never launched asks the same server
                continue
            widget = self.query_one(f"#{field}")
            if isinstance(widget, Select):
                options = {v for _, v in self.judgeable} if field == "target_run" else None
                widget.value = value if value and (options is None or value in options) else (
                    Select.NULL if field == "target_run" else DEFAULTS[field])
            elif isinstance(widget, Input):
                widget.value = value
            filled[field] = value
        self.filled = filled
        self.kept = kept_note(self.remembered.get(kind))
        self.query_one("#run-form-kept", Static).update(self.kept)

    @on(Input.Changed)
    @on(Select.Changed)
    def _revalidate(self, event: Input.Changed | Select.Changed) -> None:
        """Errors shown next to fields go away as soon as the field is fixed."""
        if not self.shown_errors:
            return
        _, errors = parse_form(self.values())
        now = {f: m for f, m in errors if f in self.shown_errors}
        if now != self.shown_errors:
            self.show_errors(list(now.items()), focus=False)

    @on(Input.Changed, "#api_key_env")
    def _key_changed(self, event: Input.Changed) -> None:
        self.query_one("#key-note", Static).update(key_note(event.value.strip()))
        event.input.password = looks_like_key(event.value.strip())  # a pasted key is not shown

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_launch()

    @on(Button.Pressed, "#launch")
    def _launch_pressed(self) -> None:
        self.action_launch()

    @on(Button.Pressed, "#cancel")
    def _cancel_pressed(self) -> None:
        self.action_cancel()

    def show_errors(self, errors: list[tuple[str, str]], focus: bool = True) -> None:
        """The errors in the form's own error lines (their room is kept from the start, so no
        field moves); a field in error has its label marked ✗."""
        self.shown_errors = {f: m for f, m in errors if f in DEFAULTS}
        for label in self.query(".run-form-label").results(Label):
            field = (label.id or "").removeprefix("label-")
            label.set_class(field in self.shown_errors, "-error")
        lines = [f"✗ {m}" for _, m in errors]
        if len(lines) > ERROR_LINES:
            lines[ERROR_LINES - 1:] = [f"✗ and {len(lines) - ERROR_LINES + 1} more: fix these first"]
        self.query_one("#run-form-errors", Static).update("\n".join(lines))
        fields = [f for f, _ in errors if f in DEFAULTS and f != "kind"]
        if focus and fields:
            self.query_one(f"#{fields[0]}").focus()

    def action_launch(self) -> None:
        values = self.values()
        spec, errors = parse_form(values)
        if errors or spec is None:
            self.show_errors(errors)
            return
        error = self.launch(spec, values)
        if error:
            self.show_errors([("run", error)])
            return
        self.dismiss(None)

    def action_cancel(self) -> None:
        drop_asking(self, self.unsaved_work(), lambda: self.dismiss(None))
