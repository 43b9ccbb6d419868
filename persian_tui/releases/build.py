"""Versioned releases: `persian-tui release NAME` freezes the curated set in the store (uids,
content hashes, keys, records; store/releases.py) and writes a folder a Hugging Face dataset
repository can hold as it is:

    NAME/README.md         the datasheet: a YAML header the hub reads (licence, language, task,
                           size, the data file) and counts, agreement, item analysis, leaderboard,
                           known issues, how it was made
    NAME/data/test.jsonl   the frozen records (the project's JSONL, bank/jsonl.py), release order
    NAME/release.json      the manifest: name, digest, when, every (uid, sha256, key)
    NAME/leaderboard.csv   the chosen runs on the release's questions (with --runs)

Every byte comes from the database (the frozen time included, never the clock), so the same
database state and options give identical files. `datasets.load_dataset("NAME")` reads it, with
the column types the header declares (releases/dataset_card.py)."""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path
from typing import NoReturn

from .. import redact
from ..bank import jsonl
from ..display import clean, count, figure
from ..files import outputs
from ..files.inputs import InputError
from ..models import Question, Release, ReleaseItem, release_digest
from ..store import Store
from .dataset_card import dataset_info, field_names
from .harness_files import harness_files
from .lmeval_task import CHAT_TAG, LOGLIK_TAG
from .task_names import task_base

DATA_FILE = "data/test.jsonl"
SPLIT = "test"
LICENSE = re.compile(r"[a-z0-9][a-z0-9.+-]{0,63}")
ISSUES_SHOWN = 50


@dataclass
class ReleaseResult:
    release: Release
    created: bool  # frozen now (False: it was frozen before with this content)
    paths: list[Path]


def current_items(store: Store) -> list[ReleaseItem]:
    """The curated set as release items, in bank (uid) order: record line and its sha256."""
    questions = store.questions.questions(statuses=["curated"])
    links = store.links.links([q.uid for q in questions])
    out = []
    for q in questions:
        line = jsonl.dumps(q, links.get(q.uid))
        out.append(ReleaseItem(q.uid, hashlib.sha256(line.encode("utf-8")).hexdigest(), q.key, line))
    return out


def _size_category(n: int) -> str:
    for limit, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"),
                        (1_000_000, "100K<n<1M")):
        if n < limit:
            return name
    return "1M<n<10M"


def _poet(q: Question) -> str:
    if q.poet:
        return q.poet
    poets = sorted({o.poet for o in q.options if o.poet})
    return " + ".join(poets) if poets else "(none)"


