"""Embedders: one interface over TF-IDF, sentence-transformers and OpenAI-compatible endpoints.

(model_id, revision, prefix, normalization, text) identifies a vector: everything that changes
it. Heavy libraries (scikit-learn, sentence-transformers, openai) are imported on first use.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from persian_tui.text import ZWNJ, normalize, storable

NORMALIZATIONS = ("none", "hazm")


class EmbedderError(Exception):
    """A model that cannot be loaded or an endpoint that fails: the message says which and why."""


@runtime_checkable
class Embedder(Protocol):
    model_id: str  # "tfidf", "st:<name or path>", "openai:<base_url>#<model>"
    revision: str  # what changes the vectors besides the text
    prefix: str  # prepended to every input (part of the cache key)
    normalization: str  # "none" | "hazm": how input text was normalized before embedding
    cacheable: bool  # vectors worth keeping in the database cache

    def embed(self, texts: list[str]) -> npt.NDArray[np.float32]:
        """(len(texts), d) float32, in input order."""
        ...


def _prepare(texts: list[str], normalization: str) -> list[str]:
    return [normalize(t) for t in texts] if normalization == "hazm" else list(texts)


def _check_normalization(normalization: str) -> str:
    if normalization not in NORMALIZATIONS:
        raise EmbedderError(f"unknown normalization {normalization!r}; expected one of {', '.join(NORMALIZATIONS)}")
    return normalization


def checked_vectors(rows: npt.NDArray[np.floating],
                    error: Callable[[str], Exception] = EmbedderError) -> npt.NDArray[np.float32]:
    """Vectors fit to score: finite (NaN, infinity and values past float32 are refused) and not
    zero (a zero vector has no direction: every cosine with it is meaningless). float32 out."""
    with np.errstate(over="ignore", invalid="ignore"):
        if not np.isfinite(rows).all() or not np.isfinite(rows.astype(np.float32)).all():
            bad = int(np.flatnonzero(~np.isfinite(rows.astype(np.float32)).all(axis=1))[0])
            raise error(f"embedding {bad} has values that are not finite numbers (NaN, infinity or too large)")
    zero = ~rows.any(axis=1)
    if zero.any():
        raise error(f"embedding {int(np.flatnonzero(zero)[0])} is a zero vector")
    return rows.astype(np.float32)


def _batches(items: list, size: int):
    for i in range(0, len(items), size):
        yield items[i : i + size]


# ---------------------------------------------------------------- TF-IDF


def _char_wb_grams(doc: str) -> list[str]:
    """sklearn's char_wb 2-4-grams of a text (each word padded with a space on both sides,
    every window of 2, 3 and 4 letters; a word shorter than a size stops at it), cut by
    slicing: the same list, about twice as fast as sklearn's loop."""
    out: list[str] = []
    for w in doc.split():
        w = f" {w} "
        k = len(w)
        for n in (2, 3, 4):
            if n > k:
                break
            out += [w[i:i + n] for i in range(k - n + 1)]
    return out


