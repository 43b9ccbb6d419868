"""`persian-tui release NAME --push REPO`: upload the written release folder to a Hugging Face
dataset repository with `huggingface_hub` (installed separately; not a dependency). The token is
huggingface_hub's own (HF_TOKEN, or the one `hf auth login` stored); it is never read, printed or
stored here. Kept thin: create the repository if needed, upload the folder in one commit."""

from __future__ import annotations

import re
from pathlib import Path

from ..files.inputs import InputError

REPO_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95}")


def push_release(folder: Path, repo: str, message: str, *, private: bool = False) -> str:
    """Upload `folder` to the dataset repository `repo` (owner/name); returns its URL."""
    if not REPO_ID.fullmatch(repo):
        raise InputError(f"--push takes a repository id such as owner/persian-outlier (got {repo!r})")
    try:
        from huggingface_hub import HfApi, get_token
    except ImportError:
        raise InputError("--push needs huggingface_hub: pip install huggingface_hub "
                         f"(the folder {folder} is written; upload it by hand otherwise)") from None
    if not get_token():
        raise InputError("--push needs a Hugging Face token: set HF_TOKEN or run `hf auth login` "
                         f"(the folder {folder} is written)")
    api = HfApi()
    try:
        api.create_repo(repo, repo_type="dataset", exist_ok=True, private=private)
        api.upload_folder(folder_path=str(folder), repo_id=repo, repo_type="dataset", commit_message=message)
    except Exception as e:  # noqa: BLE001 - network, permission, quota: one line, the folder stays
        first = (str(e).strip().splitlines() or [type(e).__name__])[0][:300]
        raise InputError(f"--push {repo}: {first} (the folder {folder} is written)") from None
    return f"https://huggingface.co/datasets/{repo}"
