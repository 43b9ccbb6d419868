"""Run specs (runs/spec.py): bounds and bad fields one line each, the API-key variable rule,
what an embedding spec accepts."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from persian_tui.cli import main
from persian_tui.runs import LLMRunSpec
from persian_tui.runs.spec import EmbedRunSpec, field_errors

KEY = "sk-live-TOPSECRET-0123456789abcdef"


def test_a_key_pasted_as_the_variable_name_is_refused_everywhere_and_not_echoed(bank10, capsys):
    assert main(["--db", str(bank10.path), "run", "llm", "--base-url", "http://127.0.0.1:9/v1",
                 "--model", "m", "--api-key-env", KEY]) == 1
    err = capsys.readouterr().err
    assert "--api-key-env" in err and KEY not in err
    with pytest.raises(ValidationError) as e:
        LLMRunSpec(base_url="http://x/v1", model="m", api_key_env=KEY)
    assert KEY not in str(field_errors(e.value))
    with pytest.raises(ValidationError):
        EmbedRunSpec(api_key_env="has space")
    assert bank10.runs.runs() == []


@pytest.mark.parametrize("flag, value", [("--max-retries", "-1"), ("--concurrency", "0"),
                                         ("--timeout", "0"), ("--limit", "0"), ("--temperature", "9"),
                                         ("--strategy", "telepathy"), ("--base-url", "ftp://host")])
def test_spec_bounds_are_one_line_errors(bank10, capsys, flag, value):
    args = {"--base-url": "http://127.0.0.1:9/v1", flag: value}
    argv = ["--db", str(bank10.path), "run", "llm", "--model", "m"]
    for k, v in args.items():
        argv += [k, v]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and flag in err and "Traceback" not in err


def test_several_bad_fields_are_one_line_each_and_the_key_is_not_echoed(bank10, capsys):
    argv = ["--db", str(bank10.path), "run", "llm", "--model", "m", "--base-url", "http://127.0.0.1:9/v1",
            "--concurrency", "0", "--max-retries", "-1", "--api-key-env", KEY]
    assert main(argv) == 1
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 3 and all(line.startswith("persian-tui: error: --") for line in lines)
    assert {line.split()[2] for line in lines} == {"--concurrency:", "--max-retries:", "--api-key-env:"}
    assert KEY not in "\n".join(lines) and "sk-" not in "\n".join(lines)


def test_a_base_url_with_a_local_model_is_refused(bank6):
    with pytest.raises(ValidationError, match="openai:"):
        EmbedRunSpec(model="text-embedding-3-small", base_url="http://127.0.0.1:1/v1")
    with pytest.raises(ValidationError, match="openai:"):
        EmbedRunSpec(model="st:some/model", base_url="http://127.0.0.1:1/v1")
    assert EmbedRunSpec(model="openai:e", base_url="http://127.0.0.1:1/v1").base_url


@pytest.mark.parametrize("url", ["http://127.0.0.1:99999/v1", "http://127.0.0.1:port/v1"])
def test_a_base_url_with_an_impossible_port_is_refused(url):
    from persian_tui.runs.spec import check_base_url

    with pytest.raises(ValueError, match="port that is not 1 to 65535"):
        check_base_url(url)
