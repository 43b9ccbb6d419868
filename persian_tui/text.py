"""Persian text: the one normalizer, the couplet parser, and near-duplicate search.

Stored text is never normalized; `normalize` and `match_key` make copies used only for
matching, search, dedupe and embedding input.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

ZWNJ = "\u200c"

# ---------------------------------------------------------------- normalizer


TABLE_FILE = Path(__file__).parent / "data" / "normalizer.json"


def build_table(strip_diacritics: bool) -> dict[int, str]:
    """A str.translate table equal to hazm's per-character normalization (needs hazm).

    hazm's Normalizer, with its context-dependent steps off (spacing, persian_style,
    repeated chars, mi-separation), maps each character independently. Running it once
    per character of its own tables gives one translate table: same result, ~30x faster.
    The app ships the result (data/normalizer.json, written by scripts/normalizer_table.py)
    so that starting does not import hazm (~1 s); a test checks it against hazm.
    """
    from hazm import Normalizer  # slow import (~1 s)

    hz = Normalizer(
        correct_spacing=False,
        remove_diacritics=strip_diacritics,
        remove_specials_chars=True,
        decrease_repeated_chars=False,
        persian_style=False,
        persian_numbers=True,
        unicodes_replacement=True,
        seperate_mi=False,
    )
    # every table defined (the characters any step may change); the context steps off: they add
    # no table, only a tokenizer and a lemmatizer (~2 s to build)
    full = Normalizer(correct_spacing=False, decrease_repeated_chars=False, persian_style=False, seperate_mi=False)
    chars = set(full.translation_src) | set(full.number_translation_src)
    for pattern, _ in [*full.diacritics_patterns, *full.specials_chars_patterns, *full.replacements]:
        chars |= {c for c in pattern if c not in "[]()|"}
    table = {}
    for c in chars:
        out = hz.normalize(c)
        if out != c:
            table[ord(c)] = out
    table[0x0640] = ""  # tatweel (kashida) is decoration
    return table


def table_json() -> str:
    """The shipped table file's content, built with hazm (the generator and the test use it)."""
    tables = {key: {f"{k:04X}": v for k, v in sorted(build_table(strip).items())}
              for key, strip in (("strip_diacritics", True), ("keep_diacritics", False))}
    return json.dumps(tables, ensure_ascii=False, indent=0, sort_keys=True) + "\n"


@functools.lru_cache(maxsize=2)
def _table(strip_diacritics: bool) -> dict[int, str]:
    data = json.loads(TABLE_FILE.read_text("utf-8"))
    chosen = data["strip_diacritics" if strip_diacritics else "keep_diacritics"]
    return {int(k, 16): v for k, v in chosen.items()}


_SPACES = re.compile(r"[^\S\u200c]+")  # whitespace runs, ZWNJ excluded
_ZWNJ_AT_SPACE = re.compile(r"\u200c+(?= )|(?<= )\u200c+")


def warm_up() -> None:
    """Read the normalizer tables (cheap: they ship as data, no hazm import)."""
    _table(True)
    _table(False)


@functools.lru_cache(maxsize=1 << 18)
def normalize(text: str, *, strip_diacritics: bool = True) -> str:
    """Normalized copy for matching: Arabic ي/ك → ی/ک, digits → Persian, diacritics optionally
    stripped, tatweel and special marks removed, whitespace collapsed; ZWNJ kept."""
    if not text:
        return ""
    text = unicodedata.normalize("NFC", text).translate(_table(strip_diacritics))
    text = _SPACES.sub(" ", text).strip()
    return _ZWNJ_AT_SPACE.sub("", text).strip(ZWNJ)


_PUNCT = re.compile(r"[^\w\u200c ]+")


_JOINERS = str.maketrans("", "", "\u200c\u200d ")


def search_terms(query: str) -> list[str]:
    """The words of a search, each compacted (see search_compact)."""
    return [t for t in (search_compact(w) for w in normalize(query).lower().split()) if t]


def search_compact(normalized: str) -> str:
    """A normalized search text with ZWNJ, ZWJ and spaces removed, so می‌خانه, می خانه and
    میخانه all find one another (a search copy only; stored text keeps its ZWNJ)."""
    return normalized.translate(_JOINERS)


@functools.lru_cache(maxsize=1 << 18)
def match_key(text: str) -> str:
    """`normalize` without punctuation: the key used for fuzzy duplicate matching."""
    return _SPACES.sub(" ", _PUNCT.sub(" ", normalize(text))).strip()


