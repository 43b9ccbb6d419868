"""Opening input files: only regular files, never more than a cap; `InputError`, what every
reader raises about a bad input file.

A FIFO, socket or device given to an importer (or found in a folder given to one) is refused at
once, before anything is read: opening happens with O_NONBLOCK (a FIFO with no writer cannot
block) and the kind is checked on the open descriptor. A file larger than its cap is refused
with the cap named, and reading stops at the cap even if the file grows meanwhile."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .outputs import file_kind

MAX_INPUT_BYTES = 128 * 2**20  # a question, label, prediction or reasoning file


class InputError(Exception):
    """Bad input file: the message names the file, the record and the reason."""


def _mb(n: int) -> str:
    return f"{n / 2**20:g} MB"


def check_regular(path: Path) -> os.stat_result:
    """The file's status, or an InputError when it is missing or not a regular file."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except OSError as e:
        raise InputError(f"{path}: cannot read ({(e.strerror or str(e)).lower()})") from None
    if not stat.S_ISREG(st.st_mode):
        raise InputError(f"{path}: is {file_kind(st.st_mode)}; importers read regular files only")
    return st


def read_input(path: str | Path, limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes, else an InputError naming the
    file and why (missing, a FIFO/device/socket/folder, larger than the cap, unreadable)."""
    path = Path(path)
    check_regular(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except OSError as e:
        raise InputError(f"{path}: cannot read ({(e.strerror or str(e)).lower()})") from None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())  # what was opened (it may have been swapped since the check)
        if not stat.S_ISREG(st.st_mode):
            raise InputError(f"{path}: is {file_kind(st.st_mode)}; importers read regular files only")
        if st.st_size > limit:
            raise InputError(f"{path}: {_mb(st.st_size)} is larger than the {_mb(limit)} an input "
                             "file may be")
        try:
            data = f.read(limit + 1)
        except OSError as e:
            raise InputError(f"{path}: cannot read ({(e.strerror or str(e)).lower()})") from None
    if len(data) > limit:
        raise InputError(f"{path}: larger than the {_mb(limit)} an input file may be")
    return data
