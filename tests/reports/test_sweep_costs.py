"""What a sweep's runs cost closes its report in every format (`report --sweep`: table, md, csv,
json): per run and for the sweep the rows, requests, 429s, retries and cost, and the budget."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import threading

import pytest
from llm_server import LLMServer, Reply, chat

from persian_tui.cli import main
from persian_tui.runs.sweep import create_sweep, execute_sweep, plan_sweep
from persian_tui.runs.sweep_spec import parse_sweep_spec

COST = 0.001


@pytest.fixture
def swept(bank6):
    """A sweep `s` of two models × 6 questions × 1 sample (budget $1), every third first
    attempt of model a answered 429 (Retry-After 0): its retries and 429s are a's only."""
    seen: set[str] = set()
    lock = threading.Lock()
    busy = [0]

    def script(body, n):
        key = json.dumps(body, sort_keys=True)
        with lock:
            first = key not in seen
            seen.add(key)
            if first and body["model"] == "a":
                busy[0] += 1
                if busy[0] % 3 == 0:
                    return Reply(429, {"error": {"message": "slow down"}}, headers={"Retry-After": "0"})
        return chat("1", cost=COST)

    with LLMServer(script) as server:
        data = {"sweep": {"name": "s", "questions": "all", "strategies": ["zero-shot"], "samples": 1,
                          "max_cost": 1.0, "max_retries": 2},
                "endpoint": [{"name": "local", "base_url": server.url, "connections": 8}],
                "model": [{"name": "a", "connections": 2}, {"name": "b", "connections": 2}]}
        spec = parse_sweep_spec(data)
        create_sweep(bank6, plan_sweep(bank6, spec))
        asyncio.run(execute_sweep(bank6.path, spec))
    runs = {r.params.get("model") or r.model: r.id for r in bank6.runs.runs()}
    return bank6, runs


def report(store, fmt: str, tmp_path, capsys) -> dict[str, str]:
    out = tmp_path / "exports" / fmt
    args = ["--db", str(store.path), "report", "--sweep", "s"]
    assert main(args + ([] if fmt == "table" else ["--format", fmt, "-o", str(out)])) == 0
    if fmt == "table":
        return {"stdout": capsys.readouterr().out}
    return {p.name: p.read_text("utf-8") for p in out.iterdir() if p.suffix != ".png"}


def test_the_table_report_closes_with_the_sweeps_cost(swept, tmp_path, capsys):
    store, runs = swept
    text = report(store, "table", tmp_path, capsys)["stdout"].split("== Sweep s: cost per run")[1]
    rows = {line.split()[0]: line.split() for line in text.splitlines() if line.startswith(("#", " "))}
    a, b = rows[f"#{runs['a']}"], rows[f"#{runs['b']}"]
    assert a[1:] == ["local/a/zero-shot", "done", "6", "8", "2", "2", "$0.0060"]
    assert b[1:] == ["local/b/zero-shot", "done", "6", "6", "0", "0", "$0.0060"]
    total = next(line.split() for line in text.splitlines() if line.split()[:1] == ["total"])
    assert total == ["total", "12", "14", "2", "2", "$0.0120"]
    assert "Sweep s: spent $0.0120 of the budget $1.00 (1 %)." in text


def test_the_markdown_report_closes_with_the_sweeps_cost(swept, tmp_path, capsys):
    store, runs = swept
    md = report(store, "md", tmp_path, capsys)["report.md"]
    section = md.split("## Sweep s: cost\n")[1]
    assert f"| #{runs['a']} | local/a/zero-shot | done | 6 | 8 | 2 | 2 | $0.0060 |" in section
    assert "|  | total |  | 12 | 14 | 2 | 2 | $0.0120 |" in section
    assert "spent $0.0120 of the budget $1.00" in section


def test_the_csv_report_has_the_sweeps_cost_file(swept, tmp_path, capsys):
    store, runs = swept
    rows = list(csv.DictReader(io.StringIO(report(store, "csv", tmp_path, capsys)["sweep_cost.csv"])))
    by_run = {r["run_id"]: r for r in rows}
    assert by_run[str(runs["a"])] == {"sweep": "s", "run_id": str(runs["a"]), "slot": "local/a/zero-shot",
                                           "status": "done", "rows": "6", "requests": "8", "throttled": "2",
                                           "retries": "2", "cost_usd": "0.006", "budget_usd": ""}
    assert by_run[""] == {"sweep": "s", "run_id": "", "slot": "total", "status": "", "rows": "12",
                          "requests": "14", "throttled": "2", "retries": "2", "cost_usd": "0.012",
                          "budget_usd": "1.0"}


def test_the_json_report_has_the_sweeps_cost(swept, tmp_path, capsys):
    store, runs = swept
    data = json.loads(report(store, "json", tmp_path, capsys)["report.json"])["sweep"]
    assert {k: data[k] for k in ("name", "budget", "spent", "requests", "throttled", "retries")} == \
        {"name": "s", "budget": 1.0, "spent": 0.012, "requests": 14, "throttled": 2, "retries": 2}
    a = next(r for r in data["runs"] if r["run_id"] == runs["a"])
    assert a == {"run_id": runs["a"], "slot": "local/a/zero-shot", "status": "done", "rows": 6, "requests": 8,
                 "throttled": 2, "retries": 2, "cost": 0.006}


def test_a_report_without_sweep_has_no_cost_section(swept, tmp_path, capsys):
    store, _ = swept
    assert main(["--db", str(store.path), "report", "--format", "json", "-o", str(tmp_path / "exports" / "j")]) == 0
    assert json.loads((tmp_path / "exports" / "j" / "report.json").read_text("utf-8"))["sweep"] is None
    assert main(["--db", str(store.path), "report", "--format", "csv", "-o", str(tmp_path / "exports" / "c")]) == 0
    assert not (tmp_path / "exports" / "c" / "sweep_cost.csv").exists()


def test_the_guides_cost_section_is_what_the_report_prints(swept, tmp_path, capsys):
    """docs/guide/sweeps.md shows this fixture's section of `report --sweep s` line for line."""
    from pathlib import Path

    guide = (Path(__file__).resolve().parents[2] / "docs" / "guide" / "sweeps.md").read_text("utf-8")
    shown = guide.split("<!-- checked: tests/reports/test_sweep_costs.py")[1].split("```text\n")[1].split("```")[0]
    text = report(swept[0], "table", tmp_path, capsys)["stdout"]
    section = "== Sweep s: cost per run" + text.split("== Sweep s: cost per run")[1].split("\n\nConfusion")[0]
    assert section + "\n" == shown