# GhazalBench's comparison form (its calcRecallPersian.py), kept exactly for scoring recall probes:
# Arabic letter forms to Persian, diacritics (U+064B-U+065F, U+0670) removed, ZWNJ read as a space
_RECALL_TABLE = {ord("\u064a"): "\u06cc", ord("\u0643"): "\u06a9", ord("\u0629"): "\u0647",
                 ord("\u0624"): "\u0648", ord("\u0625"): "\u0627", ord("\u0623"): "\u0627",
                 ord("\u0671"): "\u0627", ord(ZWNJ): " ",
                 **{c: None for c in (*range(0x064B, 0x0660), 0x0670)}}


def recall_form(text: str) -> str:
    """A copy for scoring recall the way GhazalBench does: NFC, ي ك ة ؤ إ أ ٱ mapped to their
    Persian forms, diacritics removed, ZWNJ as a space, whitespace collapsed. (Not `normalize`:
    recall figures must be comparable with the paper's.)"""
    text = unicodedata.normalize("NFC", text or "").translate(_RECALL_TABLE)
    return " ".join(text.split())


_SURROGATES = re.compile("[\ud800-\udfff]")


def storable(text: str | None) -> str | None:
    """Text that UTF-8 (SQLite, files) can hold: lone surrogates, which JSON can carry
    ("\\ud800"), become U+FFFD; everything else is kept."""
    return _SURROGATES.sub("\ufffd", text) if text else text


def nfc(text: str) -> str:
    """The form text is stored in: NFC, outer whitespace trimmed, nothing else touched."""
    return unicodedata.normalize("NFC", text).strip()


# ---------------------------------------------------------------- couplets


class CoupletError(ValueError):
    """A string that cannot be read as a couplet of two hemistichs."""


# " - ", " / ", " ** " (also with the Persian/Arabic variants: – — ／ and *** )
_SEPARATORS = [
    re.compile(r"\s+\*{2,3}\s+|\*{2,3}"),
    re.compile(r"\s*[/／]\s*"),
    re.compile(r"\s+[-–—]\s*|\s*[-–—]\s+"),
]


def split_couplet(text: str) -> tuple[str, str]:
    """Split "a - b", "a / b" or "a ** b" into two hemistichs (stored text is kept as given).

    Raises CoupletError when there is no separator (a single phrase) or the split is
    ambiguous (several separators of the same kind) or leaves an empty hemistich."""
    text = nfc(text)
    for sep in _SEPARATORS:
        parts = sep.split(text)
        if len(parts) == 2:
            a, b = parts[0].strip(), parts[1].strip()
            if not a or not b:
                raise CoupletError("empty hemistich")
            return a, b
        if len(parts) > 2:
            raise CoupletError(f"ambiguous: {len(parts) - 1} separators {sep.pattern!r}")
    raise CoupletError("single phrase, not a couplet (no ' - ', ' / ' or ' ** ' separator)")


_DIGITS = "0123456789۰۱۲۳۴۵۶۷۸۹٠١٢٣٤٥٦٧٨٩"


def _digit_value(c: str) -> int:
    return _DIGITS.index(c) % 10


_LABEL_HEAD = re.compile(rf"^\s*(?:\(?\s*([{_DIGITS}])\s*[)\-.]|\))\s*")
_LABEL_TAIL = re.compile(rf"\s*\(?([{_DIGITS}])\s*\)?\s*$")


def strip_option_label(text: str, label: int) -> tuple[str, bool]:
    """Remove an OCR leftover of the option number from a hemistich.

    Book extractions leave "1) text", or ") text 2" when the label "2)" was split by
    right-to-left extraction. Only the option's own number is removed.
    Returns (text, found)."""
    head = _LABEL_HEAD.match(text)
    if head and head.group(1) is not None:
        if _digit_value(head.group(1)) != label:
            return text, False
        return text[head.end():].strip(), True
    if head:  # a bare ")" - the digit went to the other end
        rest = text[head.end():]
        tail = _LABEL_TAIL.search(rest)
        if tail and _digit_value(tail.group(1)) == label:
            rest = rest[: tail.start()]
        return rest.strip(), True
    return text, False


# ---------------------------------------------------------------- near-duplicates


@dataclass(frozen=True)
class Match:
    uid: str
    score: float  # 0..100, mean over the query's couplets of the best couplet ratio
    shared: int  # couplets of the query that match one of uid's couplets (>= couplet_cutoff)


def couplet_key(mesra1: str, mesra2: str) -> str:
    """Match key of a couplet; hemistich order does not matter (sources disagree on it)."""
    return " | ".join(sorted((match_key(mesra1), match_key(mesra2))))


