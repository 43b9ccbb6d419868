"""Results of other harnesses imported as runs (`persian-tui import-predictions LOG`): one
`imported` run per log, a prediction per sample.

- Inspect logs (`.eval`, or `.json` with `eval` and `samples`): read with `inspect_ai.log` when it
  is installed (the `inspect` extra), else as the documented format (a `.json` log is one EvalLog
  object; an `.eval` log is a zip of `header.json` and `samples/*.json`). A sample's id is the
  question's uid (the release's task uses it; otherwise a source id, matched as the CSV import
  does); each epoch is one sample of the run. Kept per sample: the reply (raw output), the reasoning
  Inspect moved out of it (`<think>` text, reasoning blocks), the answer the project's parser reads
  from the reply, input/output tokens, and Inspect's own score; the log's accuracy is stored with
  the run (`inspect_accuracy`) for comparison.
- lm-evaluation-harness `--log_samples` JSONL (`samples_<task>_<time>.jsonl`): `doc` is the release
  record; a generate_until reply is parsed by the project's parser, a multiple_choice sample's
  answer is the couplet with the highest loglikelihood (the four kept as scores; lm-eval 0.4 writes
  them as strings); lm-eval's per-sample metric is kept like Inspect's score. The model name is
  `--model`, else the `results_*.json` beside the file, else the file's name.

Every run records where it came from: the harness, the harness's own model name (`harness_model`;
the run's model is the same name without Inspect's provider prefix or a local folder's path, so one
model has one name from both harnesses), the task (without lm-eval's timestamp) and the release it
ran with its digest (the task's metadata, else the release whose task name it is). A log of a task
that is not a persian-tui release's is refused. Nothing is written for a log that fails to read (one
message naming the file and the sample); every field is checked for its shape and every read is
capped (releases/log_shapes.py)."""

from __future__ import annotations

import hashlib
import math
import re
import zipfile
from collections import Counter
from pathlib import Path

from .. import redact
from ..bank.references import References
from ..files.inputs import InputError, check_regular, read_input
from ..models import ParseStatus, Prediction
from ..runs.parse import parse_answer
from ..runs.prediction_files import PredictionImport
from ..store import Store
from . import log_shapes as shapes
from .task_names import PREFIX, task_base

CORRECT_VALUES = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}  # Inspect's value_to_float


def kind_of(path: Path) -> str | None:
    """'inspect', 'lm-eval' or None (a CSV of published answers); the extension in any case."""
    suffix = path.suffix.lower()
    if suffix in (".eval", ".json"):
        return "inspect"
    if suffix == ".jsonl":
        return "lm-eval"
    return None


# ---------------------------------------------------------------- reading Inspect logs


def _inspect_dict(path: Path) -> dict:
    """The log as the EvalLog's JSON shape, through inspect_ai when installed (an .eval zip's
    members are checked against the caps first; one with a sample member repeated is read member
    by member, so each copy is seen)."""
    if path.suffix.lower() == ".eval":
        try:
            with zipfile.ZipFile(path) as z:
                repeated = shapes.repeated_members(shapes.zip_members(path, z))
        except (zipfile.BadZipFile, OSError, ValueError) as e:
            raise InputError(f"{path}: not an Inspect log ({e})") from None
        if repeated:
            return _read_log_file(path)
    if path.suffix != path.suffix.lower():  # inspect_ai knows a log by its lower-case extension only
        return _read_log_file(path)
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        return _read_log_file(path)
    try:
        return read_eval_log(str(path)).model_dump(mode="json")
    except Exception as e:  # noqa: BLE001 - a damaged or foreign file: one line
        first = (str(e).splitlines() or [""])[0][:200]
        raise InputError(f"{path}: not an Inspect log ({type(e).__name__}: {first})") from None


def _read_log_file(path: Path) -> dict:
    try:
        if path.suffix.lower() == ".eval":
            with zipfile.ZipFile(path) as z:
                infos = shapes.zip_members(path, z)
                header = next((i for i in infos if i.filename == "header.json"), None)
                if header is None:
                    raise InputError(f"{path}: not an Inspect log (no header.json)")
                log = shapes.obj(shapes.read_member(path, z, header), f"{path}: header.json", "header")
                log["samples"] = [shapes.read_member(path, z, i)
                                  for i in sorted(infos, key=lambda i: i.filename)
                                  if i.filename.startswith("samples/") and i.filename.endswith(".json")]
                return log
        return shapes.loads(read_input(path).decode("utf-8"), str(path))
    except NotImplementedError:  # zstd-compressed members (recent Inspect): not in the standard library
        raise InputError(f"{path}: reading this .eval log needs inspect_ai (pip install 'persian-tui[inspect]'), "
                         "or convert it: inspect log convert --to json") from None
    except (zipfile.BadZipFile, KeyError, ValueError, UnicodeDecodeError, OSError) as e:
        raise InputError(f"{path}: not an Inspect log ({e})") from None


