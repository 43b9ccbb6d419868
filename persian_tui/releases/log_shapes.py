"""What a harness log may hold, checked before it is used (releases/harness_logs.py): JSON within a
nesting cap, zip members within a size cap, each field of the shape it should have, finite
numbers, replies within a length cap. A wrong shape is one InputError naming the file, the sample
(or line) and the field; never a traceback."""

from __future__ import annotations

import json
import math
import zipfile
from pathlib import Path
from typing import Any, NoReturn

from ..files.inputs import MAX_INPUT_BYTES, InputError

MAX_MEMBER_BYTES = 64 * 2**20  # one member of an .eval zip, uncompressed
MAX_MEMBERS = 200_000
MAX_REPLY_CHARS = 32_000  # a reply kept (and parsed) from a harness log; the rest is cut, and said


def _bytes(n: int) -> str:
    return f"{n:,} bytes"


def loads(data: bytes | str, where: str) -> Any:
    """JSON with NaN/Infinity read as None-able floats (checked later) and nesting capped."""
    try:
        return json.loads(data)
    except RecursionError:
        raise InputError(f"{where}: JSON nested too deeply to read (more than about "
                         f"{_depth_cap()} levels)") from None


def _depth_cap() -> int:
    import sys

    return sys.getrecursionlimit()


def kind(value: Any) -> str:
    if value is None:
        return "null"
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}.get(
        type(value), "a number" if isinstance(value, (int, float)) else type(value).__name__)


def refuse(where: str, field: str, value: Any, want: str) -> NoReturn:
    raise InputError(f"{where}: `{field}` is {kind(value)}, not {want}")


def obj(value: Any, where: str, field: str) -> dict:
    """A JSON object (a missing/null one is empty)."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        refuse(where, field, value, "an object")
    return value


def seq(value: Any, where: str, field: str) -> list:
    """A JSON list (a missing/null one is empty)."""
    if value is None:
        return []
    if not isinstance(value, list):
        refuse(where, field, value, "a list")
    return value


def text(value: Any, where: str, field: str, *, default: str | None = None) -> str | None:
    if value is None:
        return default
    if not isinstance(value, str):
        refuse(where, field, value, "a string")
    return value


def ident(value: Any, where: str, field: str) -> str:
    """A sample id: a string or a whole number."""
    if isinstance(value, bool) or not isinstance(value, (str, int)) or value == "":
        refuse(where, field, value, "a string or a whole number")
    return str(value)


def count(value: Any, where: str, field: str) -> int | None:
    """A token count: a whole number >= 0, or None."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InputError(f"{where}: `{field}` is {value!r}, not a whole number >= 0")
    return value


def epoch(value: Any, where: str) -> int:
    """An epoch: a whole number >= 1 (missing: 1)."""
    if value is None:
        return 1
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InputError(f"{where}: `epoch` is {json.dumps(value)[:40]}, not a whole number >= 1")
    return value


def finite(value: Any) -> Any:
    """A score as stored: a finite number, a string, a boolean or None (NaN, infinities and
    nested values become None: the store writes JSON only)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, (dict, list)):
        return None
    return value


def reply(value: str, cut: list[int]) -> str:
    """A reply within MAX_REPLY_CHARS: a longer one is kept as its head and tail (an answer
    usually closes a reply; runs/llm_client.cut_long's rule, with a cap that keeps the parser
    quick), its length noted in `cut`."""
    if len(value) <= MAX_REPLY_CHARS:
        return value
    cut.append(len(value))
    half = MAX_REPLY_CHARS // 2 - 32
    return f"{value[:half]}\n[… {len(value) - 2 * half} characters cut …]\n{value[-half:]}"


def _number(value: Any) -> float | None:
    """A loglikelihood as lm-eval writes it: a number, or (lm-eval 0.4) a string of one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def loglikelihoods(resps: list, where: str) -> list[float] | None:
    """The loglikelihoods of a multiple_choice sample (None: not one): a `[loglikelihood, greedy]`
    per couplet, nested once more or not (`[[["-8.42", "False"]], ...]`, `[[-8.42, false], ...]`),
    numbers or strings of numbers; exactly four, finite or -inf, not all -inf."""
    if len(resps) < 2 or not all(isinstance(r, list) and r for r in resps):
        return None
    found = [_number(r[0][0] if isinstance(r[0], list) and r[0] else r[0]) for r in resps]
    if any(x is None for x in found):
        raise InputError(f"{where}: `resps` holds a loglikelihood that is not a number")
    values = [x for x in found if x is not None]
    if len(values) != 4:
        raise InputError(f"{where}: {len(values)} loglikelihoods; a question has four couplets")
    if any(math.isnan(x) or x == math.inf for x in values):
        raise InputError(f"{where}: a loglikelihood is NaN or +infinity; no answer can be read")
    if all(x == -math.inf for x in values):
        raise InputError(f"{where}: every loglikelihood is -infinity; no answer can be read")
    return values


def zip_members(path: Path, z: zipfile.ZipFile) -> list[zipfile.ZipInfo]:
    """The members of an .eval zip, each and all together within the caps (their declared sizes:
    zipfile never reads past them)."""
    infos = z.infolist()
    if len(infos) > MAX_MEMBERS:
        raise InputError(f"{path}: {len(infos):,} zip members, more than the {MAX_MEMBERS:,} a log may hold")
    total = 0
    for info in infos:
        if info.file_size > MAX_MEMBER_BYTES:
            raise InputError(f"{path}: member {info.filename} is {_bytes(info.file_size)} uncompressed, over the "
                             f"{_bytes(MAX_MEMBER_BYTES)} cap")
        total += info.file_size
    if total > 4 * MAX_INPUT_BYTES:
        raise InputError(f"{path}: {_bytes(total)} uncompressed, over the {_bytes(4 * MAX_INPUT_BYTES)} cap")
    return infos


def read_member(path: Path, z: zipfile.ZipFile, info: zipfile.ZipInfo) -> Any:
    with z.open(info) as f:
        data = f.read(MAX_MEMBER_BYTES + 1)
    if len(data) > MAX_MEMBER_BYTES:
        raise InputError(f"{path}: member {info.filename} is over the {_bytes(MAX_MEMBER_BYTES)} cap")
    return loads(data, f"{path}: {info.filename}")


def repeated_members(infos: list[zipfile.ZipInfo]) -> bool:
    names = [i.filename for i in infos if i.filename.startswith("samples/")]
    return len(names) != len(set(names))