def _signatures(key: str) -> set[str]:
    """The first and last three words of each hemistich."""
    sigs = set()
    for half in key.split(" | "):
        words = half.split()
        sigs.add(" ".join(words[:3]))
        sigs.add(" ".join(words[-3:]))
    sigs.discard("")
    return sigs


class DuplicateIndex:
    """Finds questions whose couplets nearly match (rapidfuzz on normalized text).

    Candidates come from an inverted index of each hemistich's first and last two
    words, so a lookup scores a handful of questions, not the whole bank."""

    def __init__(self, couplet_cutoff: float = 90.0):
        self.couplet_cutoff = couplet_cutoff
        self._keys: dict[str, list[str]] = {}
        self._by_sig: dict[str, set[str]] = defaultdict(set)

    def __len__(self) -> int:
        return len(self._keys)

    def add(self, uid: str, keys: list[str]) -> None:
        self._keys[uid] = keys
        for key in keys:
            for sig in _signatures(key):
                self._by_sig[sig].add(uid)

    def query(self, keys: list[str], *, min_score: float = 90.0, exclude: str | None = None) -> list[Match]:
        """Questions whose couplets match `keys` with a mean best-ratio >= min_score, and
        (whatever min_score) any that share at least one couplet, best first."""
        from rapidfuzz import fuzz

        hits: Counter[str] = Counter()
        for key in keys:
            for sig in _signatures(key):
                hits.update(self._by_sig.get(sig, ()))
        if exclude is not None:
            hits.pop(exclude, None)
        found = []
        # a copied couplet shares at least two of its four signatures, unless edited at
        # three of its four ends; one hit alone is a chance collision of common words
        for uid in [u for u, n in hits.items() if n >= 2]:
            theirs = self._keys[uid]
            best = [max(fuzz.ratio(k, t) for t in theirs) for k in keys]
            score = sum(best) / len(best)
            shared = sum(b >= self.couplet_cutoff for b in best)
            if score >= min_score or shared:
                found.append(Match(uid, round(score, 1), shared))
        found.sort(key=lambda m: (-m.score, m.uid))
        return found


# ---------------------------------------------------------------- corpus search key


# hamza carriers written either way in editions: کأس/کاس, مؤمن/مومن, پائیز/پاییز
_HAMZA = str.maketrans({"أ": "ا", "إ": "ا", "ٱ": "ا", "ؤ": "و", "ئ": "ی", "ء": None, ZWNJ: None})


@functools.lru_cache(maxsize=2)
def _corpus_table() -> dict[int, str]:
    """normalize's translate table followed by _HAMZA's, as one table (corpus_key)."""
    table = _table(True)
    return {c: table.get(c, chr(c)).translate(_HAMZA) for c in {*table, *_HAMZA}}


_NON_WORD = re.compile(r"\W+")
_WORD_KEYS_MAX = 200_000  # about 30 MB at most


class _WordKeys(dict[str, str]):
    """word -> its key (corpus_key_once): poems repeat their words, seldom whole hemistichs."""

    def __missing__(self, word: str) -> str:
        if len(self) >= _WORD_KEYS_MAX:
            self.clear()
        key = self[word] = " ".join(
            _NON_WORD.sub(" ", unicodedata.normalize("NFC", word).translate(_corpus_table())).split())
        return key


_WORD_KEYS = _WordKeys()


def corpus_key_once(text: str) -> str:
    """corpus_key without its cache of whole texts (for texts seen once: the import's
    hemistichs). Computed word by word, each word's key remembered: as every ZWNJ goes,
    normalize's ZWNJ and space steps and match_key's punctuation step come down to one
    translate table, one substitution and the collapse of spaces, none of which reaches
    across whitespace (a test compares it with the steps)."""
    return " ".join(filter(None, map(_WORD_KEYS.__getitem__, text.split())))


@functools.lru_cache(maxsize=1 << 16)
def corpus_key(text: str) -> str:
    """`match_key` without ZWNJ and hamza variants: the corpus's normalized copy, searched word
    by word, so "می‌رود" and "میرود" are one word (ZWNJ-insensitive search and linking)."""
    return corpus_key_once(text)


def _arabic_script(c: str) -> bool:
    o = ord(c)
    return 0x0600 <= o <= 0x06FF or 0x0750 <= o <= 0x077F or 0xFB50 <= o <= 0xFDFF or 0xFE70 <= o <= 0xFEFF


def persian_script_share(text: str) -> float:
    """The share of the letters of `text` that are of the Arabic script Persian is written in
    (0.0 for a text without letters)."""
    letters = [c for c in text if c.isalpha()]
    return sum(map(_arabic_script, letters)) / len(letters) if letters else 0.0