def _text(content, where: str, kind: str = "text") -> str:
    """A message's text (kind "text": a string, or the text blocks of a content list) or its
    reasoning (kind "reasoning": the reasoning blocks, where Inspect puts `<think>` text)."""
    if isinstance(content, str):
        return content if kind == "text" else ""
    if isinstance(content, list):
        return "\n\n".join(c[kind] for c in content
                             if isinstance(c, dict) and c.get("type") == kind and isinstance(c.get(kind), str))
    if content is None:
        return ""
    shapes.refuse(where, "output.choices[0].message.content", content, "a string or a list of blocks")


INSPECT_SERVICES = ("openai-api",)  # openai-api/<service>/<model>: two parts name the provider


def plain_model(harness: str, harness_model: str) -> str:
    """One model, one name from either harness: an Inspect name without its provider (Inspect's
    names are always `<provider>/<model>`: `openai-api/local/m` and `openai/m` -> `m`, `hf/org/m` ->
    `org/m`), and a local folder (lm-eval's `pretrained=/path/to/m`, Inspect's `hf//path/to/m`)
    named by its last part."""
    name = harness_model
    if harness == "inspect":
        parts = name.split("/")
        drop = 2 if len(parts) > 2 and parts[0] in INSPECT_SERVICES else 1 if len(parts) > 1 else 0
        name = "/".join(parts[drop:])
    if name.startswith(("/", "./", "../", "~")):
        name = Path(name.rstrip("/")).name or name
    return name


def _float_score(value) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, str):
        return CORRECT_VALUES.get(value)
    return None


def _inspect_sample(s, where: str, cut: list[int]) -> dict:
    """One sample's row, every field checked for its shape."""
    if not isinstance(s, dict) or "id" not in s:
        raise InputError(f"{where}: no id")
    output = shapes.obj(s.get("output"), where, "output")
    choices = shapes.seq(output.get("choices"), where, "output.choices")
    completion = reasoning = ""
    if choices:
        first = shapes.obj(choices[0], where, "output.choices[0]")
        message = shapes.obj(first.get("message"), where, "output.choices[0].message")
        completion = _text(message.get("content"), where)
        reasoning = _text(message.get("content"), where, "reasoning")
    usage = shapes.obj(output.get("usage"), where, "output.usage")
    scores = shapes.obj(s.get("scores"), where, "scores")
    name = "outlier_answer" if "outlier_answer" in scores else next(iter(scores), None)
    score = shapes.obj(scores.get(name), where, f"scores.{name}") if name else {}
    meta = shapes.obj(s.get("metadata"), where, "metadata")
    error = s.get("error")
    if isinstance(error, dict):
        error = shapes.text(error.get("message"), where, "error.message", default="error")
    elif error is not None:
        error = shapes.text(error, where, "error") or None
    uid = shapes.ident(meta["uid"], where, "metadata.uid") if meta.get("uid") else shapes.ident(s["id"], where, "id")
    return {"id": uid, "epoch": shapes.epoch(s.get("epoch"), where), "raw": shapes.reply(completion, cut),
            "reasoning": shapes.reply(reasoning, cut) or None, "error": error,
            "tokens_in": shapes.count(usage.get("input_tokens"), where, "output.usage.input_tokens"),
            "tokens_out": shapes.count(usage.get("output_tokens"), where, "output.usage.output_tokens"),
            "score": shapes.finite(score.get("value")), "score_answer": shapes.finite(score.get("answer")),
            "scorer": name}


def read_inspect(path: Path) -> tuple[dict, list[dict]]:
    """(run facts, per-sample rows) of an Inspect log."""
    log = _inspect_dict(path)
    if not isinstance(log, dict) or not isinstance(log.get("eval"), dict):
        raise InputError(f"{path}: not an Inspect log (no `eval` header)")
    ev = log["eval"]
    if log.get("status") not in (None, "success"):
        raise InputError(f"{path}: the log's status is {log.get('status')!r}; import a finished (success) log")
    cut: list[int] = []
    rows = [_inspect_sample(s, f"{path}: sample {i}", cut)
            for i, s in enumerate(shapes.seq(log.get("samples"), str(path), "samples"), 1)]
    accuracy = None
    results = shapes.obj(log.get("results"), str(path), "results")
    for sc in shapes.seq(results.get("scores"), str(path), "results.scores"):
        sc = shapes.obj(sc, str(path), "results.scores[]")
        metric = shapes.obj(shapes.obj(sc.get("metrics"), str(path), "metrics").get("accuracy"), str(path),
                            "metrics.accuracy")
        value = _float_score(metric.get("value"))
        if value is not None and (accuracy is None or sc.get("name") == "outlier_answer"):
            accuracy = value
    model = shapes.text(ev.get("model"), str(path), "eval.model") or "inspect"
    meta = shapes.obj(ev.get("metadata"), str(path), "eval.metadata")  # the task's: the release and its digest
    facts = {"harness": "inspect", "harness_model": model,
             "task": shapes.text(ev.get("task"), str(path), "eval.task"),
             "release": shapes.text(meta.get("release"), str(path), "eval.metadata.release"),
             "release_digest": shapes.text(meta.get("digest"), str(path), "eval.metadata.digest"),
             "created": shapes.text(ev.get("created"), str(path), "eval.created"), "inspect_accuracy": accuracy,
             "scorer": rows[-1]["scorer"] if rows else None, "cut": cut}
    return facts, rows


