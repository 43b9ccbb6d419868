"""Hostile harness logs: secrets in model names, NaN scores, line splitting, bad
loglikelihoods, repeated ids, size and nesting caps, wrong shapes, upper-case extensions.
Every case: one line naming the file and the record, nothing written, or exactly what is said."""

from __future__ import annotations

import json
import sys
import zipfile
from contextlib import nullcontext as _nothing
from pathlib import Path

import pytest

from persian_tui.cli import main
from persian_tui.store import Store

SECRETS = ("hunter2pass", "sk-abcdefghijklmnop1234", "hf_AbCdEfGhIjKlMnOpQrStUv", "abc123secret")
TASK = "persian_outlier_t"  # a release's task (a log of a foreign task is refused)
MODEL_ARGS = ("pretrained=https://bob:hunter2pass@host/m,api_key=sk-abcdefghijklmnop1234,"
              "token=hf_AbCdEfGhIjKlMnOpQrStUv")


def records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "data" / "test.jsonl").read_text("utf-8").splitlines()]


def gen_line(i: int, r: dict, reply: str = "2", **extra) -> dict:
    return {"doc_id": i, "doc": r, "target": str(r["key"]), "resps": [[reply]], "filtered_resps": [reply],
            "exact_match": float(reply == str(r["key"])), **extra}


def mc_line(i: int, r: dict, lls: list) -> dict:
    return {"doc_id": i, "doc": r, "target": r["key"] - 1, "resps": [[[ll, False]] for ll in lls], "acc": 0.0}


def lm_file(folder: Path, lines: list, results=None, name=f"samples_{TASK}_2026-01-01T00-00-00.jsonl",
            raw: str | None = None) -> Path:
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_text(raw if raw is not None else "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines),
                    "utf-8")
    if results is not None:
        (folder / "results_2026.json").write_text(json.dumps(results), "utf-8")
    return path


def inspect_log(path: Path, samples: list, model="m/one", **extra) -> Path:
    log = {"version": 2, "status": "success", "eval": {"task": TASK, "model": model, "created": "2026"},
           "samples": samples, **extra}
    path.write_text(json.dumps(log), "utf-8")
    return path


def sample(uid: str, reply: str = "2", epoch=1, **extra) -> dict:
    return {"id": uid, "epoch": epoch, "output": {"choices": [{"message": {"content": reply}}]}, **extra}


def no_inspect(monkeypatch):
    monkeypatch.setitem(sys.modules, "inspect_ai", None)
    monkeypatch.setitem(sys.modules, "inspect_ai.log", None)


def one_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err


def imported(db) -> list:
    with Store(db) as s:
        return [r for r in s.runs.runs(archived=True) if r.kind == "imported"]


# ---------------------------------------------------------------- 2: secrets in model names


def test_model_args_and_inspect_model_secrets_never_stored_printed_or_released(release, tmp_path, capsys,
                                                                               monkeypatch):
    db, out = release
    recs = records(out)
    path = lm_file(tmp_path / "lm", [gen_line(i, r) for i, r in enumerate(recs)],
                   results={"config": {"model_args": MODEL_ARGS}})
    assert main(["--db", db, "import-predictions", str(path)]) == 0
    no_inspect(monkeypatch)
    log = inspect_log(tmp_path / "i.json", [sample(r["uid"]) for r in recs],
                      model="openai/gpt-4o?api_key=abc123secret")
    assert main(["--db", db, "import-predictions", str(log)]) == 0
    runs = imported(db)
    assert len(runs) == 2
    ids = ",".join(str(r.id) for r in runs)
    rel = tmp_path / "rel2"
    assert main(["--db", db, "release", "v1", "-o", str(rel), "--runs", ids]) == 0
    printed = capsys.readouterr()
    with Store(db) as s:
        stored = json.dumps([(r.model, r.params) for r in s.runs.runs()], ensure_ascii=False)
    files = "".join(p.read_text("utf-8") for p in rel.rglob("*") if p.is_file())
    for secret in SECRETS:
        for where, text in (("output", printed.out + printed.err), ("database", stored), ("release", files)):
            assert secret not in text, (secret, where)
    # the run's model without Inspect's provider, the harness's own name kept beside it
    assert "***" in runs[0].model and runs[1].model.startswith("gpt-4o?api_key=***")
    assert runs[1].params["harness_model"].startswith("openai/gpt-4o")


