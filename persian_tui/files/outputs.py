"""The one writer for exports and reports: atomic, and safe about what it writes over.

* Only a regular file (or a symlink to one, or nothing) is written: a directory, FIFO,
  socket or device at the target is refused with a ``WriteError``.
* A symlink is written through: its real target gets the new content, the link stays; a
  dangling symlink (on the file or on a folder on the way) is refused, no folder is made
  wherever it points.
* A database this process has opened, its -wal, -shm or -journal file, or anything that
  resolves to one of them (a symlink, a hard link: same device and inode) is refused.
* An existing file keeps its mode (and, where allowed, its owner); a new file is 0644.
* The temporary file is ``.NAME.persian-tui-PID-XXXX.tmp`` beside the real target; it is
  removed on any error, and temporaries left by a killed earlier run (their process is
  gone) are removed by the next write of the same file.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path

from ..store.registry import database_files

TAG = ".persian-tui-"
NEW_FILE_MODE = 0o644  # others on the host read exports


class WriteError(OSError):
    """A file cannot be written; the message names it and says why."""


def file_kind(mode: int) -> str:
    """What a non-regular file is, for a one-line refusal ("a FIFO (named pipe)", ...)."""
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device")):
        if test(mode):
            return name
    return "not a regular file"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, owned by someone else
        return True
    return True


def remove_stale_temps(target: Path) -> list[Path]:
    """Delete our temporaries for ``target`` whose writing process is gone."""
    removed: list[Path] = []
    head = f".{target.name}{TAG}"
    try:
        names = os.listdir(target.parent)
    except OSError:
        return removed
    for name in names:
        if not (name.startswith(head) and name.endswith(".tmp")):
            continue
        tmp, pid = target.parent / name, name[len(head):].split("-", 1)[0]
        if pid.isdigit() and not _alive(int(pid)):
            try:
                tmp.unlink()
                removed.append(tmp)
            except OSError:
                pass
    return removed


def _why(e: OSError) -> str:
    if e.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return f"{(e.strerror or str(e)).lower()} (the folder is read-only for you)"
    return (e.strerror or str(e)).lower()


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems cannot sync a folder
    finally:
        os.close(fd)


def _dangling(path: Path) -> Path | None:
    """The dangling symlink the path goes through (the file itself or a folder on the way)."""
    for p in (path, *path.parents):
        if os.path.lexists(p):
            return p if os.path.islink(p) and not os.path.exists(p) else None
    return None


def _same_file(a: str | Path, b: str | Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist
        return False


SQLITE_MAGIC = b"SQLite format 3\x00"
SIDE_FILES = ("-wal", "-shm", "-journal")


def is_database(path: str | Path) -> bool:
    """Whether the file is an SQLite database (its header says so), any database, open or not."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO would block the open
            return False
        with open(path, "rb") as f:
            return f.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:
        return False


def check_not_database(path: Path, real: Path) -> None:
    """Refuse a target that is (or resolves to) an open database or one of its side files, or
    any SQLite database (another persian-tui database, say) or the side file of one."""
    for db, side in database_files():
        if os.path.realpath(side) == str(real) or _same_file(side, real):
            what = "the database" if side == db else f"the database's {side[len(db):]} file"
            raise WriteError(f"{path}: is {what} {db}; nothing was written (choose another file)")
    if is_database(real):
        raise WriteError(f"{path}: is an SQLite database; an export never replaces one; nothing was written "
                         "(choose another file)")
    for suffix in SIDE_FILES:
        if real.name.endswith(suffix) and is_database(real.with_name(real.name[:-len(suffix)])):
            raise WriteError(f"{path}: is the {suffix} file of the database "
                             f"{real.with_name(real.name[:-len(suffix)])}; nothing was written (choose another file)")


def symlink_within(path: Path, root: Path) -> Path | None:
    """The first symlink among ``root`` and the folders and file from it down to ``path``."""
    root, path = Path(os.path.abspath(root)), Path(os.path.abspath(path))
    for p in (root, *reversed([q for q in path.parents if q.is_relative_to(root) and q != root]), path):
        if os.path.islink(p):
            return p
    return None


def write_atomic(path: Path, data: bytes, *, within: Path | None = None) -> None:
    """Readers see the old file or the new one, never half of it. ``within``: a folder whose
    contents are written only as they are: a symlink at or below it (the folder itself, one on
    the way, the file) is refused, never written through."""
    path = Path(path)
    if within is not None and (link := symlink_within(path, within)):
        raise WriteError(f"{path}: {link} is a symlink (to {os.readlink(link)}); a release folder is never "
                         "written through one; nothing more was written")
    if link := _dangling(Path(os.path.abspath(path))):
        where = "is" if link == Path(os.path.abspath(path)) else f"goes through {link},"
        raise WriteError(f"{path}: {where} a dangling symlink (to {os.readlink(link)}); nothing was written")
    real = Path(os.path.realpath(path))  # through symlinks
    check_not_database(path, real)
    st: os.stat_result | None
    try:
        st = os.stat(real)
    except FileNotFoundError:
        try:  # /dev/stdout onto a pipe: a link into /proc that realpath cannot name, a FIFO all the same
            st = os.stat(path) if os.path.islink(path) else None
        except OSError:
            st = None
    except OSError as e:
        raise WriteError(f"{path}: cannot write: {_why(e)}") from None
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise WriteError(f"{path}: is {file_kind(st.st_mode)}; exports only write regular files")
    try:
        real.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise WriteError(f"{path}: cannot create the folder {real.parent}: {_why(e)}") from None
    if not real.parent.is_dir():
        raise WriteError(f"{path}: {real.parent} is not a folder")
    remove_stale_temps(real)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{real.name}{TAG}{os.getpid()}-", suffix=".tmp",
                                   dir=real.parent)
    except OSError as e:
        raise WriteError(f"{path}: cannot write in {real.parent}: {_why(e)}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), stat.S_IMODE(st.st_mode) if st else NEW_FILE_MODE)
            if st is not None and (st.st_uid, st.st_gid) != (os.geteuid(), os.getegid()):
                try:
                    os.fchown(f.fileno(), st.st_uid, st.st_gid)
                except OSError:
                    pass  # not allowed: the file becomes ours, its mode is still kept
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, real)
        _fsync_dir(real.parent)  # the rename itself survives a crash
    except BaseException as e:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(e, OSError) and not isinstance(e, WriteError):
            raise WriteError(f"{path}: cannot write: {_why(e)}") from None
        raise
