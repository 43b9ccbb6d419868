"""The release screen (admins): a form for what `persian-tui release NAME` takes — the name
(checked as the CLI checks it, the error under the field), the licence, the finished runs of the
leaderboard, the folder (exports/releases/NAME unless changed), "as it was frozen" — beside the
datasheet the release will write, previewed as it is typed; Ctrl+S asks, then freezes and writes
in a worker (releases/make.py, the CLI's own function: the role is checked there too) with its
steps on a progress bar, and says where it was written and which files, or why not in one line."""

from __future__ import annotations

from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Button, Checkbox, Input, Label, ProgressBar, Select, SelectionList, Static
from textual.worker import get_current_worker

from ... import bidi, display
from ...files.inputs import InputError
from ...models import Run
from ...releases.make import DEFAULT_LICENCE, LICENCES, default_folder, folder_note, release_runs
from ..base import AppState
from ..dialogs.common import ConfirmDialog, drop_asking
from ..fields.persian_input import FitInput, PersianInput
from ..guard import Guarded, access, refused
from ..keys import Key, bindings, help_key
from ..messages import ReleasePreviewed, ReleaseStep, ReleaseWritten
from ..widgets.datasheet_view import datasheet_lines
from ..widgets.key_bar import KeyBar
from ..widgets.lines_view import LinesView

PREVIEW_DELAY = 0.3  # seconds of no typing before the datasheet is computed again
NARROW_BELOW = 110  # columns: a narrower form beside the preview
PLACEHOLDER_NAME = "NAME"  # the preview's name while none (or a bad one) is typed


def name_error(name: str) -> str | None:
    """What is wrong with a typed release name (None: fine), as the CLI says it."""
    from ...releases.build import check_name

    if not name:
        return "name the release, e.g. v1.0"
    try:
        check_name(name)
    except InputError as e:
        return str(e)
    return None


def run_prompt(run: Run) -> Content:
    """A run in the checklist: id, model (its samples and release), kind, when it finished."""
    when = (run.finished_at or run.created_at or "")[:16].replace("T", " ")
    return Content.assemble((f"#{run.id} ", "bold"), display.line(run.label), (f"  {run.kind}  {when}", "dim"))


class Tick(Checkbox):
    """A checkbox whose box is empty when unticked and crossed when ticked: told apart without
    colour (Textual draws the cross in both, in another colour)."""

    BUTTON_INNER = " "

    def watch_value(self) -> None:
        self.BUTTON_INNER = "X" if self.value else " "
        super().watch_value()