# ---------------------------------------------------------------- 8: NaN scores


def test_a_nan_score_is_stored_as_json_and_an_old_bad_row_is_one_line(release, tmp_path, capsys):
    db, out = release
    recs = records(out)
    raw = "".join(json.dumps(gen_line(i, r)).replace('"exact_match": 0.0', '"exact_match": NaN')
                  .replace('"exact_match": 1.0', '"exact_match": Infinity') + "\n" for i, r in enumerate(recs))
    path = lm_file(tmp_path / "lm", [], name=f"samples_{TASK}_nan_2026.jsonl", raw=raw)
    assert main(["--db", db, "import-predictions", str(path), "--model", "same"]) == 0
    with Store(db) as s:
        (row,) = s.conn.execute("SELECT params FROM runs WHERE kind = 'imported'").fetchall()
    json.loads(row[0], parse_constant=lambda c: pytest.fail(f"non-JSON {c} stored"))
    # an old bad row (written before the fix): a later import of that model name still works
    with Store(db) as s:
        s.conn.execute("UPDATE runs SET params = replace(params, 'null', 'NaN') WHERE kind = 'imported'")
    capsys.readouterr()
    assert main(["--db", db, "runs"]) in (0, 1)
    out_err = capsys.readouterr()
    assert "Traceback" not in out_err.err
    (run,) = imported(db)
    assert main(["--db", db, "runs", "archive", str(run.id)]) == 0
    other = lm_file(tmp_path / "lm2", [gen_line(i, r, "3") for i, r in enumerate(recs)],
                    name=f"samples_{TASK}_b_2026.jsonl")
    assert main(["--db", db, "import-predictions", str(other), "--model", "same"]) == 0


# ---------------------------------------------------------------- 9: lines split on \n only


def test_lm_eval_lines_split_on_newline_only_with_true_line_numbers(release, tmp_path, capsys):
    db, out = release
    recs = records(out)
    recs[0]["explanation"] = "a\u2028b\u0085c\x0cd\x1de"
    lines = [json.dumps(gen_line(i, r), ensure_ascii=False) for i, r in enumerate(recs)]
    path = lm_file(tmp_path / "lm", [], raw="\n".join(lines) + "\n")
    assert main(["--db", db, "import-predictions", str(path), "--model", "m"]) == 0
    (run,) = imported(db)
    with Store(db) as s:
        assert len(s.runs.predictions(run.id)) == len(recs)
    bad = lm_file(tmp_path / "lm2", [], raw="\n".join(lines[:3] + ["{not json"]) + "\n")
    assert main(["--db", db, "import-predictions", str(bad), "--model", "m2"]) == 1
    assert "line 4:" in one_line(capsys)


# ---------------------------------------------------------------- 10: loglikelihoods


@pytest.mark.parametrize("lls", [[float("nan")] * 4, [float("-inf")] * 4, [-1.0, -2.0],
                                 [-1.0 * i for i in range(10)], [-1.0, float("nan"), -2.0, -3.0]])
def test_unusable_loglikelihoods_are_refused_with_one_line(release, tmp_path, capsys, lls):
    db, out = release
    recs = records(out)
    lines = [mc_line(i, r, [-1.0, -2.0, -3.0, -4.0]) for i, r in enumerate(recs)]
    lines[2] = mc_line(2, recs[2], lls)
    raw = "".join(json.dumps(x) + "\n" for x in lines)
    path = lm_file(tmp_path / "lm", [], raw=raw)
    assert main(["--db", db, "import-predictions", str(path), "--model", "m"]) == 1
    err = one_line(capsys)
    assert "line 3:" in err and "loglikelihood" in err
    assert imported(db) == []


# ---------------------------------------------------------------- 11: repeated sample ids