def _cell(text) -> str:
    """A Markdown table cell: one line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _table(header: list[str], rows: list[list]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return out + ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]


def _counts(title: str, values: list[str]) -> list[str]:
    rows = sorted(Counter(values).items(), key=lambda kv: (-kv[1], kv[0]))
    return ["", f"### By {title}", ""] + _table([title, "questions"], [[k, n] for k, n in rows])


@dataclass
class _Board:
    run_id: int
    model: str
    kind: str
    answered: int
    correct: Fraction  # a tied majority vote counts 1/t (models.SampleVote.credit)
    low: float | None
    high: float | None
    on_release: bool
    rank: int = 0  # reports/ranking.rank_runs (ties share one)

    @property
    def accuracy(self) -> float | None:
        return float(self.correct / self.answered) if self.answered else None


RANKING_RULE = ("ranked by accuracy on the release's keyed questions each run answered (an unusable answer "
                "counts as wrong), highest first, by the report's rule (reports/ranking.py): equal accuracy "
                "shares a rank, listed by run id")


def leaderboard(store: Store, release: Release, run_ids: list[int]) -> list[_Board]:
    """The runs on the release's questions against the FROZEN keys: each run's answers (a run
    asked K times: its majority vote) on the keyed questions it answered, Wilson 95 %, in the
    order RANKING_RULE states."""
    from ..stats import wilson

    keys = {i.uid: i.key for i in release.items if i.key is not None}
    out = []
    for rid in run_ids:
        run = store.runs.get_run(rid)
        if run is None:
            raise InputError(f"--runs: no run {rid}")
        preds, voted = store.runs.voted_predictions(rid)
        credits = ([Fraction(int(p.usable == keys[p.uid])) for p in preds if p.uid in keys] if voted is None
                   else [v.credit(keys[v.chosen.uid]) for v in voted if v.chosen.uid in keys])
        correct = sum(credits, Fraction(0))
        # fractional credit (ties); stats.wilson is annotated int but takes any count
        low, high = wilson(float(correct), len(credits)) or (None, None)  # type: ignore[arg-type]
        out.append(_Board(rid, redact.text(run.model) or "", run.kind, len(credits), correct, low, high,
                          run.params.get("release") == release.name))
    from ..reports.ranking import rank_runs

    by_id = {b.run_id: b for b in out}
    ranked = rank_runs([b.run_id for b in out], [b.correct for b in out], [b.answered for b in out])
    return [replace(by_id[r.run_id], rank=r.rank) for r in ranked]


def _runs_named(board: list[_Board]) -> str:
    if not board:
        return "no runs"
    named = [f"#{b.run_id} {b.model} ({b.kind})" for b in sorted(board, key=lambda b: b.run_id)]
    return f"{len(board)} run(s): " + ", ".join(named)


DECISIONS = {"accept": "key accepted", "key": "key set", "retire": "retired"}  # adjudication decisions


def _made(store: Store, release: Release, questions: list[Question], votes, agreement, board) -> list[str]:
    """What was done to these questions, in numbers (0 is a number): labels, annotators, agreement,
    adjudications, and what fed the item analysis and leaderboard."""
    from ..store.schema import SCHEMA_VERSION

    uids = {q.uid for q in questions}
    n = len(questions)
    labels = [lab for v in votes for lab in v.labels]
    answered = sum(lab.answer is not None for lab in labels)
    decisions = [d for d in store.curation.adjudications() if d.uid in uids]
    decided = {d.uid for d in decisions}
    by_kind = Counter(d.decision for d in decisions)
    a = agreement
    if labels:
        labelled = (f"{len(labels)} recorded ({answered} answer(s), {len(labels) - answered} skip(s)) by "
                    f"{len(a.annotators)} annotator(s), on {a.labelled} of {n} questions ({a.multi} with two or "
                    "more answers). persian-tui's labelling screen hides the key, the other labels and the model "
                    "answers; labels imported from files (`persian-tui import-labels`) carry no such guarantee.")
        agreed = (f"Agreement: the majority answer matches the key on {a.majority_agrees} question(s) and differs "
                  f"on {a.majority_disagrees}; Fleiss' kappa {figure(a.fleiss, '{:.3f}')} (n={a.fleiss_items}), "
                  f"Krippendorff's alpha {figure(a.alpha, '{:.3f}')} (n={a.alpha_items}).")
    else:
        labelled = "0: no annotator answered these questions, so no key was checked against an annotator's answer."
        agreed = "Agreement: not measured (0 labels)."
    adjudicated = (f"{len(decisions)} adjudication decision(s) on {len(decided)} of {n} questions"
                   + (" (" + ", ".join(f"{by_kind[c]} {what}" for c, what in DECISIONS.items() if by_kind[c]) + ")"
                      if decisions else "")
                   + f"; {n - len(decided)} question(s) were marked curated without one.")
    return [
        f"- Questions: {n}, authored or imported and marked curated in persian-tui (a terminal tool for "
        f"building these benchmarks; database schema version {SCHEMA_VERSION}).",
        f"- Labels: {labelled}",
        f"- {agreed}",
        f"- Adjudication: {adjudicated}",
        f"- Item analysis and leaderboard: {_runs_named(board)}"
        + (f", {RANKING_RULE}." if board else " (name them with `persian-tui release NAME --runs 1,2,...`)."),
        f"- Freezing: `persian-tui release {release.name}` froze the curated set: each question's record is "
        "stored in the database with its sha256, and this folder is written from those frozen records, so it "
        "can be rebuilt byte for byte. The figures above are computed from the database when the folder is written.",
    ]


# the harness versions tests/releases/test_inspect_task.py and test_harness_logs.py run
TESTED = {"inspect-ai": "0.3.285", "lm-eval": "0.4.13"}


def _running(release: Release, folder: str) -> list[str]:
    """How to run the release in Inspect and lm-eval, from the folder that holds this one."""
    base = task_base(release.name, release.digest)
    return [
        "", "## Running it in Inspect and lm-eval", "",
        f"From the folder that holds `{folder}/` (tested with inspect-ai {TESTED['inspect-ai']} and "
        f"lm-eval {TESTED['lm-eval']}; `pip install 'inspect-ai' 'lm-eval[api,hf]' 'pyarrow<26'` where NumPy "
        "is pinned below 2). The tasks are this release's own: "
        f"`{base}` in Inspect, `{base}_gen` (tag `{CHAT_TAG}`, chat endpoints) and `{base}_mc` (tag "
        f"`{LOGLIK_TAG}`, local models, loglikelihoods) in lm-eval.", "",
        "```sh",
        "# Inspect: an OpenAI-compatible endpoint (set LOCAL_BASE_URL and LOCAL_API_KEY)",
        f"inspect eval {folder}/inspect_task.py --model openai-api/local/<model> --log-dir logs",
        "# lm-eval, a chat endpoint (generate_until; the project's answer parser reads the reply)",
        f"lm_eval --model local-chat-completions --model_args model=<model>,base_url=<url>/v1/chat/completions "
        f"--apply_chat_template --include_path {folder}/lm_eval --tasks {base}_gen --log_samples --output_path out",
        "# lm-eval, a local model (multiple_choice: the loglikelihood of each option's number)",
        f"lm_eval --model hf --model_args pretrained=<model> --include_path {folder}/lm_eval "
        f"--tasks {base}_mc --log_samples --output_path out",
        "# either result comes back as a run",
        "persian-tui import-predictions logs/<log>.eval",
        "persian-tui import-predictions out/<model>/samples_<task>_<time>.jsonl",
        "```", "",
        "`--log-dir` keeps Inspect's logs out of this folder (without it Inspect writes `logs/` in the working "
        "folder). `inspect_task.py` and `lm_eval/utils.py` run without the network and without persian-tui: "
        "the answer parser is `outlier_parser/`, copied beside them."]


def datasheet(store: Store, release: Release, board: list[_Board], license_id: str, folder: str = "NAME") -> str:
    """README.md: the YAML header the hub reads, then the datasheet."""
    from ..annotation.agreement import agreement
    from ..annotation.consensus import item_votes
    from ..reports.item_files import flag_summary
    from ..reports.items import FLAGS, item_analysis

    questions = [jsonl.from_record(json.loads(i.record)) for i in release.items]
    n = len(questions)
    head = [
        "---",
        f"pretty_name: \"{release.name}: Persian poetry outlier questions\"",
        f"license: {license_id}",
        "language:", "- fa",
        "task_categories:", "- multiple-choice",
        "tags:", "- persian", "- poetry", "- semantic-similarity",
        "size_categories:", f"- {_size_category(n)}",
        "configs:", "- config_name: default", "  data_files:", f"  - split: {SPLIT}", f"    path: {DATA_FILE}",
        *dataset_info(SPLIT, n, sum(len(i.record.encode("utf-8")) + 1 for i in release.items)),
        "---", "",
    ]
    out = head + [
        f"# {release.name}",
        "",
        f"{n} curated Persian poetry \"outlier\" questions (قرابت معنایی): four classical couplets, one of "
        "which differs in meaning from the other three; `key` is its position (1-4).",
        "",
        f"- release: `{release.name}`, frozen {release.created_at}" +
        (f" by {release.created_by}" if release.created_by else ""),
        f"- digest: `{release.digest}` (sha256 over every question's uid, content sha256 and key; "
        "`release.json` lists them)",
        f"- questions: {n}, with a key: {sum(q.key is not None for q in questions)}",
        f"- licence: {license_id}",
        "",
        "## Counts",
    ]
    out += _counts("category", [q.category or "(none)" for q in questions])
    out += _counts("poet", [_poet(q) for q in questions])
    out += _counts("source", [q.source_name or "(none)" for q in questions])
    out += _counts("key", [str(q.key) if q.key else "(none)" for q in questions])

    votes = item_votes(store, questions)
    a = agreement(votes)
    out += ["", "## Agreement (human labels)", "",
            f"- labelled questions: {a.labelled} of {a.items}; with two or more votes: {a.multi}",
            f"- annotators: {len(a.annotators)}",
            f"- majority agrees with the key: {a.majority_agrees}; disagrees: {a.majority_disagrees}",
            f"- Fleiss' kappa: {figure(a.fleiss, '{:.3f}')} (n={a.fleiss_items}); "
            f"Krippendorff's alpha: {figure(a.alpha, '{:.3f}')} "
            f"(n={a.alpha_items}); mean Cohen's kappa over pairs: {figure(a.cohen_mean, '{:.3f}')}"]

    run_ids = [b.run_id for b in board]
    items = item_analysis(store, questions, run_ids)
    labels = sum(len(v.votes) for v in votes)
    out += ["", "## Item analysis", "",
            flag_summary(items) + f"; from {_runs_named(board)} and {labels} human label(s) "
            f"(flags: {', '.join(FLAGS)}; the persian-tui documentation, \"Item analysis\", explains them)."]

    out += ["", "## Leaderboard", "", baseline_line([q.key for q in questions if q.key is not None]), ""]
    if board:
        out += ["Each run on the release's keyed questions it answered, against the frozen keys; "
                "a run asked several times counts with its majority vote. Wilson 95 % intervals. "
                f"Runs: {_runs_named(board)} (chosen with `--runs`), {RANKING_RULE}.", ""]
        out += _table(["rank", "run", "model", "kind", "accuracy", "95 % interval", "answered", "run on this release"],
                      [[b.rank, f"#{b.run_id}", b.model, b.kind, figure(b.accuracy, "{:.1%}"),
                        f"{figure(b.low, '{:.1%}')}–{figure(b.high, '{:.1%}')}", b.answered,
                        "yes" if b.on_release else "no"]
                       for b in board])
    else:
        out.append("No runs were chosen (`persian-tui release NAME --runs 1,2,...`).")

    out += _contamination(store, questions)

    flagged = sorted(((f, r) for r in items for f in r.flags), key=lambda fr: (FLAGS.index(fr[0]), fr[1].uid))
    issues = [f"`{r.uid}` {f}: {r.evidence[f]}" for f, r in flagged]  # the most serious flags first
    keyless = [q.uid for q in questions if q.key is None]
    out += ["", "## Known issues", ""]
    if keyless:
        out.append(f"- {len(keyless)} question(s) without a key: " + ", ".join(f"`{u}`" for u in keyless[:20]))
    out += [f"- {i}" for i in issues[:ISSUES_SHOWN]]
    if len(issues) > ISSUES_SHOWN:
        out.append(f"- ... and {len(issues) - ISSUES_SHOWN} more flags (`persian-tui items`)")
    if not keyless and not issues:
        out.append("None flagged by the item analysis.")

    out += ["", "## How it was made", ""] + _made(store, release, questions, votes, a, board)
    out += ["", "## Loading", "",
            f"From the folder that holds `{folder}/` (or with its hub repository's id in place of the path):", "",
            "```python",
            "from datasets import load_dataset",
            f"ds = load_dataset(\"{folder}\", split=\"{SPLIT}\")",
            "```", "",
            f"Or without `datasets`: one JSON object per line in `{DATA_FILE}` (UTF-8), fields "
            + ", ".join(f"`{f}`" for f in field_names())
            + " (an option: `position`, `mesra1`, `mesra2`, `order`, `poet`, `corpus`); "
            "`persian-tui import` reads it back."]
    out += _running(release, folder) + [""]
    return "\n".join(out)


def _contamination(store: Store, questions: list) -> list[str]:
    """Per probed model, how many of the release's couplets it recalls (recall runs, not archived)."""
    from ..models.recall import PRODUCTION
    from ..reports.memory import model_recall

    rows = store.probes.recall_rows(uids=[q.uid for q in questions], formats=PRODUCTION)
    out = ["", "## Contamination (recall probes)", ""]
    if not rows:
        return out + ["No model was asked to write these couplets' second hemistichs (`persian-tui run recall`, "
                      "format complete): "
                      "whether a model answers from meaning or from memory is not known."]
    out += [f"Each probed model's recall of the release's {4 * len(questions)} couplets (those it was probed on): "
            "complete or partial as GhazalBench scores it (edit distance within 1-3 characters by length, or "
            "character error rate <= 0.2), a couplet counted once per model (recalled in any of its recall runs "
            "that had it write the hemistich; a pick among four choices is right one time in four by guessing, "
            "so `choose` runs are left out here and read against chance in the report). "
            "A model that recalls the couplets may answer from memory of the poems or of the book the questions "
            "come from.", ""]
    return out + _table(["model", "probed", "complete", "partial", "recalled", "95 % interval"],
                        [[m.model, m.probed, m.complete, m.partial, figure(m.recalled, "{:.1%}"),
                          f"{figure(m.recalled_low, '{:.1%}')}–{figure(m.recalled_high, '{:.1%}')}"]
                         for m in model_recall(rows)])


