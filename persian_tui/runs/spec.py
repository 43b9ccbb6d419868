"""One validated run spec per run kind: the CLI, the TUI form and Python callers build these
and get the same checks (bounds, known strategies and scorers, the API-key variable rule).

`field_errors(e)` turns a ValidationError into {field: message} for forms and one-line CLI
errors. Messages never quote the rejected value (a key pasted by mistake must not be echoed)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator

from .. import redact
from ..models import QUESTION_SETS, check_release_name
from ..models.recall import CHOOSE_CUES, Cue, Format
from ..redact import check_env_name
from .prompts import Strategy
from .scorers import Scorer

MAX_SAMPLES = 100

if TYPE_CHECKING:  # a name of models.QUESTION_SETS: checked by pydantic, a str to mypy
    QuestionSet = str
else:
    QuestionSet = Literal[tuple(QUESTION_SETS)]


def check_base_url(value: str | None) -> str | None:
    if value is None:
        return None
    value = value.strip()
    try:
        parts = urlsplit(value)
    except ValueError:
        raise ValueError("is not a URL") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("must be an http(s) URL, e.g. https://openrouter.ai/api/v1")
    try:
        parts.port  # noqa: B018 - raises for a port outside 0..65535 or not a number
    except ValueError:
        raise ValueError("has a port that is not 1 to 65535") from None
    return value


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    def stored(self) -> dict:
        """The parameters as stored with the run: no secret in them (user-info redacted)."""
        data = self.model_dump()
        if data.get("base_url"):
            data["base_url"] = redact.url(data["base_url"])
        return data


class LLMRunSpec(_Spec):
    """Ask an LLM every question (also the base of paraphrase and judge runs)."""

    base_url: str = Field(min_length=1)
    model: str = Field(min_length=1, max_length=300)
    strategy: Strategy | Literal["paraphrase", "judge", "recall"] = "zero-shot"
    api_key_env: str = "OPENAI_API_KEY"
    temperature: float | None = Field(0.0, ge=0.0, le=2.0)
    max_tokens: int | None = Field(None, ge=1, le=1_000_000)
    seed: int | None = Field(None, ge=-(2**63), lt=2**63)
    shuffle_seed: int | None = Field(None, ge=0, lt=2**32)  # shuffle option order per item
    exemplars: int = Field(3, ge=0, le=20)  # explained-few-shot
    concurrency: int = Field(4, ge=1, le=256)
    timeout: float = Field(60.0, gt=0, le=3600)  # seconds for a whole request, body included
    max_retries: int = Field(4, ge=0, le=20)
    max_failures: int = Field(5, ge=1, le=10_000)  # consecutive connection/auth failures, then stop
    cache: bool = True
    questions: QuestionSet = "ready"
    limit: int | None = Field(None, ge=1)
    samples: int = Field(1, ge=1, le=MAX_SAMPLES)  # ask each item this many times
    release: str | None = None  # ask exactly this release's questions (instead of `questions`)
    # USD per million tokens: a reply's cost when the endpoint reports none (sweeps, budgets)
    price_in: float | None = Field(None, ge=0, le=10_000)
    price_out: float | None = Field(None, ge=0, le=10_000)
    anchors: list[str] | None = None  # ask only these questions of the set (reports/anchors.py)

    @field_validator("api_key_env")
    @classmethod
    def _env(cls, value: str) -> str:
        return check_env_name(value)

    def priced(self, tokens_in: int | None, tokens_out: int | None) -> float | None:
        """The cost of a reply by the spec's prices (None without prices or token counts)."""
        if (self.price_in is None and self.price_out is None) or (tokens_in is None and tokens_out is None):
            return None
        return ((tokens_in or 0) * (self.price_in or 0) + (tokens_out or 0) * (self.price_out or 0)) / 1e6

    @field_validator("base_url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        return check_base_url(value)

    @field_validator("release")
    @classmethod
    def _release(cls, value: str | None) -> str | None:
        return check_release_name(value or None)

    def request_params(self, sample: int = 0) -> dict:
        """The request's parameters for sample `sample`: a given seed is moved by the sample
        index, so each sample is a distinct draw (sample 0 asks exactly as a single run)."""
        seed = None if self.seed is None else self.seed + sample
        params = {"temperature": self.temperature, "max_tokens": self.max_tokens, "seed": seed}
        return {k: v for k, v in params.items() if v is not None}


class ParaphraseRunSpec(LLMRunSpec):
    """An LLM writes each couplet as plain prose (embed it later with an embedding run)."""

    strategy: Literal["paraphrase"] = "paraphrase"
    shuffle_seed: None = None
    exemplars: int = Field(0, ge=0, le=0)
    samples: int = Field(1, ge=1, le=1)
    # corpus couplets (of poems none of whose couplets is in the bank) instead of the bank's
    # questions: `limit` of them (default CORPUS_LIMIT), drawn with `corpus_seed`, of `poets`
    corpus: bool = False
    poets: list[str] | None = None
    corpus_seed: int = Field(0, ge=0, lt=2**32)


class RecallRunSpec(LLMRunSpec):
    """Recall probes (GhazalBench's scenarios): for each couplet of the questions, the model
    writes (`complete`) or picks among four (`choose`) its second hemistich, given a cue."""

    strategy: Literal["recall"] = "recall"
    cue: Cue = "first"
    format: Format = "complete"
    paraphrase_run: int | None = Field(None, ge=1, validate_default=True)  # the prose of cue `prose`
    probe_seed: int = Field(0, ge=0, lt=2**32)  # the shuffled words and the choices' order
    shuffle_seed: None = None
    exemplars: int = Field(0, ge=0, le=0)
    samples: int = Field(1, ge=1, le=1)

    @field_validator("format")
    @classmethod
    def _format(cls, value: str, info: ValidationInfo) -> str:
        cue = info.data.get("cue")
        if value == "choose" and cue is not None and cue not in CHOOSE_CUES:
            raise ValueError(f"choose is not for cue {cue}: its words would give the answer away "
                             f"(choose takes {' or '.join(CHOOSE_CUES)})")
        return value

    @field_validator("paraphrase_run")
    @classmethod
    def _prose(cls, value: int | None, info: ValidationInfo) -> int | None:
        cue = info.data.get("cue")
        if cue == "prose" and value is None:
            raise ValueError("is needed for cue prose: the paraphrase run whose prose is the cue")
        if cue is not None and cue != "prose" and value is not None:
            raise ValueError("only applies to cue prose")
        return value


class JudgeRunSpec(LLMRunSpec):
    """An LLM judge classifies the errors of `target_run`'s answers."""

    strategy: Literal["judge"] = "judge"
    target_run: int = Field(ge=1)
    only_wrong: bool = False
    shuffle_seed: None = None
    samples: int = Field(1, ge=1, le=1)
    release: None = None
    anchors: None = None
    sample: int | None = Field(None, ge=0, lt=MAX_SAMPLES)  # judge this sample (default: the majority's first)


class EmbedRunSpec(_Spec):
    """Embedding outlier detection: tfidf | st:<name or folder> | openai:<model> (with base_url)."""

    model: str = Field("tfidf", min_length=1, max_length=500)
    scorer: Scorer = "centroid"
    prefix: str | None = Field(None, max_length=200)
    base_url: str | None = Field(None, validate_default=True)
    api_key_env: str = "OPENAI_API_KEY"
    batch_size: int = Field(64, ge=1, le=4096)
    questions: QuestionSet = "ready"
    limit: int | None = Field(None, ge=1)
    paraphrase_run: int | None = Field(None, ge=1)  # embed this paraphrase run's prose
    release: str | None = None  # score exactly this release's questions

    @field_validator("release")
    @classmethod
    def _release(cls, value: str | None) -> str | None:
        return check_release_name(value or None)

    @field_validator("model")
    @classmethod
    def _model(cls, value: str) -> str:
        value = value.strip()
        name = value.split(":", 1)[1].strip() if value.startswith(("st:", "openai:")) else value
        if not name:
            raise ValueError(f"must name the model: {value}<name>")
        if value != "tfidf" and not value.startswith("openai:") and name.startswith(("/", ".", "~")) \
                and not Path(name).expanduser().is_dir():
            raise ValueError(f"names no folder: {name}")
        return value

    @field_validator("prefix")
    @classmethod
    def _prefix(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value and info.data.get("model") == "tfidf":
            raise ValueError("does not apply to tfidf: leave it empty")
        return value or None

    @field_validator("base_url")
    @classmethod
    def _url(cls, value: str | None, info: ValidationInfo) -> str | None:
        openai = str(info.data.get("model", "")).startswith("openai:")
        if not value and openai:
            raise ValueError("is needed for openai:<model>, e.g. http://127.0.0.1:11434/v1")
        if value and not openai and "model" in info.data:
            raise ValueError("only applies to an endpoint model: name it openai:<model> "
                             "(tfidf and st: models run locally)")
        return check_base_url(value) if value else None

    @field_validator("api_key_env")
    @classmethod
    def _env(cls, value: str) -> str:
        return check_env_name(value)


SPECS = {"llm": LLMRunSpec, "paraphrase": ParaphraseRunSpec, "judge": JudgeRunSpec,
         "embedding": EmbedRunSpec, "recall": RecallRunSpec}



def resume_command(kind: str, run_id: int) -> str | None:
    """The command line that goes on with an interrupted run of ``kind`` (None: that kind does
    not resume; an embedding run is quick to launch again)."""
    if kind == "judge":
        return f"persian-tui judge --resume {run_id}"
    if kind in ("llm", "paraphrase", "recall"):
        return f"persian-tui run {kind} --resume {run_id}"
    return None

# what a resume may change: how to reach the endpoint and how hard to push, never what is asked
RESUME_OVERRIDES = ("base_url", "api_key_env", "concurrency", "timeout", "max_retries",
                    "max_failures", "limit")


def field_errors(error: ValidationError) -> dict[str, str]:
    """{field: message} of a ValidationError, first message per field, never the input."""
    out: dict[str, str] = {}
    for e in error.errors(include_input=False, include_url=False):
        name = str(e["loc"][0]) if e.get("loc") else "spec"
        msg = e.get("msg", "invalid").removeprefix("Value error, ")
        msg = msg.replace("Input should be", "must be").replace("String should have at least 1 character",
                                                                "must not be empty")
        if e.get("type") == "literal_error":
            msg = "must be one of " + (e.get("ctx", {}).get("expected", "") or "the listed values")
        elif e.get("type") == "extra_forbidden":
            msg = "is not a setting of this run kind"
        out.setdefault(name, msg)
    return out


def describe(error: ValidationError, flag: bool = True, sep: str = "; ") -> str:
    """The field errors, e.g. '--concurrency: must be greater than or equal to 1', joined by
    `sep` (the CLI gives "\n": one line per field)."""
    return sep.join(f"{'--' + k.replace('_', '-') if flag else k}: {v}"
                     for k, v in field_errors(error).items())
