"""A sweep's spec: a TOML file of endpoints, models, strategies, samples and shuffle seeds,
validated with pydantic and expanded to one LLM run spec per (model, strategy, shuffle seed).

`load_sweep_spec(path)` raises SweepSpecError with ONE line naming the file and the field
(``paper.toml: model[1].price_in: must be greater than or equal to 0``); the rejected value is
never quoted (a key pasted by mistake must not be echoed)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from .. import redact, settings
from ..models import check_release_name
from ..redact import check_env_name
from .prompts import Strategy
from .spec import MAX_SAMPLES, JudgeRunSpec, LLMRunSpec, QuestionSet, check_base_url

MAX_SPEC_BYTES = 1_000_000  # a spec file is read whole: capped
NAME = Annotated[str, Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9][A-Za-z0-9._+-]*$")]


class SweepSpecError(Exception):
    """A spec file that cannot be used: the message is one line naming the file and field."""


class _Part(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _zero_shot() -> list[Strategy]:
    return ["zero-shot"]


class SweepSection(_Part):
    name: NAME
    questions: QuestionSet = "ready"
    release: str | None = None  # exactly this release's questions (instead of `questions`)
    strategies: list[Strategy] = Field(default_factory=_zero_shot, min_length=1)
    samples: int = Field(1, ge=1, le=MAX_SAMPLES)
    shuffle_seeds: list[Annotated[int, Field(ge=0, lt=2**32)]] = Field(default_factory=list)
    max_cost: float | None = Field(None, ge=0, le=1_000_000)  # USD for the whole sweep
    temperature: float | None = Field(None, ge=0.0, le=2.0)
    max_tokens: int | None = Field(None, ge=1, le=1_000_000)
    seed: int | None = Field(None, ge=0, lt=2**62)
    limit: int | None = Field(None, ge=1)  # the first this many questions of the set
    timeout: float = Field(60.0, gt=0, le=3600)
    max_retries: int = Field(4, ge=0, le=20)
    max_failures: int = Field(5, ge=1, le=10_000)
    cache: bool = True

    @field_validator("release")
    @classmethod
    def _release(cls, value: str | None) -> str | None:
        return check_release_name(value or None)

    @field_validator("strategies", "shuffle_seeds")
    @classmethod
    def _distinct(cls, value: list) -> list:
        if len(set(value)) != len(value):
            raise ValueError("lists a value twice")
        return value


class EndpointSection(_Part):
    name: NAME
    base_url: str
    api_key_env: str | None = None  # the variable holding the key; none: the endpoint needs no key
    connections: int = Field(64, ge=1, le=1024)  # requests at once, shared by its models
    requests_per_minute: int | None = Field(None, ge=1, le=10_000_000)
    tokens_per_minute: int | None = Field(None, ge=1, le=10**10)
    tolerate_429: float = Field(0.2, ge=0.0, le=1.0)  # share of the last seconds' requests that may be answered 429

    @field_validator("base_url")
    @classmethod
    def _url(cls, value: str) -> str:
        checked = check_base_url(value)
        assert checked is not None
        return checked

    @field_validator("api_key_env")
    @classmethod
    def _env(cls, value: str | None) -> str | None:
        if value is None:
            return None
        check_env_name(value)
        if not settings.api_key(value):
            raise ValueError(f"names the variable {value}, which is not set in the environment")
        return value


class ModelSection(_Part):
    name: str = Field(min_length=1, max_length=300)
    endpoint: str | None = None  # the endpoint's name (default: the only one)
    connections: int = Field(16, ge=1, le=256)  # requests at once for this model, over its runs
    price_in: float | None = Field(None, ge=0, le=10_000)  # USD per million input tokens
    price_out: float | None = Field(None, ge=0, le=10_000)  # USD per million output tokens
    max_cost: float | None = Field(None, ge=0, le=1_000_000)  # USD for this model's runs


class JudgeSection(_Part):
    """A judge run over each answer run's predictions, once the run is done."""

    model: str = Field(min_length=1, max_length=300)
    endpoint: str | None = None  # the endpoint's name (default: the only one)
    connections: int = Field(16, ge=1, le=256)  # judge requests at once, over its runs
    only_wrong: bool = False  # judge the wrong answers only
    price_in: float | None = Field(None, ge=0, le=10_000)
    price_out: float | None = Field(None, ge=0, le=10_000)
    max_cost: float | None = Field(None, ge=0, le=1_000_000)