def baseline_line(keys: list[int]) -> str:
    """The majority-key baseline of the release's keys, the line every run must beat."""
    from ..reports.figures import baseline

    b = baseline(keys)
    if b.share is None:
        return "Majority-key baseline: no keyed questions."
    return (f"Majority-key baseline: always answering key {b.label} scores {b.share:.1%} ({b.correct}/{b.total} "
            f"keyed questions, Wilson 95 % {b.low:.1%}–{b.high:.1%}; keys 1/2/3/4: "
            f"{'/'.join(map(str, b.counts))}); chance is 25 %. A run below it has learnt less than the "
            "key distribution.")


def manifest(release: Release, run_ids: list[int], files: dict[str, bytes]) -> str:
    """release.json: the release and every other file of the folder with its sha256 (what
    `--push` uploads, nothing else)."""
    return json.dumps({"name": release.name, "digest": release.digest, "frozen_at": release.created_at,
                       "questions": release.questions, "data": DATA_FILE, "runs": run_ids,
                       "files": {rel: hashlib.sha256(data).hexdigest() for rel, data in sorted(files.items())},
                       "items": [{"uid": i.uid, "sha256": i.sha256, "key": i.key} for i in release.items]},
                      ensure_ascii=False, indent=2, sort_keys=True) + "\n"


