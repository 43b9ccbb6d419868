"""The files a release folder carries for other harnesses: Inspect's task (releases/inspect_task.py)
and lm-evaluation-harness's task folder (releases/lmeval_task.py), under the release's own names
(releases/task_names.py). Relative path -> text."""

from __future__ import annotations

from . import inspect_task, lmeval_task


def harness_files(release_name: str, digest: str) -> dict[str, str]:
    return {inspect_task.TASK_FILE: inspect_task.task_source(release_name, digest),
            **inspect_task.parser_files(),
            **lmeval_task.files(release_name, digest)}