# ---------------------------------------------------------------- reading lm-eval samples


TIMESTAMP = re.compile(r"_\d{4}-\d{2}-\d{2}T[\d.-]+$")  # lm-eval's time in samples_<task>_<time>.jsonl


def _lmeval_results(path: Path, task: str) -> tuple[str | None, dict]:
    """(the model, the task's metadata) named by a results_*.json beside the samples file (lm-eval
    writes both; the one of the same time first); a results file of another shape is passed over."""
    time = TIMESTAMP.search(path.stem)
    files = sorted(path.parent.glob("results_*.json"))
    if time:
        files.sort(key=lambda f: not f.stem.endswith(time[0]))
    for results in files:
        try:
            data = shapes.loads(read_input(results).decode("utf-8"), str(results))
        except (InputError, ValueError, UnicodeDecodeError):
            continue
        if not isinstance(data, dict):
            continue
        config = data.get("config")
        name = data.get("model_name") or (config.get("model_args") if isinstance(config, dict) else None)
        configs = data.get("configs")
        task_config = configs.get(task) if isinstance(configs, dict) else None
        meta = task_config.get("metadata") if isinstance(task_config, dict) else None
        if isinstance(name, str) and name:
            meta = meta if isinstance(meta, dict) else {}
            return name, {k: v for k in ("release", "digest") if isinstance(v := meta.get(k), str)}
    return None, {}


def _lmeval_row(s, where: str, cut: list[int]) -> dict:
    if not isinstance(s, dict):
        raise InputError(f"{where}: not an lm-eval sample (a JSON object)")
    doc = s.get("doc")
    if not isinstance(doc, dict):
        raise InputError(f"{where}: not an lm-eval sample (`doc` is {shapes.kind(doc)}, not an object)")
    uid = shapes.ident(doc["uid"], where, "doc.uid") if doc.get("uid") else shapes.ident(s.get("doc_id"), where,
                                                                                         "doc_id")
    resps = shapes.seq(s.get("resps"), where, "resps")
    metric = next((k for k in ("acc", "exact_match") if k in s), None)
    row = {"id": uid, "epoch": 1, "error": None, "tokens_in": None, "tokens_out": None,
           "score": shapes.finite(s.get(metric)) if metric else None, "score_answer": None}
    lls = shapes.loglikelihoods(resps, where)
    if lls is not None:  # multiple_choice
        row["scores"], row["raw"] = lls, None
        row["answer"] = max(range(len(lls)), key=lambda i: lls[i]) + 1
    elif len(resps) == 1 and isinstance(resps[0], list) and resps[0] and isinstance(resps[0][0], str):
        row["raw"] = shapes.reply(resps[0][0], cut)
    else:
        raise InputError(f"{where}: `resps` is neither a generate_until reply ([[text]]) nor four loglikelihoods")
    return row


def read_lmeval(path: Path, model: str | None) -> tuple[dict, list[dict]]:
    try:
        text = read_input(path).decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not UTF-8 text (byte {e.start})") from None
    rows: list[dict] = []
    cut: list[int] = []
    for n, line in enumerate(text.split("\n"), 1):  # JSON Lines: \n ends a line, nothing else does
        if not line.strip():
            continue
        where = f"{path}: line {n}"
        try:
            s = shapes.loads(line, where)
        except ValueError as e:
            raise InputError(f"{where}: not an lm-eval sample ({type(e).__name__}: {e})") from None
        rows.append(_lmeval_row(s, where, cut))
    task = TIMESTAMP.sub("", path.stem.removeprefix("samples_"))
    found, meta = _lmeval_results(path, task)
    return {"harness": "lm-eval", "harness_model": model or found or path.stem, "task": task,
            "release": meta.get("release"), "release_digest": meta.get("digest"), "cut": cut}, rows


# ---------------------------------------------------------------- which release it ran