class TfidfEmbedder:
    """Offline lexical baseline: TF-IDF over word unigrams + character 2-4-grams.

    Word unigrams give whole-word matches. Character n-grams inside word boundaries (char_wb)
    give partial credit across Persian morphology and spelling - attached affixes (ها، ان، ی،
    م، ت، ش), می/نمی prefixes, ZWNJ vs space vs joined spellings - that whole words miss;
    2-4 covers stems and affixes, longer grams mostly duplicate the (short) words themselves.
    ZWNJ counts as a word break in both. Each part is L2-normalized with sublinear tf and the
    two are concatenated with equal weight (unit vectors overall). Fitted on the given corpus
    (the bank's texts); d = vocabulary size, capped by max_features per part.
    """

    model_id = "tfidf"
    cacheable = False  # wide sparse-turned-dense rows; refitting is cheaper than storing them
    prefix = ""
    _CONFIG = "v1 word(\\w\\w+) + char_wb(2,4), sublinear tf, l2, equal weight"

    def __init__(self, corpus: list[str], normalization: str = "hazm", *, max_features: int | None = 20_000):
        from sklearn.feature_extraction.text import TfidfVectorizer

        self.normalization = _check_normalization(normalization)
        corpus = list(corpus)
        digest = hashlib.sha256(f"{self._CONFIG} max_features={max_features}\n".encode())
        for text in sorted(corpus):
            digest.update(text.encode("utf-8") + b"\0")
        self.revision = digest.hexdigest()
        common = dict(sublinear_tf=True, lowercase=False, dtype=np.float32, max_features=max_features)
        self._vectorizers = [
            TfidfVectorizer(analyzer="word", token_pattern=r"(?u)\b\w\w+\b", **common),
            TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 4), **common),
        ]
        docs = self._prep(corpus)
        try:
            for v in self._vectorizers:
                v.fit(docs)
        except ValueError as e:  # empty vocabulary
            raise EmbedderError(f"tfidf: cannot fit on a corpus of {len(corpus)} text(s): {e}") from e
        self.dim = sum(len(v.vocabulary_) for v in self._vectorizers)

    def _prep(self, texts: list[str]) -> list[str]:
        return [t.replace(ZWNJ, " ") for t in _prepare(texts, self.normalization)]

    def embed(self, texts: list[str]) -> npt.NDArray[np.float32]:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        docs = self._prep(texts)
        return self._joined([v.transform(docs) for v in self._vectorizers])

    @classmethod
    def fitted_vectors(cls, corpus: list[str], normalization: str = "hazm") -> npt.NDArray[np.float32]:
        """`cls(corpus).embed(corpus)` in one pass over the texts (fit_transform: the same
        vectors, each text analysed once instead of twice)."""
        self = cls.__new__(cls)
        self.normalization = _check_normalization(normalization)
        common = dict(sublinear_tf=True, lowercase=False, dtype=np.float32, max_features=20_000)
        from sklearn.feature_extraction.text import TfidfVectorizer

        self._vectorizers = [TfidfVectorizer(analyzer="word", token_pattern=r"(?u)\b\w\w+\b", **common),
                             TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 4), **common)]
        docs = self._prep(list(corpus))
        try:
            return self._joined([v.fit_transform(docs) for v in self._vectorizers])
        except ValueError as e:  # empty vocabulary
            raise EmbedderError(f"tfidf: cannot fit on a corpus of {len(corpus)} text(s): {e}") from e

    @classmethod
    def fitted_sparse(cls, corpus: list[str], normalization: str = "hazm"):
        """fitted_vectors as a sparse (CSR) matrix, the character n-grams cut by slicing
        (_char_wb_grams: the same n-grams as sklearn's char_wb, faster): the same values
        without a dense row per text (similar couplets: 401 texts of about 11,000 columns)."""
        import scipy.sparse as sp
        from sklearn.feature_extraction.text import TfidfVectorizer

        common = dict(sublinear_tf=True, lowercase=False, dtype=np.float32, max_features=20_000)
        vectorizers = [TfidfVectorizer(analyzer="word", token_pattern=r"(?u)\b\w\w+\b", **common),
                       TfidfVectorizer(analyzer=_char_wb_grams, **common)]
        docs = [t.replace(ZWNJ, " ") for t in _prepare(list(corpus), _check_normalization(normalization))]
        try:
            parts = [v.fit_transform(docs) for v in vectorizers]
        except ValueError as e:  # empty vocabulary
            raise EmbedderError(f"tfidf: cannot fit on a corpus of {len(corpus)} text(s): {e}") from e
        return (sp.hstack(parts, format="csr") * np.float32(1 / np.sqrt(2))).astype(np.float32, copy=False)

    @staticmethod
    def _joined(parts: list) -> npt.NDArray[np.float32]:
        return (np.hstack([p.toarray() for p in parts]) * np.float32(1 / np.sqrt(2))).astype(np.float32, copy=False)


# ---------------------------------------------------------------- sentence-transformers

_E5 = re.compile(r"(^|[^a-z0-9])e5([^a-z0-9]|$)", re.IGNORECASE)


