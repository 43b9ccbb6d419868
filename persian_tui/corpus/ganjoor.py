"""Reading the Ganjoor data export (github.com/ganjoor/ganjoor-data) into the corpus tables.

Layout: poets/{poet}/poet.json, poets/{poet}/{cat...}/_cat.json, poets/{poet}/{cat...}/{poem}.json.
PATH may be the export's root, its poets/ folder, or one poet's folder. Files are parsed and
normalized outside any transaction; batches of poems are written in short transactions, and
the full-text index merged in short transactions of its own, so other processes keep writing
meanwhile.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, overload

from ..files.inputs import InputError
from ..files.records import parse_json
from ..models import CorpusPoem
from ..store import Store
from ..text import corpus_key, corpus_key_once, nfc
from .workers import ordered_map

BATCH = 300  # poems per write transaction at most ...
BATCH_COUPLETS = 2000  # ... and at most this many couplets (a longer poem is written in parts)
MAX_FILE = 20 * 1024 * 1024  # a poem file larger than this is not a poem
MAX_HEMISTICH = 1000  # characters; the longest hemistichs of the export have about 100
MAX_COUPLETS = 1_000_000  # a CoupletIndex beyond this is not an index
MAX_ID = 2**63 - 1  # SQLite's largest integer
CHUNK = 64  # poem files a worker process reads at a time
WORKERS_FROM = 1000  # poem files: fewer are read in this process (a worker takes ~0.5 s to start)

# Works that quote other poets (anthologies, tazkiras, prose books), named by a collection title
# in the poem's FullTitle ("ملا احمد نراقی » معراج السعادة » باب سوم » ..."): what the data alone
# cannot decide. The others are found from the data (CorpusRepo.mark_quoting).
QUOTING_WORKS = ("معراج السعادة", "ریاض العارفین", "کشکول", "مجمع الفصحا", "تذکرة الشعرا",
                 "لباب الالباب", "آتشکده", "نفحات الانس", "مرصاد العباد")
_QUOTING_KEYS = tuple(corpus_key(t) for t in QUOTING_WORKS)

# Positions of verses: Right/Left are the two hemistichs of a couplet; a band's centred verses
# pair up the same way. Paragraphs (prose) and comments are not verse.
_FIRST = {"Right", "CenteredVerse1"}
_SECOND = {"Left", "CenteredVerse2"}


@dataclass
class ImportProgress:
    done: int = 0
    total: int = 0
    new: int = 0
    updated: int = 0
    unchanged: int = 0
    skipped: int = 0
    couplets: int = 0
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # misnumbered couplets: renumbered or skipped
    started: float = field(default_factory=time.monotonic)
    longest_lock: float = 0.0  # seconds, the longest write transaction (merges and flags included)
    transactions: int = 0  # write transactions committed
    quoting: int | None = None  # poems found to quote earlier poets (when anything changed)

    @property
    def rate(self) -> float:
        return self.done / max(time.monotonic() - self.started, 1e-9)

    def summary(self) -> str:
        return (f"{self.done} poem files: {self.new} new, {self.updated} updated, "
                f"{self.unchanged} unchanged, {self.skipped} skipped; {self.couplets} couplets written")


def _poets_dirs(root: Path) -> tuple[list[Path], list[Path]]:
    """The poet folders under PATH (PATH itself when it is one), and the other folders there
    (no poet.json: not read, but named)."""
    if (root / "poet.json").is_file():
        return [root], []
    base = root / "poets" if (root / "poets").is_dir() else root
    dirs = sorted(p for p in base.iterdir() if p.is_dir())
    found = [p for p in dirs if (p / "poet.json").is_file()]
    if not found:
        raise InputError(f"{root}: not a Ganjoor export (no poets/*/poet.json, no poet.json)")
    stray = [p for p in dirs if p not in found] if base.name == "poets" else []
    return found, stray


def poem_files(root: str | Path, on_error: Callable[[str], None] | None = None) -> list[tuple[Path, list[str]]]:
    """(poet folder, its poem files in path order) for every poet under root; a folder of
    the export's poets/ without poet.json is reported to on_error. The files are named by
    strings (132,000 Path objects cost seconds)."""
    root = Path(root)
    if not root.is_dir():
        raise InputError(f"{root}: not a folder")
    out = []
    poets, stray = _poets_dirs(root)
    for d in stray:
        if on_error:
            on_error(f"{d}: no poet.json; folder not read")
    for poet_dir in poets:
        files = []
        for dirpath, dirnames, filenames in os.walk(poet_dir, followlinks=False):
            dirnames.sort()
            for name in sorted(filenames):
                if name.endswith(".json") and name not in ("poet.json", "_cat.json"):
                    files.append(os.path.join(dirpath, name))
        out.append((poet_dir, files))
    return out


def _load(path: Path | str) -> dict:
    try:
        if not os.path.isfile(path):
            raise InputError(f"{path}: not a regular file")
        if os.stat(path).st_size > MAX_FILE:
            raise InputError(f"{path}: larger than {MAX_FILE // 2**20} MB")
        with open(path, "rb") as f:
            raw = f.read()
        data = parse_json(raw.decode("utf-8-sig"), raw)  # a byte-order mark is harmless
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not UTF-8 ({e.reason} at byte {e.start})") from None
    except json.JSONDecodeError as e:
        raise InputError(f"{path}: invalid JSON at line {e.lineno} column {e.colno}: {e.msg}") from None
    except RecursionError:
        raise InputError(f"{path}: JSON nested too deeply") from None
    except ValueError as e:  # e.g. an integer beyond Python's digit limit
        raise InputError(f"{path}: invalid JSON ({str(e).splitlines()[0][:120]})") from None
    except OSError as e:
        raise InputError(f"{path}: cannot read ({e.strerror})") from None
    if not isinstance(data, dict):
        raise InputError(f"{path}: expected a JSON object, found {type(data).__name__}")
    return data


@overload
def _str(d: dict, name: str, path: Path | str, *, required: Literal[True]) -> str: ...
@overload
def _str(d: dict, name: str, path: Path | str, *, required: bool = False) -> str | None: ...
def _str(d: dict, name: str, path: Path | str, *, required: bool = False) -> str | None:
    value = d.get(name)
    if value is None:
        if required:
            raise InputError(f"{path}: missing {name!r}")
        return None
    if not isinstance(value, str):
        raise InputError(f"{path}: {name!r} must be a string, not {type(value).__name__}")
    return nfc(value)  # stored text; parse_json already refused lone surrogates


def _id(d: dict, path: Path | str) -> int | None:
    """The record's Ganjoor Id: an integer SQLite can store, or None when absent/not a number."""
    value = d.get("Id")
    if not isinstance(value, int) or isinstance(value, bool):
        return None
    if not 0 <= value <= MAX_ID:
        raise InputError(f"{path}: 'Id' must be an integer from 0 to 2^63-1")
    return value