class SweepSpec(_Part):
    sweep: SweepSection
    endpoint: list[EndpointSection] = Field(min_length=1)
    model: list[ModelSection] = Field(min_length=1)
    judge: JudgeSection | None = None

    @model_validator(mode="after")
    def _links(self) -> SweepSpec:
        names = [e.name for e in self.endpoint]
        for i, e in enumerate(self.endpoint):
            if e.name in names[:i]:
                raise _FieldError(f"endpoint[{i}].name", f"duplicate endpoint {e.name!r}")
        seen: dict[tuple[str, str], int] = {}
        for i, m in enumerate(self.model):
            if m.endpoint is None and len(names) > 1:
                raise _FieldError(f"model[{i}].endpoint", f"is required: there are {len(names)} endpoints")
            if m.endpoint is not None and m.endpoint not in names:
                raise _FieldError(f"model[{i}].endpoint", f"names no endpoint (have: {', '.join(names)})")
            key = (m.name, self.endpoint_of(m).name)
            if key in seen:
                raise _FieldError(f"model[{i}].name", f"duplicate model (already model[{seen[key]}])")
            seen[key] = i
        j = self.judge
        if j is not None and j.endpoint is None and len(names) > 1:
            raise _FieldError("judge.endpoint", f"is required: there are {len(names)} endpoints")
        if j is not None and j.endpoint is not None and j.endpoint not in names:
            raise _FieldError("judge.endpoint", f"names no endpoint (have: {', '.join(names)})")
        return self

    def endpoint_of(self, model: ModelSection | JudgeSection) -> EndpointSection:
        return next(e for e in self.endpoint if model.endpoint in (None, e.name))

    def run_specs(self) -> list[tuple[str, ModelSection, LLMRunSpec]]:
        """(slot, model, run spec) of every run: models × strategies × shuffle seeds (each run asks
        every question `samples` times). The slot names the run within the sweep."""
        s = self.sweep
        out = []
        for m in self.model:
            e = self.endpoint_of(m)
            for strategy in s.strategies:
                shuffles: list[int | None] = list(s.shuffle_seeds) or [None]
                for shuffle in shuffles:
                    spec = LLMRunSpec(
                        base_url=e.base_url, model=m.name, strategy=strategy,
                        api_key_env=e.api_key_env or "OPENAI_API_KEY", temperature=s.temperature,
                        max_tokens=s.max_tokens, seed=s.seed, shuffle_seed=shuffle, exemplars=3,
                        concurrency=min(m.connections, 256), timeout=s.timeout,
                        max_retries=s.max_retries, max_failures=s.max_failures, cache=s.cache,
                        questions=s.questions, limit=s.limit, samples=s.samples, release=s.release,
                        price_in=m.price_in, price_out=m.price_out)
                    slot = f"{e.name}/{m.name}/{strategy}" + (f"/shuffle-{shuffle}" if shuffle is not None else "")
                    out.append((slot, m, spec))
        return out

    def judge_spec(self, target_run: int) -> JudgeRunSpec:
        """The judge run's spec over answer run `target_run` (the sweep's judge must be set)."""
        j, s = self.judge, self.sweep
        assert j is not None
        e = self.endpoint_of(j)
        return JudgeRunSpec(base_url=e.base_url, model=j.model, api_key_env=e.api_key_env or "OPENAI_API_KEY",
                            concurrency=j.connections, timeout=s.timeout, max_retries=s.max_retries,
                            max_failures=s.max_failures, cache=s.cache, target_run=target_run,
                            only_wrong=j.only_wrong, price_in=j.price_in, price_out=j.price_out,
                            exemplars=3, limit=None, samples=1, sample=None, temperature=0.0, max_tokens=None,
                            seed=None)

    def stored(self) -> dict:
        """The spec as stored with the sweep: URLs without their user-info."""
        data = self.model_dump()
        for e in data["endpoint"]:
            e["base_url"] = redact.url(e["base_url"])
        return data