def _folder_revision(path: Path) -> str:
    """Hash of every file's relative path, size and mtime: changes when the model files do."""
    digest = hashlib.sha256()
    for root, dirs, files in os.walk(path):
        dirs.sort()
        for name in sorted(files):
            p = Path(root, name)
            st = p.stat()
            digest.update(f"{p.relative_to(path)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return "files:" + digest.hexdigest()[:16]


def _commit_hash(model) -> str:
    for module in model:
        config = getattr(getattr(module, "auto_model", None), "config", None)
        commit = getattr(config, "_commit_hash", None)
        if commit:
            return commit
    return "unknown"


def default_prefix(model, name: str) -> str:
    """The model's own "query" prompt (or its default prompt), else "query: " for the e5
    family, else none."""
    prompts = getattr(model, "prompts", None) or {}
    if prompts.get("query"):
        return prompts["query"]
    default = getattr(model, "default_prompt_name", None)
    if default and prompts.get(default):
        return prompts[default]
    if _E5.search(Path(name.rstrip("/")).name) and "instruct" not in name.lower():
        return "query: "
    return ""


class SentenceTransformerEmbedder:
    """A sentence-transformers model from a local folder (or a hub name already cached)."""

    def __init__(
        self,
        name_or_path: str,
        prefix: str | None = None,
        batch_size: int = 32,
        normalization: str = "none",
        device: str = "cpu",
    ):
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise EmbedderError(NO_EXTRA) from None

        self.normalization = _check_normalization(normalization)
        self.batch_size = batch_size
        path = Path(name_or_path).expanduser()
        local = path.is_dir()
        if not local and (path.exists() or name_or_path.startswith(("/", "./", "../", "~"))):
            raise EmbedderError(f"cannot load model {name_or_path}: {'not a' if path.exists() else 'no such'} folder")
        try:
            self._model = SentenceTransformer(str(path) if local else name_or_path, device=device)
        except Exception as e:  # noqa: BLE001 - hub, config and weight errors all end here
            reason = (str(e).strip().splitlines() or [type(e).__name__])[0][:300]
            raise EmbedderError(
                f"cannot load model {name_or_path}: {reason} (no network: pass a local folder)"
            ) from e
        self.model_id = f"st:{path.resolve() if local else name_or_path}"
        self.cacheable = True
        self.revision = _folder_revision(path) if local else _commit_hash(self._model)
        self.prefix = default_prefix(self._model, name_or_path) if prefix is None else prefix

    @property
    def dim(self) -> int:
        for name in ("get_embedding_dimension", "get_sentence_embedding_dimension"):
            if callable(getattr(self._model, name, None)):
                return getattr(self._model, name)() or 0
        return 0

    def embed(self, texts: list[str]) -> npt.NDArray[np.float32]:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = self._model.encode(
            _prepare(texts, self.normalization),
            prompt=self.prefix,  # explicit, so a configured default prompt is not added again
            batch_size=self.batch_size,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)


# ---------------------------------------------------------------- OpenAI-compatible


class OpenAIEmbedder:
    """Any OpenAI-compatible /v1/embeddings endpoint (OpenAI, vLLM, Ollama, llama.cpp, ...).

    The API key is read from the environment variable `api_key_env` and never stored here,
    logged or put in an error message. revision is "" - an endpoint does not say what it runs.
    """

    revision = ""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key_env: str = "OPENAI_API_KEY",
        batch_size: int = 64,
        timeout: float = 60,
        *,
        prefix: str = "",
        normalization: str = "none",
        max_retries: int = 3,
    ):
        from openai import DefaultHttpxClient, OpenAI

        from persian_tui import redact, settings

        from .transport import EMBED_REPLY_BYTES, cap_client

        redact.check_env_name(api_key_env)
        self.base_url = base_url.rstrip("/")
        self.shown_url = redact.url(self.base_url)  # no password in ids, messages or the cache
        self.model = model
        self.model_id = f"openai:{self.shown_url}#{model}"
        self.cacheable = True
        self.prefix = prefix
        self.normalization = _check_normalization(normalization)
        self.batch_size = batch_size
        self.timeout = timeout
        self._key_env = api_key_env
        # the reply capped while it is read, read whole within the timeout, no redirect followed
        http = cap_client(DefaultHttpxClient(timeout=timeout, follow_redirects=False), EMBED_REPLY_BYTES)
        self._client = OpenAI(
            base_url=self.base_url,
            api_key=settings.api_key(api_key_env) or "not-needed",
            timeout=timeout,
            max_retries=max_retries,
            http_client=http,
        )

    def _error(self, what: str) -> EmbedderError:
        from persian_tui import redact

        keys = redact.env_keys(self._key_env) + redact.url_secrets(self.base_url)
        return EmbedderError(storable(redact.text(f"embedding request to {self.shown_url} (model {self.model}) "
                                                  f"failed: {what}", keys=keys)))

    def _embed_batch(self, batch: list[str]) -> list[list[float]]:
        import openai

        from .transport import ReplyEncodingError, ReplyTooLarge

        try:
            raw = self._client.embeddings.with_raw_response.create(model=self.model, input=batch,
                                                                   encoding_format="float")
            response = raw.parse()
        except (ReplyTooLarge, ReplyEncodingError) as e:
            raise self._error(f"reply refused: {e}") from None
        except openai.APIStatusError as e:
            from .llm_client import redirect_of

            raise self._error(redirect_of(e) or f"HTTP {e.status_code}: {str(e.message)[:300]}") from None
        except openai.APITimeoutError:
            raise self._error(f"no answer within {self.timeout} s") from None
        except openai.APIConnectionError as e:
            raise self._error(f"cannot connect ({e.__cause__ or e})") from None
        except openai.OpenAIError as e:
            raise self._error(f"{type(e).__name__}: {str(e)[:300]}") from None
        except Exception as e:  # noqa: BLE001 - a reply of any other shape is the endpoint's fault
            raise self._error(f"malformed reply: {str(e).splitlines()[0][:200] if str(e) else type(e).__name__}") \
                from None
        content_type = (raw.headers.get("content-type") or "no content type").split(";")[0].strip()
        if isinstance(response, str) and "json" not in content_type:
            raise self._error(f"the reply is not JSON ({content_type[:60]}): {' '.join(response.split())[:120]}")
        self._check_raw(raw)
        return self._rows(response, len(batch))

    def _check_raw(self, raw) -> None:
        """The vectors as sent: the client turns true/false and numeric strings into floats, so
        a reply of booleans (every score ties) is caught before it parses."""
        try:
            body = raw.http_response.json()
        except Exception:  # noqa: BLE001 - not JSON: the parsed reply says what it was
            return
        data = body.get("data") if isinstance(body, dict) else None
        for i, item in enumerate(data if isinstance(data, list) else []):
            row = item.get("embedding") if isinstance(item, dict) else None
            if isinstance(row, list) and not all(isinstance(x, (int, float)) and not isinstance(x, bool)
                                                 for x in row):
                kind = next(type(x).__name__ for x in row if isinstance(x, bool) or not isinstance(x, (int, float)))
                raise self._error(f"embedding {i} is not a list of numbers (it holds a {kind})")

    def _rows(self, response, n: int) -> list[list[float]]:
        """The vectors of a reply, checked: n of them, indexed 0..n-1, each a list of numbers."""
        extra = getattr(response, "model_extra", None) or {}
        data = getattr(response, "data", None)
        if data is None and extra.get("error"):
            error = extra["error"]
            message = error.get("message", error) if isinstance(error, dict) else error
            raise self._error(f"the endpoint answered with an error: {str(message)[:200]}")
        if not hasattr(response, "data"):
            raise self._error(f"the reply is not an object with data: {type(response).__name__}")
        if not isinstance(data, list) or not all(hasattr(item, "embedding") for item in data):
            raise self._error(f"data should be a list of embeddings, got {type(data).__name__}")
        data = sorted(data, key=lambda item: item.index if isinstance(item.index, int) else -1)
        if [item.index for item in data] != list(range(n)):
            raise self._error(f"expected {n} embeddings indexed 0..{n - 1}, got indices "
                              f"{[item.index for item in data][:10]}")
        rows = [item.embedding for item in data]
        for i, row in enumerate(rows):
            if not isinstance(row, list) or not all(isinstance(x, (int, float)) and not isinstance(x, bool)
                                                    for x in row):
                raise self._error(f"embedding {i} is not a list of numbers ({type(row).__name__})")
            if not row:
                raise self._error(f"embedding {i} has no numbers")
        return rows

    def embed(self, texts: list[str]) -> npt.NDArray[np.float32]:
        inputs = [self.prefix + t for t in _prepare(texts, self.normalization)]
        rows = [row for batch in _batches(inputs, self.batch_size) for row in self._embed_batch(batch)]
        if not rows:
            return np.zeros((0, 0), dtype=np.float32)
        if len({len(r) for r in rows}) != 1:
            raise self._error(f"embeddings of different lengths {sorted({len(r) for r in rows})}")
        return checked_vectors(np.asarray(rows, dtype=np.float64), self._error)