def _release_of(store: Store, path: Path, facts: dict) -> None:
    """Fill facts' release and release_digest: the task's metadata, checked against this database's
    release of that name, else the release whose task the log ran. A task that is no release's is
    refused (one line)."""
    task = str(facts.get("task") or "")
    base = re.sub(r"_(gen|mc)$", "", task) if facts["harness"] == "lm-eval" else task
    releases = store.releases.releases()
    by_task = {task_base(r.name, r.digest): r for r in releases}
    name, digest = facts.get("release"), facts.get("release_digest")
    if name is None and base in by_task:
        name, digest = by_task[base].name, by_task[base].digest
    if name is None:
        if not base.startswith(PREFIX):
            raise InputError(f"{path}: task {task or '(none)'!r} is not the task of a persian-tui release (the release "
                             "folder's inspect_task.py and lm_eval/ tasks write the logs this imports)")
        return
    known = next((r for r in releases if r.name == name), None)
    if known is not None and digest is not None and known.digest != digest:
        raise InputError(f"{path}: the log ran release {name!r} with digest {str(digest)[:16]}, but this database's "
                         f"{name!r} has digest {known.digest[:16]}: another release of the same name")
    facts["release"], facts["release_digest"] = name, digest or (known.digest if known else None)


# ---------------------------------------------------------------- into the store


def import_harness_log(store: Store, path: str | Path, *, source: str | None = None, model: str | None = None,
                       dry_run: bool = False) -> tuple[PredictionImport, dict]:
    """One `imported` run from a harness log; (the usual import summary, the run's facts)."""
    path = Path(path)
    check_regular(path)  # a FIFO, socket or device: refused at once
    kind = kind_of(path)
    facts, rows = read_inspect(path) if kind == "inspect" else read_lmeval(path, model)
    # no secret from a log's model args, in the run's model or in its params
    facts["harness_model"] = redact.text(facts["harness_model"]) or "imported"
    facts["model"] = redact.text(model) or plain_model(facts["harness"], facts["harness_model"]) or "imported"
    if not rows:
        raise InputError(f"{path}: the log has no samples")
    _release_of(store, path, facts)
    bank = {q.uid for q in store.questions.questions()}
    refs = References(store, source)
    result = PredictionImport(path)
    preds, harness_scores = [], {}
    matched = []
    for r in rows:
        uid = r["id"] if r["id"] in bank else None
        if uid is None and r["id"] in refs and not refs.why_not_one(r["id"]):
            uid = refs.find(r["id"])[0]
        if uid is None:
            result.unmatched[r["id"]] = result.unmatched.get(r["id"], 0) + 1
            continue
        matched.append((uid, r))
    times = Counter((uid, r["epoch"]) for uid, r in matched)
    for uid, r in matched:
        if times[uid, r["epoch"]] > 1:  # which copy is the answer is never guessed: none is kept
            result.ambiguous[r["id"]] = result.ambiguous.get(r["id"], 0) + 1
            continue
        status: ParseStatus
        if r.get("error"):
            answer, status = None, "api_error"
        elif "answer" in r:
            answer, status = r["answer"], "ok"
        else:
            p = parse_answer(r["raw"])
            answer, status = p.answer, p.status
        result.invalid += status != "ok"
        preds.append(Prediction(uid, answer, status, scores=r.get("scores"), raw_output=r.get("raw") or None,
                                reasoning=r.get("reasoning"), tokens_in=r["tokens_in"], tokens_out=r["tokens_out"],
                                error=r["error"], sample=r["epoch"] - 1))
        harness_scores[f"{uid}#{r['epoch']}" if r["epoch"] > 1 else uid] = r["score"]
    if not preds:
        raise InputError(f"{path}: no sample matches a question of the bank (ids such as "
                         f"{', '.join(list(result.unmatched)[:3])})")
    data = read_input(path)
    sha = hashlib.sha256(data).hexdigest()
    k = max(p.sample for p in preds) + 1
    params = {**{k2: v for k2, v in facts.items() if v is not None and k2 != "cut"}, "file": path.name,
              "sha256": sha, "source": source, "harness_scores": harness_scores}
    if facts["cut"]:
        params["replies_cut"] = len(facts["cut"])
    if k > 1:
        params["samples"] = k
    model_name = facts["model"]
    if any((r.model, r.params.get("sha256")) == (model_name, sha) for r in store.runs.runs() if r.kind == "imported"):
        result.runs_unchanged.append(model_name)
    elif dry_run:
        result.runs_new[model_name] = len(preds)
    else:
        run = store.runs.create_run("imported", model_name, params, total=len(preds), status="done",
                                    predictions=preds, once_per_file=True)
        if run is None:
            result.runs_unchanged.append(model_name)
        else:
            result.runs_new[model_name] = len(preds)
            facts["run_id"] = run.id
    facts["harness_accuracy"] = _mean([_float_score(v) for v in harness_scores.values()])
    facts["predictions"] = preds
    return result, facts


def _mean(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else None
