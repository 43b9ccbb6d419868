"""A release as a person makes it, from the CLI (`persian-tui release NAME`) or the app's release
screen: the acting person's role is checked here, in the core (access.py: admins release), then
build.py freezes and writes. Also what both front ends offer: the default folder, the licences,
the runs a leaderboard may name, what a folder holds now, and the datasheet as it will be written
(a preview: nothing frozen, nothing written)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..access import Access
from ..files.inputs import InputError
from ..models import Release, Run, release_digest
from ..store import Store
from .build import (
    Progress,
    ReleaseResult,
    build_release,
    check_licence,
    check_name,
    check_runs,
    current_items,
    datasheet,
    leaderboard,
)

# the licence the CLI writes unless told (--license): "unknown" claims nothing; the hub's usual
# identifiers for a dataset follow (https://huggingface.co/docs/hub/repositories-licenses)
DEFAULT_LICENCE = "unknown"
LICENCES = (DEFAULT_LICENCE, "cc-by-4.0", "cc-by-sa-4.0", "cc-by-nc-4.0", "cc-by-nc-sa-4.0", "cc0-1.0",
            "mit", "apache-2.0", "other")
NO_LEADERBOARD = ("paraphrase", "judge", "recall")  # run kinds that answer no question themselves
UNFROZEN = "when written"  # the frozen time a preview shows before the release is frozen


def default_folder(name: str) -> Path:
    """Where a release is written unless told (-o): exports/releases/NAME."""
    return Path("exports") / "releases" / name


def make_release(store: Store, person: Access, name: str, out: str | Path | None = None, *,
                 run_ids: Sequence[int] = (), license_id: str | None = None, frozen: bool = False,
                 progress: Progress | None = None) -> ReleaseResult:
    """Freeze the curated set as `name` and write its folder (default_folder(name) unless `out`),
    as `person`: AccessDenied unless their role may release; the release records their name.
    No `license_id`: the licence the folder's datasheet names, else DEFAULT_LICENCE."""
    person.require("release")
    return build_release(store, name, default_folder(name) if out is None else out, run_ids=run_ids,
                         license_id=license_id, frozen=frozen, who=person.user, progress=progress)


def release_runs(store: Store) -> list[Run]:
    """The runs a release's leaderboard is usually made of: finished (done), answering questions
    themselves (no paraphrase or judge run), not archived; by id."""
    return sorted((r for r in store.runs.runs() if r.status == "done" and r.kind not in NO_LEADERBOARD
                   and not r.archived), key=lambda r: r.id)


def folder_note(out: Path, name: str) -> str:
    """What writing release `name` into `out` would meet there, in one line."""
    if not out.exists():
        return "a new folder"
    if not out.is_dir():
        return "exists and is not a folder: refused"
    manifest = out / "release.json"
    if manifest.is_file():
        try:
            other = json.loads(manifest.read_text(encoding="utf-8")).get("name")
        except (OSError, ValueError, UnicodeDecodeError, AttributeError):
            return "holds a release.json that is not a release manifest: refused"
        if other == name:
            return f"holds release {name}: written again (refused if its content differs)"
        return f"holds another release ({other!r}): refused"
    try:
        entries = sum(1 for _ in out.iterdir())
    except OSError as e:
        return f"cannot be read: {e.strerror or e}"
    if not entries:
        return "an empty folder"
    return f"exists, no release in it ({entries} entries): the release's files are written into it"


@dataclass(frozen=True)
class Preview:
    """The datasheet (README.md) the release would be written with, and the release it would be
    (``frozen``: the name holds it already, with this content)."""

    text: str
    release: Release
    frozen: bool


def preview(store: Store, name: str, *, run_ids: Sequence[int] = (), license_id: str = DEFAULT_LICENCE,
            frozen: bool = False, who: str | None = None, out: str | Path | None = None) -> Preview:
    """The datasheet `make_release` would write for these inputs, byte for byte but for the frozen
    time (and who froze it) of a release not frozen yet. InputError (one line) for what the write
    would refuse: a bad name or licence, an unknown run, no curated question, no release to write
    as frozen, a name that holds other content. `out`: the folder it goes to (the datasheet names
    it), default_folder(name) unless given."""
    check_name(name)
    check_licence(license_id)
    check_runs(store, list(run_ids))
    known = store.releases.get_release(name)
    if frozen:
        if known is None:
            raise InputError(f"no release {name!r} to write as it was frozen")
        release = known
    else:
        items = current_items(store)
        if not items:
            raise InputError("no curated questions to release (mark questions curated first)")
        digest = release_digest(items)
        if known is not None and known.digest != digest:
            raise InputError(f"release {name!r} was frozen {known.created_at} with other content: a release "
                             "never changes; choose a new name, or write it as it was frozen")
        release = known if known is not None else Release(name, digest, len(items), who, UNFROZEN, tuple(items))
    board = leaderboard(store, release, list(run_ids))
    folder = Path(out if out is not None else default_folder(name)).name
    return Preview(datasheet(store, release, board, license_id, folder), release, known is not None)