# ---------------------------------------------------------------- factory


NO_EXTRA = ("st: models need the embed extra (sentence-transformers and torch): pip install "
            "'persian-tui[embed]' (CPU only: pip install torch==2.13.0 first)")


def _st_installed() -> bool:
    """Whether sentence-transformers can be imported, without importing it (and torch)."""
    import importlib.util
    import sys

    if "sentence_transformers" in sys.modules:
        return sys.modules["sentence_transformers"] is not None
    return importlib.util.find_spec("sentence_transformers") is not None


def check_available(spec: str) -> None:
    """Refuse, before any run is recorded, a local model this install cannot load: an st: model
    without the embed extra, or a bare name that is neither tfidf, openai:, st: nor a folder."""
    spec = (spec or "tfidf").strip()
    if spec == "tfidf" or spec.startswith("openai:") or _st_installed():
        return
    if spec.startswith("st:"):
        raise EmbedderError(f"{spec} needs the embed extra: " + NO_EXTRA.split(": ", 1)[1])
    if not Path(spec).expanduser().is_dir():
        raise EmbedderError(f"unknown embedding model {spec!r}: the models are tfidf, openai:MODEL (with "
                            "--base-url) and st:NAME_OR_FOLDER (the embed extra)")
    raise EmbedderError(f"{spec} is a folder for sentence-transformers, which needs the embed extra: "
                        + NO_EXTRA.split(": ", 1)[1])


