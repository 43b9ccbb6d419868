"""Names of a release in other harnesses: `task_base(name, digest)` is ASCII (a slug of the name)
plus a short hash of the exact name and digest, so `نسخه-۱` and `ن`, or `v1.0` and `V1-0`, never share
a task name, a tag's member or the parser's module name, and the same release always gets the same."""

from __future__ import annotations

import hashlib
import re

PREFIX = "persian_outlier"


def task_base(release_name: str, digest: str) -> str:
    """`persian_outlier_<slug>_<hash8>` (`persian_outlier_<hash8>` for a name with no ASCII letter or
    digit): lower-case letters, digits and underscores, a valid Python identifier and lm-eval task."""
    slug = re.sub(r"[^a-z0-9]+", "_", release_name.lower()).strip("_")[:40].strip("_")
    short = hashlib.sha256(f"{release_name}\n{digest}".encode()).hexdigest()[:8]
    return "_".join(p for p in (PREFIX, slug, short) if p)