# what a file of the wrong shape raises where a check is missing: still that file's fault
SHAPE_ERRORS = (TypeError, ValueError, KeyError, AttributeError, IndexError, RecursionError)


def malformed(path: Path | str, e: Exception) -> InputError:
    """The one line for a file whose shape the reader did not expect."""
    message = (str(e).strip().splitlines() or [""])[0][:160]
    return InputError(f"{path}: malformed ({type(e).__name__}{': ' + message if message else ''})")


def read_poet(poet_dir: Path) -> dict:
    try:
        return _read_poet(poet_dir)
    except SHAPE_ERRORS as e:
        raise malformed(poet_dir / "poet.json", e) from None


def _read_poet(poet_dir: Path) -> dict:
    d = _load(poet_dir / "poet.json")
    return {
        "slug": poet_dir.name,
        "ganjoor_id": _id(d, poet_dir / "poet.json"),
        "name": _str(d, "Name", poet_dir / "poet.json") or "",
        "nickname": _str(d, "Nickname", poet_dir / "poet.json") or poet_dir.name,
        "death_year": _year(d.get("DeathYearInLHijri")),
    }


def _year(value) -> int | None:
    """A death year in lunar Hijri years (the export writes 0 or nothing when unknown; its
    ValidDeathDate false still has the right century, so the year is used)."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 < value < 10_000:
        return value
    return None


def quotes_others(full_title: str | None) -> bool:
    """Whether the poem is part of a listed work that quotes other poets (QUOTING_WORKS)."""
    parts = [corpus_key(p) for p in (full_title or "").split("»")[1:]]
    return any(k in p for p in parts for k in _QUOTING_KEYS)


def _form(d: dict) -> str | None:
    sections = d.get("Sections")
    for s in sections if isinstance(sections, list) else []:
        if isinstance(s, dict) and s.get("SectionType") == "WholePoem" and isinstance(s.get("PoemFormat"), str):
            return s["PoemFormat"]
    return None


def read_poem(path: Path | str, poet_slug: str) -> CorpusPoem:
    """One poem file parsed, with normalized copies; InputError names the file and reason."""
    d = _load(path)
    url = _str(d, "FullUrl", path, required=True)
    if not url.startswith(f"/{poet_slug}/") and url != f"/{poet_slug}":
        raise InputError(f"{path}: FullUrl {url!r} is not under /{poet_slug}")
    verses = d.get("Verses")
    if not isinstance(verses, list):
        raise InputError(f"{path}: 'Verses' must be a list")
    metre = d.get("Metre")
    if metre is not None and not (isinstance(metre, dict) and isinstance(metre.get("Rhythm"), str)):
        raise InputError(f"{path}: 'Metre' must be null or {{Id, Rhythm}}")
    entries: list[tuple[int, int, str]] = []  # (slot 0/1, couplet index, text), in verse order
    for n, v in enumerate(verses, 1):
        if not isinstance(v, dict):
            raise InputError(f"{path}: verse {n} is not an object")
        pos, text, index = v.get("Position"), v.get("Text"), v.get("CoupletIndex")
        if not isinstance(pos, str) or (pos not in _FIRST and pos not in _SECOND):
            continue  # prose paragraph, comment: not verse
        if (not isinstance(text, str) or not isinstance(index, int) or isinstance(index, bool)
                or not 0 <= index <= MAX_COUPLETS):
            raise InputError(f"{path}: verse {n} needs a string Text and a CoupletIndex from 0 to {MAX_COUPLETS}")
        if len(text) > MAX_HEMISTICH:
            raise InputError(f"{path}: verse {n} is longer than {MAX_HEMISTICH} characters ({len(text)})")
        entries.append((0 if pos in _FIRST else 1, index, nfc(text)))
    halves, notes = pair_verses(entries)
    couplets = [(i, a, b, corpus_key_once(a), corpus_key_once(b)) for i, (a, b) in sorted(halves.items())]
    title = _str(d, "Title", path) or ""
    rhyme = _str(d, "RhymeLetters", path)
    form = _form(d)
    digest = hashlib.sha256(json.dumps(
        [poet_slug, url, title, form, metre and metre["Rhythm"], rhyme, couplets],
        ensure_ascii=False).encode()).hexdigest()
    return CorpusPoem(path=url, ganjoor_id=_id(d, path), title=title,
                      form=form, metre=metre["Rhythm"] if metre else None, rhyme=rhyme,
                      couplets=couplets, sha256=digest,
                      quoting=quotes_others(_str(d, "FullTitle", path)),
                      notes=tuple(f"{path}: {note}" for note in notes))


def pair_verses(entries: list[tuple[int, int, str]]) -> tuple[dict[int, list[str]], list[str]]:
    """Couplet index -> [first, second hemistich] from (slot, index, text) in verse order, and
    notes on misnumbered couplets. A couplet index given to two first (or second) hemistichs is
    repaired when the verse order decides it: first and second hemistichs alternate, and the
    couplets numbered by their first hemistichs (else by their second ones) rise strictly.
    Otherwise the couplets with a doubled index alone are skipped."""
    halves: dict[int, list[str]] = {}
    doubled: set[int] = set()
    for slot, index, text in entries:
        pair = halves.setdefault(index, ["", ""])
        if pair[slot]:
            doubled.add(index)
        else:
            pair[slot] = text
    if not doubled:
        return halves, []
    pairs: list[list] = []  # [first's index, second's index, first, second]
    alternate = True
    for slot, index, text in entries:
        if slot == 0:
            pairs.append([index, None, text, ""])
        elif pairs and pairs[-1][1] is None:
            pairs[-1][1], pairs[-1][3] = index, text
        else:
            alternate = False
            break
    if alternate:
        for numbering in ([p[0] for p in pairs], [p[0] if p[1] is None else p[1] for p in pairs]):
            if all(a < b for a, b in zip(numbering, numbering[1:], strict=False)):
                moved = sorted({n for n, p in zip(numbering, pairs, strict=True)
                                if p[1] is not None and p[0] != p[1]})
                return ({n: [p[2], p[3]] for n, p in zip(numbering, pairs, strict=True)},
                        [f"couplet {', '.join(map(str, moved))} renumbered by verse order "
                         f"(a hemistich had the index of its neighbour)"])
    for index in doubled:
        del halves[index]
    return halves, [f"couplet {i} skipped: two hemistichs in one place and the verse order does not say "
                    "which couplet each belongs to" for i in sorted(doubled)]


def default_workers() -> int:
    """Worker processes reading files while this one writes: the cores but one, 1 to 4."""
    return max(1, min(4, (os.cpu_count() or 1) - 1))


def _read_chunk(job: tuple[str, list[str]]) -> list[CorpusPoem | str]:
    """A poet's poem files read: each a CorpusPoem or the line saying why it was skipped."""
    slug, files = job
    out: list[CorpusPoem | str] = []
    for f in files:
        try:
            out.append(read_poem(f, slug))
        except InputError as e:
            out.append(str(e))
        except SHAPE_ERRORS as e:  # a shape no check foresaw: this file is skipped, the import goes on
            out.append(str(malformed(f, e)))
    return out