@pytest.mark.parametrize("fmt", ["json", "eval", "eval-one-name"])
def test_a_repeated_sample_id_is_never_guessed(release, tmp_path, capsys, monkeypatch, fmt):
    """.json kept the first copy, an .eval with a member repeated (read by inspect_ai) the last:
    no copy is kept, and the id is reported."""
    db, out = release
    recs = records(out)
    samples = [sample(r["uid"], str(r["key"])) for r in recs[:8]]
    samples.append(sample(recs[0]["uid"], "1" if recs[0]["key"] != 1 else "2"))
    if fmt != "eval-one-name":
        no_inspect(monkeypatch)
    if fmt == "json":
        path = inspect_log(tmp_path / "d.json", samples)
    else:
        path = tmp_path / "d.eval"
        with zipfile.ZipFile(path, "w") as z, pytest.warns(UserWarning) if fmt == "eval-one-name" else _nothing():
            z.writestr("header.json", json.dumps({"status": "success", "eval": {"model": "m", "task": TASK}}))
            for n, s in enumerate(samples):
                name = f"{s['id']}_epoch_1" if fmt == "eval-one-name" else str(n)
                z.writestr(f"samples/{name}.json", json.dumps(s))
    assert main(["--db", db, "import-predictions", str(path)]) == 0
    printed = capsys.readouterr().out
    assert "ambiguous" in printed and recs[0]["uid"] in printed
    (run,) = imported(db)
    with Store(db) as s:
        uids = [p.uid for p in s.runs.predictions(run.id)]
    assert recs[0]["uid"] not in uids and len(uids) == 7


# ---------------------------------------------------------------- 16, 17: caps


def test_an_eval_zip_bomb_is_refused_with_the_cap(release, tmp_path, capsys, monkeypatch):
    from persian_tui.releases import log_shapes

    db, _ = release
    no_inspect(monkeypatch)
    monkeypatch.setattr(log_shapes, "MAX_MEMBER_BYTES", 1000)
    path = tmp_path / "bomb.eval"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("header.json", json.dumps({"status": "success", "eval": {"model": "m"}}))
        z.writestr("samples/1.json", '{"id": "x", "pad": "' + " " * 100_000 + '"}')
    assert main(["--db", db, "import-predictions", str(path)]) == 1
    err = one_line(capsys)
    assert "samples/1.json" in err and "1000" in err.replace(",", "").replace(" ", "") or "KB" in err


def test_a_huge_reply_is_cut_at_the_cap_and_said(release, tmp_path, capsys, monkeypatch):
    from persian_tui.releases import log_shapes

    db, out = release
    monkeypatch.setattr(log_shapes, "MAX_REPLY_CHARS", 500)
    recs = records(out)
    lines = [gen_line(i, r) for i, r in enumerate(recs)]
    lines[1] = gen_line(1, recs[1], "x" * 5000 + " answer 3")
    path = lm_file(tmp_path / "lm", lines)
    assert main(["--db", db, "import-predictions", str(path), "--model", "m"]) == 0
    assert "500" in capsys.readouterr().out
    (run,) = imported(db)
    with Store(db) as s:
        assert max(len(p.raw_output or "") for p in s.runs.predictions(run.id)) <= 500


# ---------------------------------------------------------------- 18, 19: shapes and nesting


INSPECT_SHAPES = [
    {"output": []}, {"output": {"choices": [{"message": "text"}]}}, {"epoch": "abc"}, {"error": "boom"},
    {"metadata": []}, {"scores": []}, {"epoch": -1}, {"epoch": 0}, {"output": {"choices": "x"}},
    {"output": {"usage": []}},
]


@pytest.mark.parametrize("extra", INSPECT_SHAPES)
def test_wrong_inspect_shapes_are_one_line(release, tmp_path, capsys, monkeypatch, extra):
    db, out = release
    no_inspect(monkeypatch)
    recs = records(out)
    samples = [sample(r["uid"]) for r in recs[:3]]
    samples[1].update(extra)
    path = inspect_log(tmp_path / "s.json", samples)
    code = main(["--db", db, "import-predictions", str(path)])
    if code == 1:
        err = one_line(capsys)
        assert "s.json" in err and "sample 2" in err
        assert imported(db) == []
    else:  # read as what it is: an error string is an error
        assert extra == {"error": "boom"}


@pytest.mark.parametrize("log", [{"results": []}, {"results": {"scores": [1]}}, {"eval": []},
                                 {"eval": {"model": {"a": 1}}}, {"samples": {"a": 1}}])
def test_wrong_inspect_log_shapes_are_one_line(release, tmp_path, capsys, monkeypatch, log):
    db, out = release
    no_inspect(monkeypatch)
    path = inspect_log(tmp_path / "s.json", [sample(r["uid"]) for r in records(out)[:3]])
    data = json.loads(path.read_text("utf-8"))
    data.update(log)
    path.write_text(json.dumps(data), "utf-8")
    assert main(["--db", db, "import-predictions", str(path)]) == 1
    err = one_line(capsys)
    assert "s.json" in err and "Error binding" not in err and "damaged" not in err


