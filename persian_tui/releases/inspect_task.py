"""The release's Inspect task (UK AISI's evaluation harness): `persian-tui release NAME` writes

    NAME/inspect_task.py     a `@task` that reads data/test.jsonl, asks each keyed question with
                             the project's zero-shot prompt and scores the reply with the project's
                             answer parser
    NAME/outlier_parser/     that parser: verbatim copies of persian_tui/runs/parse.py and the
                             modules it imports (parse_vocab.py; standard library only)

The task imports only `inspect_ai` and the standard library (and the parser beside it, loaded by path), so
`inspect eval NAME/inspect_task.py --model openai-api/<name>/<model>` runs it where persian-tui is
not installed. The task and the parser's module are named for the release (releases/task_names.py),
so two releases run in one `inspect eval` each score with their own parser. The prompt's text comes
from runs/prompts.py (written into the file as literals): its messages are
`prompts.render("zero-shot", q).messages`; tests check both."""

from __future__ import annotations

import re
from importlib import resources

from ..runs import prompts
from .task_names import task_base

TASK_FILE = "inspect_task.py"
PARSER_DIR = "outlier_parser"  # a package: parse.py keeps its relative imports
STRATEGY = "zero-shot"
# the generated files' loader of the parser package (PARSER_DIR in the folder `base`, described
# as `where`) under a module name of this release only: one text for the Inspect task and lm-eval's utils.py
PARSER_LOADER = '''def _load_parser():
    """The {parser}/ package {where}, loaded by path (sys.path is left alone) as the module
    {module}, a name of this release only: another release's parser never stands in for it."""
    name = "{module}"
    if name not in sys.modules:
        folder = {base} / "{parser}"
        spec = importlib.util.spec_from_file_location(name, folder / "__init__.py",
                                                      submodule_search_locations=[str(folder)])
        package = importlib.util.module_from_spec(spec)
        sys.modules[name] = package  # its modules import each other relatively
        spec.loader.exec_module(package)
    return importlib.import_module(name + ".parse").parse_answer
'''


def parser_module(release_name: str, digest: str) -> str:
    """The parser package's module name in a harness's process: unique to the release."""
    return task_base(release_name, digest) + "_parser"


def parser_loader(base: str, where: str, release_name: str, digest: str) -> str:
    """PARSER_LOADER for a generated file whose folder variable is `base`."""
    return PARSER_LOADER.format(parser=PARSER_DIR, base=base, where=where,
                                module=parser_module(release_name, digest))


def parser_files() -> dict[str, str]:
    """The answer parser's modules as shipped in the package (its one definition): parse.py and
    every module of persian_tui.runs it imports, relative path -> text, and an __init__.py."""
    package = resources.files("persian_tui.runs")
    out, todo = {}, ["parse"]
    while todo:
        name = todo.pop()
        if f"{PARSER_DIR}/{name}.py" in out:
            continue
        text = package.joinpath(f"{name}.py").read_text(encoding="utf-8")
        out[f"{PARSER_DIR}/{name}.py"] = text
        todo += re.findall(r"^from \. import (\w+)", text, re.M) + re.findall(r"^from \.(\w+) import", text, re.M)
    init = ("# persian-tui's answer parser, copied verbatim from persian_tui/runs/ by `persian-tui release` "
            "(standard library only)\n")
    return {f"{PARSER_DIR}/__init__.py": init, **dict(sorted(out.items()))}


def task_source(release_name: str, digest: str) -> str:
    system, instruction = prompts.TEMPLATES[STRATEGY]
    return _TEMPLATE.format(
        name=release_name, digest=repr(digest), task=task_base(release_name, digest), system=repr(system),
        user_head=repr(prompts.USER_HEAD),
        option_line=repr(prompts.OPTION_LINE), instruction=repr(instruction),
        template=repr(f"{STRATEGY}/{prompts.VERSIONS[STRATEGY]}"), hash=repr(prompts.TEMPLATE_HASHES[STRATEGY]),
        parser=PARSER_DIR, data=repr("data/test.jsonl"),
        loader=parser_loader("HERE", "beside this file", release_name, digest))