def _read_all(jobs: list[tuple[str, list[str]]], workers: int) -> Iterator[list[CorpusPoem | str]]:
    """_read_chunk of each job, in order: here (workers 0) or in worker processes."""
    if workers <= 0:
        return map(_read_chunk, jobs)
    return ordered_map(_read_chunk, jobs, workers)


def _parsed(root: str | Path, progress: ImportProgress, on_error: Callable[[str], None],
            workers: int | None = None) -> Iterator[tuple[dict, CorpusPoem]]:
    plan = poem_files(root, on_error)
    progress.total = sum(len(files) for _, files in plan)
    if workers is None:
        workers = default_workers() if progress.total >= WORKERS_FROM else 0
    poets: list[tuple[dict | str, list[str]]] = []  # (poet, or why its poet.json was refused; files)
    for poet_dir, files in plan:
        try:
            poets.append((read_poet(poet_dir), files))
        except InputError as e:
            poets.append((str(e), files))
    jobs = [(poet["slug"], files[i:i + CHUNK]) for poet, files in poets if isinstance(poet, dict)
            for i in range(0, len(files), CHUNK)]
    read = iter(_read_all(jobs, workers))
    first_file: dict[str, str] = {}  # poem path -> the file it was read from
    try:
        for poet, files in poets:
            if isinstance(poet, str):
                on_error(poet)
                progress.skipped += len(files)
                progress.done += len(files)
                continue
            for i in range(0, len(files), CHUNK):
                for f, poem in zip(files[i:i + CHUNK], next(read), strict=True):
                    if isinstance(poem, str):
                        on_error(poem)
                        progress.skipped += 1
                        progress.done += 1
                        continue
                    progress.notes.extend(poem.notes)
                    if (seen := first_file.setdefault(poem.path, f)) != f:
                        on_error(f"{f}: FullUrl {poem.path} is also the poem of {seen}; skipped")
                        progress.skipped += 1
                        progress.done += 1
                        continue
                    yield poet, poem
    finally:
        if isinstance(read, Generator):
            read.close()  # the worker processes stop