def make_embedder(
    spec: str = "tfidf",
    *,
    corpus: list[str] | None = None,
    prefix: str | None = None,
    base_url: str | None = None,
    api_key_env: str = "OPENAI_API_KEY",
    normalization: str | None = None,
) -> Embedder:
    """"tfidf" (needs corpus), "st:<name-or-path>" or a bare name/path (sentence-transformers),
    "openai:<model>" (needs base_url). normalization None = the embedder's default
    (hazm for tfidf, none for models, which were trained on unnormalized text)."""
    spec = (spec or "tfidf").strip()
    if spec == "tfidf":
        if prefix:
            raise EmbedderError("a prefix does not apply to the tfidf embedder")
        if corpus is None:
            raise EmbedderError("the tfidf embedder needs a corpus (the bank's texts) to fit on")
        return TfidfEmbedder(corpus, normalization or "hazm")
    if spec.startswith("openai:"):
        model = spec.removeprefix("openai:").strip()
        if not model:
            raise EmbedderError(f"no model name in {spec!r}: use openai:<model>")
        if not base_url:
            raise EmbedderError(f"{spec} needs a base URL, e.g. https://api.openai.com/v1 or http://localhost:11434/v1")
        return OpenAIEmbedder(base_url, model, api_key_env, prefix=prefix or "", normalization=normalization or "none")
    name = spec.removeprefix("st:").strip()
    if not name:
        raise EmbedderError(f"no model name or folder in {spec!r}: use st:<name-or-path>")
    return SentenceTransformerEmbedder(name, prefix=prefix, normalization=normalization or "none")