def _board_csv(board: list[_Board]) -> str:
    import csv
    import io

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["rank", "run_id", "model", "kind", "answered", "correct", "accuracy", "wilson_low",
                "wilson_high", "run_on_release"])
    for b in board:
        w.writerow([b.rank, b.run_id, clean(b.model, newlines=False), clean(b.kind, newlines=False), b.answered,
                    count(float(b.correct)),
                    *("" if x is None else f"{x:.6g}" for x in (b.accuracy, b.low, b.high)), int(b.on_release)])
    return buf.getvalue()


MANIFEST = "release.json"


def _old_manifest(out: Path) -> dict | None:
    existing = out / MANIFEST
    if not existing.is_file() or existing.is_symlink():
        return None
    try:
        old = json.loads(existing.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        raise InputError(f"{existing}: exists and is not a release manifest; choose another folder") from None
    if not isinstance(old, dict):
        raise InputError(f"{existing}: exists and is not a release manifest; choose another folder")
    return old


def _check_folder(out: Path, name: str, digest: str) -> None:
    """Refuse a folder that holds ANOTHER release (its release.json names another name or digest),
    and an existing folder with files that is not a release at all (no release.json of ours)."""
    if out.is_symlink():
        raise InputError(f"{out}: is a symlink (to {os.readlink(out)}); a release is written into a real folder")
    old = _old_manifest(out)
    if old is None:
        if out.is_dir() and any(out.iterdir()):
            raise InputError(f"{out}: holds files and is not a release folder (no {MANIFEST}); nothing is written "
                             "over them: choose an empty or new folder (-o) (a release that failed part-way "
                             "leaves no manifest: remove its folder)")
        return
    if (old.get("name"), old.get("digest")) != (name, digest):
        raise InputError(f"{out}: holds another release ({old.get('name')!r}); choose another folder (-o)")


@contextmanager
def _writing(out: Path) -> Iterator[None]:
    """Hold the release folder for one writer (a lock on the folder itself, no file in it): a
    second release into the same folder meanwhile is refused, never mixed in."""
    import fcntl  # POSIX only (the one use): importing build.py elsewhere still works

    made = not os.path.lexists(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
        fd = os.open(out, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_NOFOLLOW", 0))
    except OSError as e:
        raise InputError(f"{out}: cannot write the release folder: {(e.strerror or str(e)).lower()}") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise InputError(f"{out}: another release is being written into this folder; nothing was written "
                             "(try again when it is done, or choose another folder)") from None
        try:
            yield
        except BaseException:
            if made:
                try:
                    out.rmdir()  # only when nothing was written
                except OSError:
                    pass
            raise
    finally:
        os.close(fd)


def check_release(release: Release) -> None:
    """Refuse a release whose stored rows no longer give its digest (a row added, changed or
    damaged by hand): every record hashes to its sha256, names its uid and key, and the items
    give the frozen digest and count."""
    def refuse(why: str) -> NoReturn:
        raise InputError(f"release {release.name!r}: {why}; it does not match its digest "
                         f"{release.digest[:16]} (the database was edited by hand?); nothing was written")
    if len(release.items) != release.questions:
        refuse(f"{len(release.items)} stored questions, frozen with {release.questions}")
    if release_digest(release.items) != release.digest:
        refuse("its stored questions changed")
    for n, item in enumerate(release.items, 1):
        if not isinstance(item.record, str) or \
                hashlib.sha256(item.record.encode("utf-8", "replace")).hexdigest() != item.sha256:
            refuse(f"question {n} ({item.uid}) does not match its sha256")
        try:
            record = json.loads(item.record)
        except ValueError:
            refuse(f"question {n} ({item.uid}) is not a JSON record")
        if not isinstance(record, dict) or (record.get("uid"), record.get("key")) != (item.uid, item.key):
            refuse(f"question {n} ({item.uid}): its record names another uid or key")


def folder_license(out: Path) -> str | None:
    """The licence in the YAML header of the folder's README.md (a release written before), if any.
    Only a release folder's own file is read (a manifest beside it; never through a symlink)."""
    readme = out / "README.md"
    if outputs.symlink_within(readme, out) or not (out / MANIFEST).is_file():
        return None
    try:
        text = readme.read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    head = text.split("\n---", 1)[0] if text.startswith("---") else ""
    found = re.search(r"^license: (\S+)$", head, re.M)
    return found[1] if found and LICENSE.fullmatch(found[1]) else None


def check_runs(store: Store, run_ids: list[int]) -> None:
    for rid in run_ids:
        if store.runs.get_run(rid) is None:
            raise InputError(f"--runs: no run {rid}; nothing was frozen or written")


def check_name(name: str) -> str:
    """A release's name as given, or InputError saying what a name may hold (models'
    check_release_name: the one rule, the CLI and the app's release screen both ask it)."""
    from ..models import check_release_name

    try:
        check_release_name(name)
    except ValueError as e:
        raise InputError(f"release name {e}") from None
    return name


def check_licence(license_id: str) -> str:
    if not LICENSE.fullmatch(license_id):
        raise InputError("--license must be a licence identifier such as cc-by-4.0, mit or unknown")
    return license_id


def check_folder(out: Path) -> None:
    """Refuse a folder path that is something else (a file where the folder goes)."""
    if out.exists() and not out.is_dir():
        raise InputError(f"{out}: exists and is not a folder; choose another folder (-o)")


Progress = Callable[[str, int, int], None]  # (what is being done, steps done, steps in all)


def build_release(store: Store, name: str, out: str | Path, *, run_ids: Sequence[int] = (),
                  license_id: str | None = None, frozen: bool = False, who: str | None = None,
                  progress: Progress | None = None) -> ReleaseResult:
    """Freeze the curated set as release `name` (or find it frozen with the same content), then
    write its folder. `frozen=True` writes an existing release as it was frozen, whatever the
    curated set is now. ReleaseExists when `name` holds other content. No `license_id`: the
    licence the folder's datasheet already names (a rewrite keeps it), else "unknown".
    `progress` hears of each step (the app's release screen shows them)."""
    def step(what: str, done: int, total: int = 3) -> None:
        if progress is not None:
            progress(what, done, total)

    check_name(name)
    out = Path(out)
    check_folder(out)
    if license_id is None:
        license_id = folder_license(out) or "unknown"
    check_licence(license_id)
    check_runs(store, list(run_ids))  # before freezing: a mistyped run id freezes nothing
    if out.is_symlink():
        raise InputError(f"{out}: is a symlink (to {os.readlink(out)}); a release is written into a real folder")
    with _writing(out):
        return _build(store, name, out, list(run_ids), license_id, frozen, who, step)


def _build(store: Store, name: str, out: Path, run_ids: list[int], license_id: str, frozen: bool,
           who: str | None, step: Callable[..., None]) -> ReleaseResult:
    step("freezing the curated set", 0)
    if frozen:
        release, created = store.releases.get_release(name), False
        if release is None:
            raise InputError(f"no release {name!r} to write (--frozen writes an existing one)")
        _check_folder(out, name, release.digest)
    else:
        items = current_items(store)
        if not items:
            raise InputError("no curated questions to release (mark questions curated first)")
        digest = release_digest(items)
        known = store.releases.get_release(name)
        if known is not None and known.digest != digest:
            store.releases.freeze_release(name, items, who)  # raises ReleaseExists, saying what differs
        _check_folder(out, name, digest)  # before freezing: a refused folder freezes nothing
        release, created = store.releases.freeze_release(name, items, who)
    check_release(release)  # on every write: what is written is what was frozen
    step("computing the leaderboard and the datasheet", 1)
    board = leaderboard(store, release, run_ids)
    texts = {DATA_FILE: "".join(i.record + "\n" for i in release.items),  # byte-exact: never cleaned
             "README.md": clean(datasheet(store, release, board, license_id, out.name))}  # no raw control from data
    if board:
        texts["leaderboard.csv"] = _board_csv(board)
    texts.update(harness_files(release.name, release.digest))
    files = {rel: text.encode("utf-8") for rel, text in texts.items()}
    for rel in files:  # every path checked before anything is written
        if link := outputs.symlink_within(out / rel, out):
            raise InputError(f"{out / rel}: {link} is a symlink (to {os.readlink(link)}); a release folder is "
                             "never written through one; nothing was written")
    old = _old_manifest(out) or {}
    paths = []
    for n, (rel, data) in enumerate(files.items()):
        step(f"writing {rel}", 2 + n, 3 + len(files))
        outputs.write_atomic(out / rel, data, within=out)
        paths.append(out / rel)
    for rel in sorted(set(old.get("files") or {}) | {"leaderboard.csv"}):  # a file of the old release only
        stale = out / rel
        if isinstance(rel, str) and rel not in files and rel != MANIFEST and ".." not in Path(rel).parts \
                and not outputs.symlink_within(stale, out) and stale.is_file():
            stale.unlink()
    step(f"writing {MANIFEST}", 2 + len(files), 3 + len(files))
    outputs.write_atomic(out / MANIFEST, manifest(release, run_ids, files).encode("utf-8"), within=out)
    paths.append(out / MANIFEST)  # the manifest last: a folder with it is complete
    return ReleaseResult(release, created, paths)