_TEMPLATE = '''"""Inspect task for the persian-tui release {name}: Persian poetry outlier questions.

    inspect eval path/to/{name}/inspect_task.py --model openai-api/<name>/<model> --log-dir logs
    # with <NAME>_BASE_URL and <NAME>_API_KEY set; run it from outside this folder (or give --log-dir),
    # so Inspect's logs/ is not written into the release

The task is {task}: named for this release (its name and digest), as is the parser's module.
Imports only inspect_ai and the standard library; the answer parser is the {parser}/ folder
beside this file (a verbatim copy of persian-tui's). Each keyed question of data/test.jsonl is asked with
persian-tui's zero-shot prompt (the seed benchmark's), temperature 0; a reply is correct when the
parser reads the key's number from it. `persian-tui import-predictions LOG` reads the log back.
Written by `persian-tui release`; regenerate it rather than edit it."""

import importlib.util
import json
import os
import sys
from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser, GenerateConfig
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Target, accuracy, scorer, stderr
from inspect_ai.solver import TaskState, generate

HERE = Path(__file__).resolve().parent


{loader}

parse_answer = _load_parser()


def _note_logs_here():
    """Inspect writes its logs to ./logs of the working folder unless told otherwise: say so when
    that folder is this release's (the logs would land in the folder you publish)."""
    cwd = Path.cwd().resolve()
    told = os.environ.get("INSPECT_LOG_DIR") or any(a.startswith("--log-dir") for a in sys.argv)
    if (cwd == HERE or HERE in cwd.parents) and not told:
        print(f"note: Inspect writes its logs to {{cwd / 'logs'}}, inside the release folder; run it from "
              "outside the folder or give --log-dir", file=sys.stderr)


_note_logs_here()

RELEASE = {name!r}
DIGEST = {digest}
TEMPLATE = {template}  # persian-tui's prompt strategy/version
TEMPLATE_HASH = {hash}
SYSTEM = {system}
USER_HEAD = {user_head}
OPTION_LINE = {option_line}
INSTRUCTION = {instruction}


def messages(record):
    """The chat messages persian-tui sends for this question (options in their stored order)."""
    options = sorted(record["options"], key=lambda o: o["position"])
    lines = "\\n".join(OPTION_LINE.format(n=i, mesra1=o["mesra1"], mesra2=o["mesra2"])
                      for i, o in enumerate(options, 1))
    return [ChatMessageSystem(content=SYSTEM), ChatMessageUser(content=USER_HEAD + lines + "\\n\\n" + INSTRUCTION)]


def samples(path=HERE / {data}):
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            if record.get("key") is None:
                continue  # no key, nothing to score
            out.append(Sample(id=record["uid"], input=messages(record), target=str(record["key"]),
                              metadata={{"uid": record["uid"], "category": record.get("category")}}))
    return MemoryDataset(out, name=RELEASE)


@scorer(metrics=[accuracy(), stderr()])
def outlier_answer():
    """Correct when persian-tui's parser reads the key from the reply (status ok)."""
    async def score(state: TaskState, target: Target) -> Score:
        parsed = parse_answer(state.output.completion)
        right = parsed.status == "ok" and str(parsed.answer) == target.text
        return Score(value=CORRECT if right else INCORRECT,
                     answer=None if parsed.answer is None else str(parsed.answer),
                     explanation=f"parse {{parsed.status}} ({{parsed.method}})",
                     metadata={{"parse_status": parsed.status, "method": parsed.method}})
    return score


@task
def {task}():
    return Task(dataset=samples(), solver=[generate()], scorer=outlier_answer(),
                config=GenerateConfig(temperature=0.0),
                metadata={{"release": RELEASE, "digest": DIGEST, "template": TEMPLATE}})
'''
