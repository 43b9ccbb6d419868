"""Sweep specs (runs/sweep_spec.py) and `sweep --dry-run`: the issue's TOML works as written, a bad
spec gets one line naming the field, the dry run lists runs, requests and cost and sends nothing."""

from __future__ import annotations

import pytest

from persian_tui.cli import main
from persian_tui.runs.sweep_spec import SweepSpecError, load_sweep_spec

AS_WRITTEN = """\
[sweep]
name = "paper-1"
questions = "ready"            # or: release = "v1"
strategies = ["zero-shot"]
samples = 3
max_cost = 5.0                 # USD, optional

[[endpoint]]
name = "local"
base_url = "http://127.0.0.1:8000/v1"
api_key_env = "OPENAI_API_KEY"
connections = 96               # shared by every model on this endpoint

[[model]]
name = "openai/gpt-5-mini"
endpoint = "local"
connections = 16
price_in = 0.25                # USD per million tokens, when the endpoint reports no cost
price_out = 2.0
"""

SECOND_MODEL = """
[[model]]
name = "qwen/qwen3-8b"
endpoint = "local"
connections = 8
"""


@pytest.fixture
def key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")


def write(tmp_path, text: str):
    path = tmp_path / "paper.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_spec_of_the_issue_works_as_written(tmp_path, key):
    spec = load_sweep_spec(write(tmp_path, AS_WRITTEN + SECOND_MODEL))
    runs = spec.run_specs()
    assert [slot for slot, _, _ in runs] == ["local/openai/gpt-5-mini/zero-shot", "local/qwen/qwen3-8b/zero-shot"]
    first = runs[0][2]
    assert (first.samples, first.concurrency, first.price_in, first.price_out) == (3, 16, 0.25, 2.0)
    assert spec.sweep.max_cost == 5.0 and spec.endpoint[0].connections == 96