def import_corpus(store: Store, root: str | Path, *, strict: bool = False, workers: int | None = None,
                  on_progress: Callable[[ImportProgress], None] | None = None) -> ImportProgress:
    """Import (or refresh) the poems under root. Malformed files are skipped and listed;
    with strict, every file is checked first and nothing is written if one is malformed.
    `workers`: processes reading and normalizing the files while this one writes (0: this
    process reads them; None: default_workers() for an export of WORKERS_FROM files or more)."""
    progress = ImportProgress()
    if strict:
        check = ImportProgress()
        for _ in _parsed(root, check, check.errors.append, workers):
            pass
        if check.errors:
            raise InputError(f"{check.errors[0]} ({len(check.errors)} malformed file(s); nothing written)")
    batch: list[tuple[dict, CorpusPoem]] = []
    size = 0

    def flush(long: bool = False) -> None:
        nonlocal size
        size = 0
        counts = store.corpus.upsert_long_poem(*batch[0], BATCH_COUPLETS) if long else store.corpus.upsert_poems(batch)
        if counts["new"] or counts["updated"]:
            store.corpus.merge_index()  # FTS5's own merging is off: it held the write lock for seconds
        progress.longest_lock, progress.transactions = max(held, default=0.0), len(held)
        progress.new += counts["new"]
        progress.updated += counts["updated"]
        progress.unchanged += counts["unchanged"]
        progress.couplets += counts["couplets"]
        progress.done += len(batch)
        batch.clear()
        if on_progress:
            on_progress(progress)

    with store.timing() as held:
        for item in _parsed(root, progress, progress.errors.append, workers):
            if len(item[1].couplets) > BATCH_COUPLETS:  # a long poem: its own transactions
                if batch:
                    flush()
                batch.append(item)
                flush(long=True)
                continue
            if size + len(item[1].couplets) > BATCH_COUPLETS and batch:
                flush()
            batch.append(item)
            size += len(item[1].couplets)
            if len(batch) >= BATCH:
                flush()
        if batch:
            flush()
        if progress.new or progress.updated:
            store.corpus.merge_index(final=True)  # one segment: the fastest searches and links
            progress.quoting = store.corpus.mark_quoting()
    progress.longest_lock, progress.transactions = max(held, default=0.0), len(held)
    if on_progress:
        on_progress(progress)
    return progress