def test_an_eval_header_list_is_one_line(release, tmp_path, capsys, monkeypatch):
    db, _ = release
    no_inspect(monkeypatch)
    path = tmp_path / "h.eval"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("header.json", "[1, 2]")
    assert main(["--db", db, "import-predictions", str(path)]) == 1
    assert "h.eval" in one_line(capsys)


def test_deep_nesting_is_one_line(release, tmp_path, capsys, monkeypatch):
    db, out = release
    no_inspect(monkeypatch)
    deep = "[" * 100_000 + "]" * 100_000
    path = tmp_path / "deep.json"
    path.write_text('{"eval": {"model": "m"}, "samples": ' + deep + "}", "utf-8")
    assert main(["--db", db, "import-predictions", str(path)]) == 1
    assert "deep.json" in one_line(capsys)
    lm = lm_file(tmp_path / "lm", [], raw='{"doc": {"uid": "x"}, "resps": ' + deep + "}\n")
    assert main(["--db", db, "import-predictions", str(lm), "--model", "m"]) == 1
    assert "line 1" in one_line(capsys)


@pytest.mark.parametrize("resps", [[[]], [5, 6], {"a": 1}, [[{"a": 1}]], "x"])
def test_wrong_lm_eval_resps_are_one_line(release, tmp_path, capsys, resps):
    db, out = release
    recs = records(out)
    lines = [gen_line(i, r) for i, r in enumerate(recs)]
    lines[0]["resps"] = resps
    path = lm_file(tmp_path / "lm", lines)
    assert main(["--db", db, "import-predictions", str(path), "--model", "m"]) == 1
    assert "line 1" in one_line(capsys)


@pytest.mark.parametrize("results", [[1, 2], {"model_name": {"a": 1}}, {"config": [1]}, "x"])
def test_a_wrong_results_file_is_ignored_or_one_line(release, tmp_path, capsys, results):
    db, out = release
    recs = records(out)
    path = lm_file(tmp_path / "lm", [gen_line(i, r) for i, r in enumerate(recs)], results=results)
    code = main(["--db", db, "import-predictions", str(path)])
    err = capsys.readouterr().err
    assert "Traceback" not in err and "Error binding" not in err
    if code == 0:
        (run,) = imported(db)
        assert isinstance(run.model, str)


# ---------------------------------------------------------------- 20: upper-case extensions


def test_upper_case_extensions_are_read_as_harness_logs(release, tmp_path, capsys, monkeypatch):
    db, out = release
    no_inspect(monkeypatch)
    path = inspect_log(tmp_path / "LOG.JSON", [sample(r["uid"]) for r in records(out)[:3]])
    assert main(["--db", db, "import-predictions", str(path)]) == 0
    assert "Inspect" in capsys.readouterr().out


def test_an_upper_case_eval_is_read_with_inspect_installed(release, tmp_path, capsys):
    pytest.importorskip("inspect_ai")
    db, out = release
    path = tmp_path / "LOG.EVAL"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("header.json", json.dumps({"status": "success", "eval": {"model": "m", "task": TASK}}))
        for n, r in enumerate(records(out)[:3]):
            z.writestr(f"samples/{n}.json", json.dumps(sample(r["uid"])))
    assert main(["--db", db, "import-predictions", str(path)]) == 0
    assert "3 prediction(s)" in capsys.readouterr().out


def test_a_secret_stored_before_the_fix_is_never_shown(release, tmp_path, capsys):
    """A runs.model written by an older version with a key in it: masked wherever it is read."""
    db, out = release
    path = lm_file(tmp_path / "lm", [gen_line(i, r) for i, r in enumerate(records(out))])
    assert main(["--db", db, "import-predictions", str(path), "--model", "m"]) == 0
    with Store(db) as s:
        s.conn.execute("UPDATE runs SET model = ? WHERE kind = 'imported'", (MODEL_ARGS,))
    capsys.readouterr()
    assert main(["--db", db, "runs"]) == 0
    (run,) = imported(db)
    assert main(["--db", db, "release", "v1", "-o", str(tmp_path / "r"), "--runs", str(run.id)]) == 0
    printed = capsys.readouterr()
    files = "".join(p.read_text("utf-8") for p in (tmp_path / "r").rglob("*") if p.is_file())
    for secret in SECRETS[:3]:
        assert secret not in printed.out + printed.err + files