class _FieldError(ValueError):
    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field, self.message = field, message


def field_path(loc: tuple) -> str:
    """('model', 1, 'price_in') -> 'model[1].price_in'."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "spec"


def first_error(error: ValidationError) -> str:
    """The first problem of a spec as 'field: message', never the value."""
    errors = error.errors(include_input=False, include_url=False)
    # an unknown key first: a misspelt [[endpoints]] is the problem, not the missing [[endpoint]]
    for e in sorted(errors, key=lambda e: e.get("type") != "extra_forbidden"):
        ctx = e.get("ctx") or {}
        inner = ctx.get("error")
        if isinstance(inner, _FieldError):
            return f"{inner.field}: {inner.message}"
        where = field_path(tuple(e.get("loc") or ()))
        kind = e.get("type")
        msg = e.get("msg", "invalid").removeprefix("Value error, ")
        if kind == "extra_forbidden":
            msg = "unknown key" + _did_you_mean(tuple(e.get("loc") or ()))
        elif kind in ("model_type", "dict_type"):
            msg = "must be a table"
        elif kind == "list_type":
            msg = "must be a list" + (f" (each one a [[{where}]] table)" if where in ("endpoint", "model") else "")
        elif kind == "missing":
            msg = "is required"
        elif kind == "literal_error":
            msg = "must be one of " + str(ctx.get("expected", "the listed values"))
        elif kind == "string_pattern_mismatch":
            msg = "must be letters, digits and . _ + - (starting with a letter or digit)"
        msg = msg.replace("Input should be", "must be")
        return f"{where}: {msg}"
    return "spec: invalid"


def _did_you_mean(loc: tuple) -> str:
    """' (did you mean samples?)' when an unknown key is close to one its section has."""
    import difflib

    sections: dict[str, type[BaseModel]] = {"sweep": SweepSection, "endpoint": EndpointSection,
                                            "model": ModelSection, "judge": JudgeSection}
    section = sections.get(str(loc[0]), SweepSpec) if len(loc) > 1 else SweepSpec
    close = difflib.get_close_matches(str(loc[-1]), list(section.model_fields), n=1)
    return f" (did you mean {close[0]}?)" if close else ""


def parse_sweep_spec(data: dict, where: str = "spec") -> SweepSpec:
    try:
        return SweepSpec.model_validate(data)
    except ValidationError as e:
        raise SweepSpecError(f"{where}: {first_error(e)}") from None


def load_sweep_spec(path: str | Path) -> SweepSpec:
    """The validated spec of a TOML file (SweepSpecError: one line naming file and field)."""
    path = Path(path)
    try:
        with path.open("rb") as f:
            raw = f.read(MAX_SPEC_BYTES + 1)
    except OSError as e:
        raise SweepSpecError(f"{path}: cannot read it ({e.strerror or e})") from None
    if len(raw) > MAX_SPEC_BYTES:
        raise SweepSpecError(f"{path}: larger than {MAX_SPEC_BYTES // 1000} kB: not a sweep spec")
    try:
        data = tomllib.loads(raw.decode("utf-8-sig"))  # (Notepad's byte-order mark: the same spec)
    except UnicodeDecodeError:
        raise SweepSpecError(f"{path}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as e:
        raise SweepSpecError(f"{path}: not valid TOML ({str(e).splitlines()[0]})") from None
    return parse_sweep_spec(data, str(path))
