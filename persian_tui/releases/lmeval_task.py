"""The release's lm-evaluation-harness task folder: `persian-tui release NAME` writes

    NAME/lm_eval/<task>_gen.yaml   generate_until, for chat endpoints (tag persian_outlier_chat): the
                                   project's zero-shot prompt (system text as `description`, so
                                   `--apply_chat_template` sends it as the system message; it ends
                                   in a blank line, so without a chat template it stays apart from
                                   the question), the reply read by the project's answer parser as
                                   a filter, exact_match against the key
    NAME/lm_eval/<task>_mc.yaml    multiple_choice, for local models (tag persian_outlier_loglik): the
                                   system text, a blank line, the question and "Answer:", the four
                                   options' numbers scored by loglikelihood (acc, acc_norm)
    NAME/lm_eval/utils.py          the dataset loader (data/test.jsonl of the release), the prompt
                                   and the filter; standard library only, plus `datasets` (which
                                   lm-eval installs) and outlier_parser/ of the release folder

<task> is the release's own name (releases/task_names.py). Run with `lm_eval --include_path
NAME/lm_eval --tasks <task>_gen ...` (or a tag: every release on the include path); `--log_samples`
output imports back with `persian-tui import-predictions`. The two tags are apart on purpose: a chat
endpoint cannot score loglikelihoods."""

from __future__ import annotations

from ..runs import prompts
from .inspect_task import PARSER_DIR, parser_loader
from .task_names import task_base

FOLDER = "lm_eval"
CHAT_TAG = "persian_outlier_chat"  # generate_until tasks: chat endpoints
LOGLIK_TAG = "persian_outlier_loglik"  # multiple_choice tasks: local models (loglikelihoods)


def task_name(release_name: str, digest: str) -> str:
    """lm-eval task names: lower-case letters, digits and underscores (`<name>_gen`, `<name>_mc`)."""
    return task_base(release_name, digest)


def files(release_name: str, digest: str) -> dict[str, str]:
    name = task_name(release_name, digest)
    system, instruction = prompts.TEMPLATES["zero-shot"]
    common = "dataset_path: json\ncustom_dataset: !function utils.load_release\ntest_split: test\n"
    meta = (f"metadata:\n  version: 1.0\n  release: {_yaml_str(release_name)}\n"
            f"  digest: {_yaml_str(digest)}\n")
    gen = (f"# persian-tui release {release_name}: chat endpoints (generate_until); the answer parser as a filter\n"
           f"task: {name}_gen\ntag: {CHAT_TAG}\n{common}description: {_yaml_str(system + SEPARATOR)}\n"
           "output_type: generate_until\n"
           "doc_to_text: !function utils.doc_to_text\ndoc_to_target: !function utils.doc_to_target\n"
           "generation_kwargs:\n  until: []\n  do_sample: false\n  temperature: 0.0\n  max_gen_toks: 512\n"
           "filter_list:\n  - name: parsed\n    filter:\n      - function: custom\n"
           "        filter_fn: !function utils.parse_filter\n      - function: take_first\n"
           "metric_list:\n  - metric: exact_match\n    aggregation: mean\n    higher_is_better: true\n" + meta)
    mc = (f"# persian-tui release {release_name}: local models (multiple_choice, loglikelihood of each "
          "option's number)\n"
          f"task: {name}_mc\ntag: {LOGLIK_TAG}\n{common}output_type: multiple_choice\n"
          "doc_to_text: !function utils.doc_to_text_mc\ndoc_to_choice: ['1', '2', '3', '4']\n"
          "doc_to_target: !function utils.doc_to_index\ntarget_delimiter: ' '\n"
          "metric_list:\n  - metric: acc\n    aggregation: mean\n    higher_is_better: true\n"
          "  - metric: acc_norm\n    aggregation: mean\n    higher_is_better: true\n" + meta)
    utils = _UTILS.format(system=repr(system), separator=repr(SEPARATOR),
                          user_head=repr(prompts.USER_HEAD), option_line=repr(prompts.OPTION_LINE),
                          instruction=repr(instruction), parser=PARSER_DIR,
                          loader=parser_loader("RELEASE", "of the release folder", release_name, digest))
    return {f"{FOLDER}/{name}_gen.yaml": gen, f"{FOLDER}/{name}_mc.yaml": mc, f"{FOLDER}/utils.py": utils}


SEPARATOR = "\n\n"  # after the system text when there is no chat template


def _yaml_str(text: str) -> str:
    """A double-quoted YAML scalar (JSON's escaping is valid YAML)."""
    import json

    return json.dumps(text, ensure_ascii=False)


_UTILS = '''"""lm-evaluation-harness helpers for a persian-tui release (written by `persian-tui release`).

Standard library only, plus `datasets` (an lm-eval dependency) and the release's {parser}/
(persian-tui's answer parser, copied verbatim). The prompt is persian-tui's zero-shot prompt: for
generate_until the system text is the task's `description` (a system message with
--apply_chat_template), doc_to_text the user message; for multiple_choice (plain text for a local
model) the system text, a blank line, the user message and "Answer:"."""

import importlib.util
import sys
from pathlib import Path

RELEASE = Path(__file__).resolve().parent.parent


{loader}

parse_answer = _load_parser()

SYSTEM = {system}
SEPARATOR = {separator}
USER_HEAD = {user_head}
OPTION_LINE = {option_line}
INSTRUCTION = {instruction}


def load_release(**kwargs):
    """The release's data/test.jsonl as the test split (questions without a key left out)."""
    import datasets

    ds = datasets.load_dataset("json", data_files={{"test": str(RELEASE / "data" / "test.jsonl")}})
    return ds.filter(lambda doc: doc["key"] is not None)


def _options(doc):
    options = sorted(doc["options"], key=lambda o: o["position"])
    return "\\n".join(OPTION_LINE.format(n=i, mesra1=o["mesra1"], mesra2=o["mesra2"])
                     for i, o in enumerate(options, 1))


def doc_to_text(doc):
    return USER_HEAD + _options(doc) + "\\n\\n" + INSTRUCTION


def doc_to_text_mc(doc):
    return SYSTEM + SEPARATOR + doc_to_text(doc) + "\\n\\nAnswer:"


def doc_to_target(doc):
    return str(doc["key"])


def doc_to_index(doc):
    return int(doc["key"]) - 1


def parse_filter(resps, docs):
    """Each reply read by persian-tui's answer parser: the option's number, or "" when unusable."""
    out = []
    for replies in resps:
        parsed = [parse_answer(r) for r in replies]
        out.append([str(p.answer) if p.status == "ok" else "" for p in parsed])
    return out
'''
