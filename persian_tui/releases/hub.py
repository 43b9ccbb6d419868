"""`persian-tui release NAME --push REPO`: upload the written release to a Hugging Face dataset
repository with `huggingface_hub` (installed separately; not a dependency). The token is
huggingface_hub's own (HF_TOKEN, or the one `hf auth login` stored); it is never read, printed or
stored here, and every hub message is redacted before it is shown.

What is uploaded is the release's manifest (release.json) and exactly the files it lists, each
checked against its sha256, in one commit: never the folder. Anything else in the folder is left
out and named; a folder holding a database file, or the folder of the open database, is refused.
`--private` onto an existing public repository is refused (it would publish). Every hub reply is
read through a cap (HUB_REPLY_BYTES, inflated by the tool) within HUB_REPLY_SECONDS, as the model
endpoints' are (runs/transport.py), so an endless or bomb reply ends in one line."""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .. import redact
from ..files.inputs import InputError, read_input
from ..files.outputs import is_database, symlink_within
from ..runs.transport import capped_sync, http_module
from ..store.registry import database_files

REPO_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95}")
MANIFEST = "release.json"
HUB_REPLY_BYTES = 16 * 2**20  # a hub reply's body, inflated (repository info, commit answers: JSON)
HUB_REPLY_SECONDS = 600.0  # a request and its whole reply (an upload of a release's files included)


def capped_hub_factory(hub_session: Callable[[], Any]) -> Callable[[], object]:
    """A client factory for huggingface_hub's `set_client_factory`: clients with the hub's own
    request hooks (offline mode, request ids), read from the client its public `get_session`
    (``hub_session``) gives now, whose every reply is read through the cap and the deadline."""
    client = hub_session()
    event_hooks = {name: list(hooks) for name, hooks in client.event_hooks.items()}

    def capped_hub_client() -> object:
        http = http_module()
        transport = capped_sync(http.HTTPTransport(), HUB_REPLY_BYTES, HUB_REPLY_SECONDS)
        return http.Client(transport=transport, event_hooks=event_hooks, follow_redirects=True,
                           timeout=HUB_REPLY_SECONDS)

    return capped_hub_client


def release_files(folder: Path) -> tuple[list[str], list[str]]:
    """(the manifest's files and the manifest, each checked; everything else in the folder).
    InputError for a folder that is (or holds) a database, a file that is not what the manifest
    says, or a path that leaves the folder."""
    real = os.path.realpath(folder)
    for db, _ in database_files():
        if os.path.dirname(os.path.realpath(db)) == real:
            raise InputError(f"{folder}: is the folder of the database {db}; nothing is uploaded from it")
    others = []
    for root, _, names in os.walk(folder):
        for name in names:
            path = Path(root) / name
            if is_database(path) or any(os.path.realpath(side) == os.path.realpath(path)
                                         for _, side in database_files()):
                raise InputError(f"{path}: is a database file; a release folder holding one is never "
                                 "uploaded (move it out)")
            others.append(path.relative_to(folder).as_posix())
    try:
        manifest = json.loads(read_input(folder / MANIFEST).decode("utf-8"))
        files = manifest["files"]
        if not isinstance(files, dict):
            raise TypeError
    except (InputError, ValueError, UnicodeDecodeError, KeyError, TypeError):
        raise InputError(f"{folder / MANIFEST}: not a release manifest listing its files; write the release "
                         "again (persian-tui release NAME) before pushing") from None
    for rel, sha in files.items():
        path = folder / rel
        if not isinstance(rel, str) or Path(rel).is_absolute() or ".." in Path(rel).parts \
                or symlink_within(path, folder):
            raise InputError(f"{folder / MANIFEST}: lists {rel!r}, not a file of the release folder")
        if hashlib.sha256(read_input(path)).hexdigest() != sha:
            raise InputError(f"{path}: changed since the release was written (its sha256 differs from "
                             f"{MANIFEST}); write the release again")
    listed = sorted(files) + [MANIFEST]
    return listed, sorted(set(others) - set(listed))


def _message(e: Exception) -> str:
    """The hub's error in one line, secrets masked (a server may echo the Authorization header)."""
    lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()] or [type(e).__name__]
    return (redact.text(" ".join(lines)) or "")[:400]


def push_release(folder: Path, repo: str, message: str, *, private: bool = False) -> tuple[str, list[str]]:
    """Upload the release in `folder` to the dataset repository `repo` (owner/name); returns
    (its URL, the lines to print: files left out, the repository's visibility)."""
    if not REPO_ID.fullmatch(repo):
        raise InputError(f"--push takes a repository id such as owner/persian-outlier (got {repo!r})")
    folder = Path(folder)
    files, left_out = release_files(folder)
    try:
        from huggingface_hub import CommitOperationAdd, HfApi, get_session, get_token, set_client_factory
        from huggingface_hub.errors import RepositoryNotFoundError
    except ImportError:  # set_client_factory (the capped client) since huggingface_hub 1.0
        raise InputError("--push needs huggingface_hub 1.0 or later: pip install -U huggingface_hub "
                         f"(the folder {folder} is written; upload it by hand otherwise)") from None
    if not get_token():
        raise InputError("--push needs a Hugging Face token: set HF_TOKEN or run `hf auth login` "
                         f"(the folder {folder} is written)")
    set_client_factory(capped_hub_factory(get_session))  # type: ignore[arg-type]
    api = HfApi()
    notes = []
    if left_out:
        shown = ", ".join(left_out[:10]) + (" ..." if len(left_out) > 10 else "")
        notes.append(f"not uploaded: {len(left_out)} file(s) in {folder} that are not part of the release: {shown}")
    try:
        try:
            info = api.repo_info(repo, repo_type="dataset")
        except RepositoryNotFoundError:
            info = None
        if info is None:
            api.create_repo(repo, repo_type="dataset", private=private)
            notes.append(f"created the {'private' if private else 'public'} dataset repository {repo}")
        elif private and not info.private:
            raise InputError(f"--push {repo} --private: the repository exists and is public; nothing was uploaded "
                             "(make it private on the hub first, or push without --private to publish)")
        elif not info.private:
            notes.append(f"{repo} is a public repository: the release is published")
        ops = [CommitOperationAdd(path_in_repo=rel, path_or_fileobj=str(folder / rel)) for rel in files]
        api.create_commit(repo, ops, commit_message=message, repo_type="dataset")
    except InputError:
        raise
    except Exception as e:  # noqa: BLE001 - network, permission, quota: one line, the folder stays
        raise InputError(f"--push {repo}: {_message(e)} (the folder {folder} is written)") from None
    return f"https://huggingface.co/datasets/{repo}", notes