@pytest.mark.parametrize("change, field", [
    (lambda t: t.replace("samples = 3", "samples = 3\nsampels = 2"), "sweep.sampels: unknown key"),
    (lambda t: t.replace("price_in = 0.25", "price_in = -0.25"),
     "model[0].price_in: must be greater than or equal to 0"),
    (lambda t: t.replace('api_key_env = "OPENAI_API_KEY"', 'api_key_env = "NO_SUCH_KEY_VARIABLE"'),
     "endpoint[0].api_key_env: names the variable NO_SUCH_KEY_VARIABLE, which is not set"),
    (lambda t: t + SECOND_MODEL.replace("qwen/qwen3-8b", "openai/gpt-5-mini"),
     "model[1].name: duplicate model (already model[0])"),
    (lambda t: t.replace('endpoint = "local"', 'endpoint = "remote"'), "model[0].endpoint: names no endpoint"),
    (lambda t: t.replace('name = "paper-1"\n', ""), "sweep.name: is required"),
    (lambda t: t.replace('strategies = ["zero-shot"]', 'strategies = ["zero-shot", "cot"]'),
     "sweep.strategies[1]: must be one of"),
    (lambda t: t.replace("connections = 96", "connections = 0"),
     "endpoint[0].connections: must be greater than or equal to 1"),
    (lambda t: t.replace("[[model]]", "[[model]"), "not valid TOML"),
])
def test_a_bad_spec_gets_one_line_naming_the_field(tmp_path, key, capsys, change, field):
    path = write(tmp_path, change(AS_WRITTEN))
    db = tmp_path / "x.db"
    assert main(["--db", str(db), "sweep", str(path), "--dry-run"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{path}: " in err and field in err, err
    with pytest.raises(SweepSpecError):
        load_sweep_spec(path)


def test_a_key_in_place_of_the_variable_name_is_not_echoed(tmp_path, key, capsys):
    secret = "sk-live-TOPSECRET-0123456789abcdef"
    path = write(tmp_path, AS_WRITTEN.replace('api_key_env = "OPENAI_API_KEY"', f'api_key_env = "{secret}"'))
    assert main(["--db", str(tmp_path / "x.db"), "sweep", str(path)]) == 1
    err = capsys.readouterr().err
    assert "endpoint[0].api_key_env" in err and secret not in err


def test_the_dry_run_lists_runs_requests_and_cost_and_sends_nothing(bank10, tmp_path, key, capsys):
    text = (AS_WRITTEN + SECOND_MODEL).replace('questions = "ready"', 'questions = "all"').replace(
        'strategies = ["zero-shot"]', 'strategies = ["zero-shot", "json"]\nmax_tokens = 100')
    path = write(tmp_path, text)
    assert main(["--db", str(bank10.path), "sweep", str(path), "--dry-run"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "sweep paper-1: 4 runs, 10 questions (questions all) × 3 samples, 120 requests"
    assert [line.split()[0] for line in out[1:5]] == [
        "local/openai/gpt-5-mini/zero-shot", "local/openai/gpt-5-mini/json",
        "local/qwen/qwen3-8b/zero-shot", "local/qwen/qwen3-8b/json"]
    assert all(" 30 requests" in line for line in out[1:5])
    assert "—" in out[3]  # no price: the endpoint reports the cost
    assert out[5].startswith("estimated cost: unknown") and "budget $5.00" in out[5]
    assert out[-1] == "dry run: nothing sent"
    assert bank10.runs.runs() == [] and bank10.sweeps.sweeps() == []
    # priced models only: the estimate is a sum of the runs' (tokens at the prices)
    assert main(["--db", str(bank10.path), "sweep", str(write(tmp_path, text.replace(SECOND_MODEL, ""))),
                 "--dry-run", "--max-cost", "0.5"]) == 0
    out = capsys.readouterr().out.splitlines()
    runs = [float(line.split("$")[1].split()[0]) for line in out[1:3]]
    total = float(out[3].split("$")[1].split(";")[0])
    assert total == pytest.approx(sum(runs), abs=2e-4) and 0 < total < 0.05
    # the output bound (max_tokens = 100 at $2 a million) is in each run's figure
    assert runs[0] > 30 * 100 * 2.0 / 1e6
    assert "budget $0.50" in out[3]


def test_the_guide_shows_the_dry_run_its_spec_gives(bank10, tmp_path, key, capsys):
    """docs/guide/sweeps.md: its spec (the first toml block) dry-run on ten questions prints
    exactly the block marked generated."""
    import re
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "guide" / "sweeps.md").read_text("utf-8")
    spec = re.search(r"```toml\n(.*?)```", page, re.S)[1]
    shown = re.search(r"<!-- generated:.*?-->\n```text\n(.*?)```", page, re.S)[1]
    assert main(["--db", str(bank10.path), "sweep", str(write(tmp_path, spec)), "--dry-run"]) == 0
    assert capsys.readouterr().out == shown
    for line in re.search(r"nothing is sent:\n\n(?:<!--.*?-->\n)?```text\n(.*?)```", page, re.S)[1].splitlines():
        assert line.startswith("paper.toml: ")  # the errors shown are those test_a_bad_spec... checks


def test_the_guides_error_lines_are_what_the_command_prints(tmp_path, monkeypatch, capsys):
    """docs/guide/sweeps.md's block of refusals is the command's own output, line for line."""
    from pathlib import Path

    guide = (Path(__file__).resolve().parents[2] / "docs/guide/sweeps.md").read_text("utf-8")
    block = guide.split("A spec that cannot be used gets one line")[1].split("```text\n")[1].split("```")[0]
    monkeypatch.chdir(tmp_path)
    cases = [  # (the change, whether OPENAI_API_KEY is set)
        (lambda t: t + SECOND_MODEL.replace("qwen/qwen3-8b", "openai/gpt-5-mini"), True),
        (lambda t: t.replace("price_in = 0.25", "price_in = -0.25"), True),
        (lambda t: t, False),
        (lambda t: t.replace("samples = 3", "samples = 3\nsampels = 2"), True),
    ]
    got = []
    for change, with_key in cases:
        if with_key:
            monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
        else:
            monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        Path("paper.toml").write_text(change(AS_WRITTEN), "utf-8")
        assert main(["--db", "x.db", "sweep", "paper.toml", "--dry-run"]) == 1
        got += [line.removeprefix("persian-tui: error: ") for line in capsys.readouterr().err.splitlines()]
    assert got == block.splitlines()


@pytest.mark.parametrize("change, field", [
    (lambda t: t.replace("samples = 3", "samples = 3\nsampels = 2"),
     "sweep.sampels: unknown key (did you mean samples?)"),
    (lambda t: t.replace("[[endpoint]]", "[[endpoints]]"), "endpoints: unknown key (did you mean endpoint?)"),
    (lambda t: t.replace("price_out = 2.0", "price_ot = 2.0"),
     "model[0].price_ot: unknown key (did you mean price_out?)"),
    (lambda t: t.replace("samples = 3", "samples = 3\ncolour = 2"), "sweep.colour: unknown key\n"),
    (lambda t: "sweep = 3\n" + t[t.index("[[endpoint]]"):], "sweep: must be a table\n"),
    (lambda t: t.replace("[[model]]", "[model]"), "model: must be a list (each one a [[model]] table)\n"),
], ids=["sampels", "endpoints", "price_ot", "colour", "sweep-not-a-table", "model-not-a-list"])
def test_a_misspelt_key_or_a_section_of_the_wrong_kind_is_named_in_the_specs_words(
        tmp_path, key, capsys, change, field):
    path = write(tmp_path, change(AS_WRITTEN))
    assert main(["--db", str(tmp_path / "x.db"), "sweep", str(path), "--dry-run"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{path}: {field}" in err, err
    assert "instance of" not in err and "Section" not in err  # never pydantic's class names


def test_a_spec_saved_with_a_byte_order_mark_is_read(tmp_path, key):
    """Windows editors (Notepad) save UTF-8 with a byte-order mark: the spec is the same spec."""
    path = tmp_path / "paper.toml"
    path.write_bytes(b"\xef\xbb\xbf" + AS_WRITTEN.encode("utf-8"))
    assert load_sweep_spec(path).sweep.name == "paper-1"


@pytest.mark.parametrize("content, reason", [
    (b"", "sweep: is required"),
    ("[sweep]\nname = \"caf\xe9\"\n".encode("latin-1"), "not UTF-8 text"),
    (b"# " + b"x" * 1_100_000 + b"\n", "larger than 1000 kB: not a sweep spec"),
    (b"[sweep]\nname = \"a\x1b[31m\"\n", "not valid TOML (Illegal character '\\x1b' (at line 2, column 10))"),
], ids=["empty", "latin-1", "huge", "control character"])
def test_a_file_that_is_no_spec_gets_one_line(tmp_path, key, capsys, content, reason):
    path = tmp_path / "paper.toml"
    path.write_bytes(content)
    assert main(["--db", str(tmp_path / "x.db"), "sweep", str(path), "--dry-run"]) == 1
    err = capsys.readouterr().err
    assert err == f"persian-tui: error: {path}: {reason}\n"