class ReleaseScreen(AppState, Guarded, Screen[None]):
    KEYS_TITLE = "release"
    KEY_TABLE = (
        Key("ctrl+s", "write", "Freeze & write", "freeze the curated set under the name and write the "
            "release folder (asks first)", palette="Freeze and write the release"),
        Key("tab", "", "", "next field (name, licence, folder, as frozen, runs, Write, the preview)"),
        Key("space", "", "", "in the runs: tick or untick the highlighted run; on “as frozen”: tick it"),
        Key("a", "all_runs", "All runs", "in the runs: tick every run, or untick them all", footer=False),
        help_key(),
        Key("escape", "back", "Back", "back to the bank (asks before dropping what was typed)", palette="Back"),
    )
    BINDINGS = bindings(KEY_TABLE)
    ACTS = {"write": "release"}

    def __init__(self) -> None:
        super().__init__()
        self.runs: list[Run] = []
        self.curated = 0
        self.generation = 0  # of the preview asked last
        self.preview_text = ""  # the datasheet previewed last ("" while none)
        self.preview_error: str | None = None
        self.frozen_already = False  # the name holds this release already (written again, not frozen)
        self.writing = False
        self.written: ReleaseWritten | None = None  # the last write's outcome
        self._auto_folder = str(default_folder(PLACEHOLDER_NAME))  # the folder follows the name until edited
        self._timer: Timer | None = None

    # ------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield Static(id="rel-head", markup=False)
        with Horizontal(id="rel-body"):
            with VerticalScroll(id="rel-form"):
                yield Label("name")
                yield PersianInput(placeholder="e.g. v1.0 (letters, digits, . _ -)", id="rel-name", compact=True)
                yield Static("", id="rel-name-preview", markup=False)
                yield Static("", id="err-name", classes="rel-error", markup=False)
                yield Label("licence (the datasheet header)")
                yield Select([(lic, lic) for lic in LICENCES], value=DEFAULT_LICENCE, allow_blank=False,
                             id="rel-licence", compact=True)
                yield Label("folder")
                yield FitInput(str(default_folder(PLACEHOLDER_NAME)), id="rel-folder", compact=True)
                yield Static("", id="rel-folder-note", classes="rel-note", markup=False)
                yield Tick("as it was frozen (--frozen)", id="rel-frozen", compact=True)
                yield Label("leaderboard runs (Space, a: all)")
                yield SelectionList[int](id="rel-runs", compact=True)
                yield Static("", id="rel-runs-note", classes="rel-note", markup=False)
                yield Button("Freeze & write (Ctrl+S)", variant="primary", id="rel-write", compact=True)
                yield ProgressBar(total=3, show_eta=False, id="rel-progress")
                yield Static("", id="rel-step", classes="rel-note", markup=False)
                yield Static("", id="rel-outcome", markup=False)
            with VerticalScroll(id="rel-preview-box"):
                yield Static("datasheet preview: README.md as it will be written", id="rel-preview-title")
                yield LinesView(id="rel-preview")
        yield KeyBar()

    def on_mount(self) -> None:
        store = self.store
        self.curated = len(store.questions.questions(statuses=["curated"]))
        self.runs = release_runs(store)
        runs = self.query_one("#rel-runs", SelectionList)
        runs.add_options([(run_prompt(r), r.id) for r in self.runs])
        if self.runs:
            runs.highlighted = 0  # Space ticks the first run at once
        self._show_runs_note()
        for hidden in ("#rel-progress", "#rel-name-preview", "#err-name"):
            self.query_one(hidden).display = False
        releases = store.releases.releases()
        last = f"; last release {releases[-1].name}, frozen {releases[-1].created_at}" if releases else ""
        self.query_one("#rel-head", Static).update(
            f"Release: freeze the {self.curated} curated question(s) under a name, for good, and write its "
            f"folder, as `persian-tui release` does{last}")
        self._show_folder_note()
        self._preview()
        self.query_one("#rel-name", Input).focus()

    def on_resize(self) -> None:
        self.set_class(self.app.size.width < NARROW_BELOW, "-narrow")  # the preview keeps room to read

    # ------------------------------------------------------------ the form

    @property
    def release_name(self) -> str:
        return self.query_one("#rel-name", Input).value.strip()

    @property
    def folder(self) -> Path:
        """The folder to write, a relative one taken beside the database (as the report's
        export does), never the directory the app was started from."""
        typed = self.query_one("#rel-folder", Input).value.strip()
        folder = Path(typed) if typed else default_folder(self.release_name or PLACEHOLDER_NAME)
        return folder if folder.is_absolute() else (self.app.db_path.resolve().parent / folder).resolve()

    @property
    def licence(self) -> str:
        value = self.query_one("#rel-licence", Select).value
        return DEFAULT_LICENCE if value is Select.NULL else str(value)

    @property
    def run_ids(self) -> list[int]:
        return sorted(self.query_one("#rel-runs", SelectionList).selected)

    @property
    def frozen(self) -> bool:
        return self.query_one("#rel-frozen", Tick).value

    def unsaved_work(self) -> str | None:
        """What leaving would lose: a name typed and not written yet, or the write under way."""
        if self.writing:
            return f"the release {self.release_name} being written"
        if not self.release_name or (self.written is not None and self.written.error is None):
            return None
        return f"the release {self.release_name} (not written)"

    @on(Input.Changed, "#rel-name")
    def _name_changed(self, event: Input.Changed) -> None:
        name = event.value.strip()
        error = name_error(name) if name else None
        self._name_error(error)
        shown = self.query_one("#rel-name-preview", Static)
        rtl = self.mode.name == "app" and bidi.has_rtl(name)
        shown.update(bidi.display_line(name, 48, self.mode) if rtl else "")
        shown.display = rtl
        folder = self.query_one("#rel-folder", Input)
        if folder.value.strip() in ("", self._auto_folder):  # not edited: it follows the name
            self._auto_folder = folder.value = str(default_folder(name or PLACEHOLDER_NAME))
        self._changed()

    def _name_error(self, error: str | None) -> None:
        line = self.query_one("#err-name", Static)
        line.update(f"✗ {error}" if error else "")
        line.display = bool(error)

    @on(Input.Changed, "#rel-folder")
    def _folder_changed(self, event: Input.Changed) -> None:
        self._show_folder_note()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.focus_next()  # Enter moves on; freezing, which cannot be undone, is Ctrl+S

    @on(Select.Changed, "#rel-licence")
    @on(Tick.Changed, "#rel-frozen")
    @on(SelectionList.SelectedChanged, "#rel-runs")
    def _option_changed(self) -> None:
        self._changed()

    @on(SelectionList.SelectedChanged, "#rel-runs")
    def _show_runs_note(self) -> None:
        ids = self.run_ids
        if not self.runs:
            note = "no finished run yet: the datasheet has no leaderboard"
        elif not ids:
            note = "none ticked: no leaderboard"
        else:
            note = f"{len(ids)} ticked: the leaderboard and item analysis of " + ", ".join(f"#{i}" for i in ids)
        self.query_one("#rel-runs-note", Static).update(note)

    def _changed(self) -> None:
        """The inputs changed: the last outcome is about other inputs; preview again soon."""
        if self.written is not None and not self.writing:
            self.written = None
            self.query_one("#rel-outcome", Static).update("")
        self._show_folder_note()
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(PREVIEW_DELAY, self._preview)

    def _show_folder_note(self) -> None:
        folder, base = self.folder, self.app.db_path.resolve().parent
        # a path inside the database's folder is shown from there (short: not broken mid-word at 80
        # columns), on a line of its own
        where = (f"beside the database: {folder.relative_to(base)}" if folder.is_relative_to(base)
                 else str(folder))
        self.query_one("#rel-folder-note", Static).update(
            f"{folder_note(folder, self.release_name or PLACEHOLDER_NAME)}\n{display.line(where)}")

    def action_all_runs(self) -> None:
        runs = self.query_one("#rel-runs", SelectionList)
        if len(runs.selected) == len(self.runs):
            runs.deselect_all()
        else:
            runs.select_all()

    # ------------------------------------------------------------ the preview

    def _preview(self) -> None:
        self._timer = None
        self.generation += 1
        name = self.release_name if self.release_name and name_error(self.release_name) is None else PLACEHOLDER_NAME
        self._compute_preview(self.generation, name, self.run_ids, self.licence, self.frozen, self.folder)

    @work(thread=True, exclusive=True, group="release-preview", exit_on_error=False)
    def _compute_preview(self, generation: int, name: str, run_ids: list[int], licence: str, frozen: bool,
                         folder: Path) -> None:
        """The datasheet these inputs would write, on this thread's own connection."""
        from ...releases.make import preview
        from ...store import Store, StoreError

        worker = get_current_worker()
        try:
            with Store(self.app.db_path) as store:
                found = preview(store, name, run_ids=run_ids, license_id=licence, frozen=frozen,
                                who=access(self).user, out=folder)
            message = ReleasePreviewed(generation, found.text, frozen=found.frozen)
        except (InputError, StoreError, OSError) as e:
            message = ReleasePreviewed(generation, error=str(e))
        if not worker.is_cancelled:
            self.post_message(message)

    def on_release_previewed(self, message: ReleasePreviewed) -> None:
        if message.generation != self.generation:
            return  # a newer preview is on its way
        self.preview_text, self.preview_error = message.text, message.error
        self.frozen_already = message.frozen
        title = self.query_one("#rel-preview-title", Static)
        if message.error:
            title.update(Content.styled(f"✗ {display.line(message.error)}", "$text-error"))
        else:
            again = " (this name holds this release already: its files are written again)" if message.frozen else ""
            title.update(f"datasheet preview: README.md as it will be written{again}")
        text, mode = message.text, self.mode
        self.query_one("#rel-preview", LinesView).show(lambda width: datasheet_lines(text, width, mode))

    # ------------------------------------------------------------ freezing and writing

    @on(Button.Pressed, "#rel-write")
    def _write_pressed(self) -> None:
        self.action_write()

    def action_write(self) -> None:
        if refused(self, "release") or self.writing:
            return
        error = name_error(self.release_name)
        if error:
            self._name_error(error)
            self.query_one("#rel-name", Input).focus()
            return
        name, folder, runs = self.release_name, self.folder, self.run_ids
        if self.frozen:
            what = f"Write release {name} as it was frozen"
        elif self.frozen_already:
            what = f"Write release {name} again (it is frozen with this content)"
        else:
            what = (f"Freeze the {self.curated} curated question(s) as release {name}? A release never changes.\n"
                    "Then write it")
        board = f"runs {', '.join(f'#{i}' for i in runs)}" if runs else "no runs"
        question = f"{what} to {folder.resolve()}/ (licence {self.licence}, leaderboard: {board})?"

        def answered(yes: bool | None) -> None:
            if yes:
                self._start(name, folder, runs, self.licence, self.frozen)

        self.app.push_screen(ConfirmDialog(question), answered)

    def _start(self, name: str, folder: Path, run_ids: list[int], licence: str, frozen: bool) -> None:
        self.writing = True
        self.query_one("#rel-write", Button).disabled = True
        bar = self.query_one("#rel-progress", ProgressBar)
        bar.update(total=3, progress=0)
        bar.display = True
        self.query_one("#rel-outcome", Static).update("")
        self._write(name, folder, run_ids, licence, frozen)

    @work(thread=True, exclusive=True, group="release-write", exit_on_error=False)
    def _write(self, name: str, folder: Path, run_ids: list[int], licence: str, frozen: bool) -> None:
        """make_release (the CLI's function) on this thread's own connection, as the app's person
        resolved again there (a user removed since the app started is refused)."""
        from ...access import AccessDenied, acting
        from ...releases.make import make_release
        from ...store import ReleaseExists, Store, StoreError

        def step(what: str, done: int, total: int) -> None:
            self.post_message(ReleaseStep(what, done, total))

        try:
            with Store(self.app.db_path) as store:
                person = acting(store, access(self).user)
                result = make_release(store, person, name, folder, run_ids=run_ids, license_id=licence,
                                      frozen=frozen, progress=step)
        except (InputError, ReleaseExists, AccessDenied, StoreError, OSError) as e:
            self.post_message(ReleaseWritten(error=display.line(str(e))))
            return
        r = result.release
        summary = (f"release {r.name}: {r.questions} questions, digest {r.digest[:16]}, "
                   f"{'frozen now' if result.created else 'frozen ' + r.created_at}")
        files = [p.relative_to(folder).as_posix() for p in result.paths]
        self.post_message(ReleaseWritten(str(folder.resolve()), files, summary, result.created))

    def on_release_step(self, message: ReleaseStep) -> None:
        self.query_one("#rel-progress", ProgressBar).update(total=message.total, progress=message.done)
        self.query_one("#rel-step", Static).update(f"{message.what} …")

    def on_release_written(self, message: ReleaseWritten) -> None:
        self.writing = False
        self.written = message
        self.query_one("#rel-write", Button).disabled = False
        self.query_one("#rel-progress").display = False
        self.query_one("#rel-step", Static).update("")
        outcome = self.query_one("#rel-outcome", Static)
        if message.error:
            outcome.update(Content.styled(f"✗ not written: {message.error}", "$text-error"))
            self.notify(f"release not written: {message.error}", severity="error", timeout=8)
            return
        outcome.update(Content.assemble((f"✓ {message.summary}\n", "$text-success"),
                                        f"written to {message.folder}/\n",
                                        *(f"  {f}\n" for f in message.files)))
        outcome.scroll_visible()
        self.notify(f"{message.summary}; written to {message.folder}/", timeout=8)
        self._show_folder_note()
        self._preview()  # the preview now shows the frozen release

    def action_back(self) -> None:
        if self.writing:
            self.notify("the release is being written: wait for it to finish", severity="warning", timeout=4)
            return
        drop_asking(self, self.unsaved_work(), lambda: self.dismiss(None))
