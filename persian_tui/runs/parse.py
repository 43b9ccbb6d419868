"""The one parser of LLM answers to an outlier question: it reads a reply as a careful person does.

1. `<think>` blocks (and a provider's reasoning field) are reasoning, never the answer.
2. JSON first: the JSON objects with an answer key ("answer", "choice", ...); two that disagree
   are `ambiguous`.
3. Statements, read clause by clause. A candidate is an explicit answer ("Answer: 3", "The
   correct option is 4", `پاسخ صحیح گزینه «ب» است`, \\boxed{2}), a choice ("I'd pick 2",
   `گزینه ۳ را انتخاب می‌کنم`) or a claim about one option ("the third couplet is the odd one
   out", `بیت سوم با بقیه قرابت ندارد`). Each candidate is classified by its clause:
   - negated ("option 2 is not the outlier", `گزینه ۲ درست نیست`), interrogative
     (`چرا گزینه ۲ درست نیست؟`), conditional ("if the answer were 3") or concessive
     ("although couplet 2 differs") -> not an answer;
   - tentative ("might be", "at first glance", `شاید`), partial ("differs only in imagery",
     "also different"), explanatory ("because option 3 ...") or comparative ("like 2 ...")
     -> weak: used only when the reply asserts nothing stronger;
   - otherwise assertive. An option named after "than / unlike / from / با / از ..." is an
     object of comparison, never the subject of a claim.
   Assertive candidates are read in order: a different value after a correction cue
   ("actually", "on second thought", `در واقع`, `اصلاح می‌کنم`, `نه،`) or labelled final
   ("Final answer", `پاسخ نهایی`) replaces the earlier one; without a cue two different
   answers are `ambiguous` (reported, never guessed). "3 or 4" is not one answer (`invalid`).
4. Layout: a reply that is only the answer ("3", "**(B)**", "4️⃣", `گزینه سوم`), a first or last
   line that is only the answer, a first line that starts with it ("3. The third couplet ...").
5. Otherwise `refusal` when the reply declines, else `invalid`. Never "the first digit anywhere".

Values: digits (Persian and Arabic-Indic too, keycaps, circled), A-D, الف ب ج د, ordinals and
number words in English and Persian. `method` is where the answer was found (json, tag, bare,
first_line, last_line, lead) with ":letter", ":persian_letter" or ":word" when it was not a digit.
"""

from __future__ import annotations

import functools
import json
import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from . import parse_vocab as vocab

# this module is copied into releases as it is (no import from the package): its statuses are
# models.ParseStatus less the client's api_error, spelled here (a test keeps the two in step)
Status = Literal["ok", "invalid", "empty", "refusal", "ambiguous"]


@dataclass(frozen=True)
class Parsed:
    answer: int | None  # 1..n_options, None when no usable answer
    status: Status
    reasoning: str | None  # <think> blocks and/or the provider's reasoning field
    method: str  # json | tag | bare | first_line | last_line | lead (+ ":letter" ...) | none


# ---------------------------------------------------------------- reasoning blocks

_OPEN = re.compile(r"<(?:think|thinking)>", re.IGNORECASE)
_CLOSE = re.compile(r"</(?:think|thinking)>", re.IGNORECASE)


def split_reasoning(text: str) -> tuple[str, list[str]]:
    """(text without reasoning blocks, the blocks). Only a closed <think>…</think> is a block,
    and a </think> with no opening tag (templates that pre-fill <think>) closes everything
    before it; an unterminated <think> is content, never a cut (text after it still counts)."""
    blocks, kept, pos = [], [], 0
    first_close, first_open = _CLOSE.search(text), _OPEN.search(text)
    if first_close and (not first_open or first_close.start() < first_open.start()):
        blocks.append(text[: first_close.start()])
        pos = first_close.end()
    while True:
        m = _OPEN.search(text, pos)
        if not m:
            kept.append(text[pos:])
            break
        kept.append(text[pos : m.start()])
        c = _CLOSE.search(text, m.end())
        if not c:
            kept[-1] = text[pos:]
            break
        blocks.append(text[m.end() : c.start()])
        pos = c.end()
    return "\n".join(kept), blocks


# ---------------------------------------------------------------- normalizing a copy


def _clean(text: str) -> str:
    """A copy for matching only: digits, letters, diacritics, markdown, keycaps (4️⃣ -> 4),
    control characters and terminal escapes normalized. The stored reply keeps every character."""
    text = vocab.ESCAPES.sub("", text).translate(vocab.CONTROLS).translate(vocab.DIGITS)
    return text.translate(vocab.CLEAN).translate(vocab.MARKS)


# ---------------------------------------------------------------- values and option mentions


@dataclass
class _Mention:
    start: int
    end: int
    value: int
    kind: str
    obj: bool = False  # the object of a comparison ("unlike 2", "با بیت اول")


def _value_of(token: str, n: int = 4) -> tuple[int, str]:
    t = token.strip().strip("()[]\"'«» ")
    if t.isdigit():
        return int(t), ""
    if t in vocab.ROMAN and t != "V":
        return vocab.ROMAN[t], ":roman"
    if t.upper() in vocab.LATIN and len(t) == 1:
        return vocab.LATIN[t.upper()], ":letter"
    if t in vocab.FA_LETTERS:
        return vocab.FA_LETTERS[t], ":persian_letter"
    value = vocab.WORDS[t.lower()]
    return (n if value == vocab.LAST else value), ":word"


def _is_object(before: str) -> bool:
    if before[-1:] not in (" ", "\t", "\n", "\u200c"):
        return False
    words = before[-40:].lower().split()
    while words and words[-1] in ("the", "other"):
        words.pop()
    return bool(words) and words[-1] in vocab.OBJ_WORDS


def _mentions(t: str, n: int) -> list[_Mention]:
    out: list[_Mention] = []
    for m in vocab.MENTION.finditer(t):
        token = m.group("v") or m.group("o") or m.group("a") or m.group("j") or m.group("y") or m.group("nv") \
            or m.group("digit") or m.group("letter")
        value, kind = _value_of(token, n)
        mention = _Mention(m.start(), m.end(), value, kind)
        before = t[max(0, m.start() - 40):m.start()]
        if m.group("noun") and vocab.COUNT_BEFORE.search(before[-12:]):
            continue  # «سه بیت نخست», "three couplets": a count, not an option
        mention.obj = _is_object(before)
        if not mention.obj and out and out[-1].obj and vocab.LIST_JOIN.match(t[out[-1].end:m.start()]):
            mention.obj = True  # "unlike 1, 2 and 4"
        out.append(mention)
    return out


def _mention_at(doc: _Text, pos: int) -> _Mention | None:
    """The mention that covers pos (after quotes and spaces)."""
    t = doc.t
    while pos < len(t) and t[pos] in " \t\"'«([":
        pos += 1
    i = bisect_right(doc.starts, pos) - 1  # mentions do not overlap: only the last one starting at or before pos
    return doc.mentions[i] if i >= 0 and doc.mentions[i].end > pos else None


def _marker_value(t: str, pos: int, n: int) -> tuple[int, str, int] | None:
    """(value, kind, end) of the answer token right after a marker, any form."""
    m = vocab.AFTER_MARKER.match(t, pos)
    if not m:
        return None
    value, kind = _value_of(m.group("v"), n)
    return value, kind, m.end()


# ---------------------------------------------------------------- clauses


class _Text:
    """The cleaned reply with its sentence and clause boundaries."""

    def __init__(self, t: str, n: int = 4):
        self.t, self.n = t, n
        self.hard = [0] + [m.end() for m in vocab.HARD.finditer(t) if not self._list_dot(m)]
        self.mentions = _mentions(t, n)
        self.starts = [m.start for m in self.mentions]
        inside = {i for m in self.mentions for i in range(m.start + 1, m.end)}  # "option (4)" is one piece
        self.soft = sorted(set(self.hard) | ({m.start() for m in vocab.SOFT.finditer(t)}
                                             | {m.end() for m in vocab.COMMA.finditer(t)}) - inside)

    def _list_dot(self, m: re.Match[str]) -> bool:
        """"3." at the start of a line is a list marker, not the end of a sentence."""
        if m.group() != ".":
            return False
        line_start = self.t.rfind("\n", 0, m.start()) + 1
        return bool(vocab.LIST_MARK.fullmatch(self.t, line_start, m.start()))

    def between(self, start: int, end: int) -> list[_Mention]:
        """The mentions that start in [start, end)."""
        return self.mentions[bisect_left(self.starts, start):bisect_left(self.starts, end)]

    def clause_start(self, pos: int) -> int:
        return self.soft[bisect_right(self.soft, pos) - 1]

    def sentence(self, pos: int) -> tuple[int, int]:
        i = bisect_right(self.hard, pos)
        return self.hard[i - 1], (self.hard[i] if i < len(self.hard) else len(self.t))

    def question(self, pos: int) -> bool:
        s, e = self.sentence(pos)
        end_char = self.t[e - 1:e] if e > s else ""
        return end_char in ("?", "؟") or bool(vocab.QUESTION_WORD.match(self.t, s, e))


_REACH = 200  # how far back a clause is read from a statement
MAX_PARSE_CHARS = 32_000  # a longer body is read from its head and tail only (the parser is linear, not free)


# ---------------------------------------------------------------- cues


# ---------------------------------------------------------------- candidate patterns


@dataclass
class _Cand:
    pos: int  # where the statement starts
    end: int
    value: int | None  # None: more than one option named
    kind: str
    weak: bool
    final: bool
    by_form: bool = False  # weak only by its form ("it's 2", a sentence that is only "3."): a correction makes it firm


def _clause_ok(doc: _Text, start: int) -> tuple[bool, bool]:
    """(usable, weak) from the clause a statement starting at `start` sits in."""
    cs = doc.clause_start(start)
    prefix = doc.t[max(cs, start - _REACH):start]  # what precedes it in its clause (bounded: a clause
    sentence_start, _ = doc.sentence(start)        # without punctuation can be a whole long reply)
    head = doc.t[max(sentence_start, start - _REACH):start]
    if doc.question(start) or vocab.CONDITIONAL.search(prefix) or vocab.NEG_PREFIX.search(prefix):
        return False, False
    j = cs  # the clause before this one ends before its separator (", " is a boundary of its own)
    while j > 0 and doc.t[j - 1] in " \t,،:":
        j -= 1
    before = doc.t[max(doc.clause_start(max(j - 1, 0)), j - _REACH):cs]
    if not prefix.strip(" ,،") and vocab.CONDITIONAL.search(before) and not vocab.HEDGE_IF.search(before):
        return False, False  # "if so, ..." keeps the condition ("if I had to pick one, ..." is a hedge)
    weak = bool(vocab.TENTATIVE.search(prefix) or vocab.WEAK_CLAUSE.search(prefix)
                or (cs > sentence_start and vocab.WEAK_CLAUSE.search(head[:1] + doc.t[cs:start])))
    return True, weak


def _value_candidate(doc: _Text, start: int, vpos: int, final_text: str) -> _Cand | None:
    """A candidate whose value token starts at vpos (after a marker or a choice verb)."""
    t = doc.t
    skip = vocab.NOT_BUT.match(t, vpos)
    if skip:
        vpos = skip.end()
    m = _mention_at(doc, vpos)
    if m is not None and m.start >= vpos - 3 and not t[vpos:m.start].strip(" \t\"'«([:"):
        value, kind, end = m.value, m.kind, m.end
    else:
        got = _marker_value(t, vpos, doc.n)
        if got is None:
            return None
        value, kind, end = got
    ok, weak = _clause_ok(doc, start)
    if not ok or vocab.FA_NEG_AFTER.match(t, end):
        return None
    more = vocab.MORE.match(t, end) or vocab.OR_AFTER.match(t, end)
    return _Cand(start, end, None if more else value, kind, weak or bool(more), bool(vocab.FINAL.search(final_text)))


def _before_aside(t: str, pos: int) -> int:
    """Where a parenthetical aside right before pos starts (pos when there is none): the aside
    sits between a subject and its predicate (or the predicate's «با بقیه», "from the rest")
    and is not a clause of its own."""
    m = vocab.ASIDE.search(t, max(0, pos - 150), pos)
    if m and not vocab.OBJ_PHRASE.sub(" ", m.group("tail")).strip(" \t,،"):
        return m.start()
    return pos


def _subject(doc: _Text, pred_start: int, persian: bool) -> _Mention | None:
    """The option a predicate is said of: in its clause, the first (Persian) or nearest (English)
    mention that is not the object of a comparison; when the clause has none and only a
    pronoun ("it", "which", "this couplet"), the first such mention earlier in the sentence."""
    pred_start = _before_aside(doc.t, pred_start)  # "Couplet 3 (the one about the candle) is ..."
    cs = doc.clause_start(pred_start)
    # a mention may overlap the predicate: «سومین بیت متفاوت است» (the predicate «بیت متفاوت است»)
    inside = [m for m in doc.between(max(cs, pred_start - _REACH), pred_start) if not m.obj]
    if inside:
        if persian:
            return inside[0]
        if len({m.value for m in inside}) > 1 and not doc.t[inside[-1].end:pred_start].strip(" ,،"):
            return inside[-1]
        return inside[-1] if len({m.value for m in inside}) == 1 else None
    if pred_start - cs > _REACH:
        return None
    rest = vocab.OBJ_PHRASE.sub(" ", doc.t[cs:pred_start]).strip(" ,،:\t")
    rest = re.sub(r"^(?:و|(?i:and))(?:\s+|$)", "", re.sub(r"\s+", " ", rest))
    if rest and not vocab.PRONOUN.fullmatch(rest):
        return None
    s, _ = doc.sentence(pred_start)
    if rest and s == cs:  # "This couplet ..." opening a sentence: the one option of the sentence before
        start = max(doc.sentence(max(s - 1, 0))[0], s - _REACH)
        before = [m for m in doc.between(start, s) if m.end <= s and not m.obj]
        if len({m.value for m in before}) == 1:
            return before[0]
    line_start = doc.t.rfind("\n", 0, pred_start) + 1
    earlier = [m for m in doc.between(max(s, cs - _REACH), cs) if m.end <= cs and not m.obj]
    lead = vocab.LIST_LEAD.match(doc.t, line_start)
    if not earlier and lead:
        earlier = [m for m in doc.between(line_start, lead.end()) if m.end <= lead.end()]
    return earlier[0] if earlier else None


def _candidates(doc: _Text) -> list[_Cand]:
    t, out = doc.t, []
    for rx in vocab.MARKERS:
        for m in rx.finditer(t):
            c = _value_candidate(doc, m.start(), m.end(),
                                 t[max(doc.clause_start(m.start()), m.start() - _REACH):m.end()])
            if c:
                out.append(c)
    for m in vocab.IT_IS.finditer(t):  # "It's couplet 3 ...": an answer only when nothing stronger is said
        c = _value_candidate(doc, m.start(), m.end(), "")
        if c and _mention_at(doc, m.end()):
            c.weak = c.by_form = True
            out.append(c)
    for m in vocab.CHOOSE_EN.finditer(t):
        cop = (m.group("cop") or "") + (m.group("cop2") or "")
        if vocab.NEG_EN.search(cop):
            continue
        c = _value_candidate(doc, m.start(), m.end(), "")
        if c:
            c.weak = c.weak or bool(re.search(r"(?i:could|might)", cop))
            out.append(c)
    for _i, rx in enumerate(vocab.PREDICATES):
        for m in rx.finditer(t):
            cop, core = m.group("cop") or "", m.group("core")
            persian = not core.isascii()
            subj = _subject(doc, m.start(), persian)
            if subj is None:
                continue
            aside = _before_aside(t, m.start())  # an aside is not part of the claim: "2 (not 3) is ..."
            gap = t[max(subj.end, doc.clause_start(aside)):aside]
            if len(gap) > 90:
                continue
            if "form" in rx.groupindex:  # "does not fit", «قرابت ندارد»: the negation is the claim
                negated = tentative = False
            elif persian:
                negated = cop.strip().startswith("ن") or "نمی" in cop  # نیست، ندارد، نمی‌کند، به نظر نمی‌رسد
                tentative = cop.strip() == "باشد" or cop.startswith("به")  # subjunctive, "seems"
            else:
                negated = bool(vocab.NEG_EN.search(cop) or vocab.NEG_EN.search(gap))
                tentative = bool(re.search(r"(?i:might|may|could|seems|appears|looks)", cop))
                if core.lower() in ("differ", "stand out", "break the pattern", "deviate", "diverge") \
                        and not re.search(r"(?i:might|may|could|does|did|would|will)", cop):
                    continue  # plural subject: "options 1 and 3 differ"
            if negated or (persian and vocab.NEG_PREFIX.search(gap)):
                continue
            ok, weak = _clause_ok(doc, subj.start)
            if not ok:
                continue
            _, sentence_end = doc.sentence(m.start())
            weak = weak or tentative or bool(vocab.TENTATIVE.search(gap) or vocab.PARTIAL_AFTER.match(t, m.end())
                                             or vocab.TENTATIVE.search(cop)
                                             or vocab.BUT.search(t, m.end(), min(sentence_end, m.end() + _REACH)))
            more = vocab.MORE.match(t, subj.end) or vocab.OR_AFTER.match(t, m.end()) \
                or vocab.ASIDE_MORE.match(t, subj.end) or vocab.AS_DOES.match(t, m.end()) or any(
                x.end <= subj.start and vocab.JOINED.fullmatch(t, x.end, subj.start)
                for x in doc.between(subj.start - 40, subj.start))
            out.append(_Cand(subj.start, m.end(), None if more else subj.value, subj.kind, weak or bool(more),
                             bool(vocab.FINAL.search(
                                 t[max(doc.clause_start(subj.start), subj.start - _REACH):m.end()]))))
    out += _exclusions(doc)
    for x in doc.mentions:  # "Options 1 and 3 fit. Option 4 does not.": the verb left out is a fit verb
        elided = vocab.ELIDED.match(t, x.end)
        if elided and not x.obj and vocab.FIT_BEFORE.search(t, max(0, x.start - _REACH), x.start) \
                and _clause_ok(doc, x.start)[0]:
            out.append(_Cand(x.start, elided.end(), x.value, x.kind, False, False))
    for m in vocab.CHOOSE_FA.finditer(t):
        if (m.group("cop") or "").startswith("ن"):
            continue
        before = [x for x in doc.between(m.start() - 60, m.start())
                  if x.end <= m.start() and not t[x.end:m.start()].strip()]
        if before:
            subj = before[-1]
            ok, weak = _clause_ok(doc, subj.start)
            if ok:
                out.append(_Cand(subj.start, m.end(), subj.value, subj.kind, weak, False))
    out.sort(key=lambda c: (c.pos, c.end))
    return out


def _shared(doc: _Text, start: int, end: int) -> re.Match[str] | None:
    """The sharing predicate right after a group of options, unless it is negated."""
    share = vocab.SHARE_EN.match(doc.t, end) or vocab.SHARE_FA.match(doc.t, end)
    if not share or vocab.NEG_PREFIX.search(doc.t, end, share.end()) \
            or re.search(rf"(?:{vocab.W}ن(?:یستند|دارند|می)|(?i:\bnot\b|n't\b))", share.group()):
        return None
    return share if _clause_ok(doc, start)[0] else None


def _exclusions(doc: _Text) -> list[_Cand]:
    out, ms = [], doc.mentions
    if doc.n == 4:  # "the first three couplets share ...": the last one is named
        for m in vocab.THREE.finditer(doc.t):
            first = (m.group("en") or "").lower() in ("first", "top") or (m.group("fa") or m.group("fa2") or "") in (
                "اول", "نخست", "نخستین", "اولین")
            share = _shared(doc, m.start(), m.end())
            if share:
                out.append(_Cand(m.start(), share.end(), 4 if first else 1, ":word", True, False))
    for i in range(len(ms) - doc.n + 2):
        group = ms[i:i + doc.n - 1]
        if any(not vocab.LIST_AND.fullmatch(doc.t, a.end, b.start) for a, b in zip(group, group[1:])):
            continue
        values = {m.value for m in group}
        rest = set(range(1, doc.n + 1)) - values
        if len(values) != doc.n - 1 or len(rest) != 1 or any(m.obj for m in group):
            continue
        if (i > 0 and vocab.LIST_AND.fullmatch(doc.t, ms[i - 1].end, group[0].start)) or \
                (i + doc.n - 1 < len(ms) and vocab.LIST_AND.fullmatch(doc.t, group[-1].end, ms[i + doc.n - 1].start)):
            continue  # a longer list: all four named
        share = _shared(doc, group[0].start, group[-1].end)
        if share:
            out.append(_Cand(group[0].start, share.end(), rest.pop(), "", True, False))
    return out


def _decide(cands: list[_Cand], t: str) -> tuple[str, _Cand | None]:
    """('ok', the answer) | ('ambiguous', None) | ('invalid', None) from candidates in reading order."""
    current, conflict, prev_end = None, False, 0
    for c in cands:
        if current is None:
            current = c
        elif c.value != current.value:
            cue = vocab.CORRECTION.search(t, prev_end, c.end)
            if cue or (c.final and not current.final):
                current, conflict = c, False
            else:
                conflict = True
        else:
            current = c if c.final else current
        prev_end = max(prev_end, c.end)
    if current is None:
        return "invalid", None
    if conflict:
        return "ambiguous", None
    return ("ok", current) if current.value is not None else ("invalid", None)


# ---------------------------------------------------------------- layout forms


def _lead(doc: _Text) -> _Mention | None:
    """The option a reply starts with ("3. The third couplet ...", «بیت چهارم؛ چون ...»), when the
    lines that start with an option all name the same one (else they are an enumeration)."""
    heads, first = [], True
    for m in vocab.LINE_HEAD.finditer(doc.t):
        end = doc.t.find("\n", m.end())
        if not doc.t[m.end():end if end >= 0 else len(doc.t)].strip():
            continue
        mention = _mention_at(doc, m.end())
        if mention and mention.start <= m.end() + 1 and vocab.LEAD_SEP.match(doc.t, mention.end) \
                and not vocab.MORE.match(doc.t, mention.end):
            heads.append(mention)
        elif first:
            return None  # the first line does not start with an option
        first = False
    return heads[0] if heads and len({h.value for h in heads}) == 1 else None


def _only(text: str, n: int = 4) -> tuple[int, str] | None:
    m = vocab.ONLY_RX.fullmatch(text)
    if not m:
        return None
    token = m.group("v") or m.group("w")
    if m.group("w"):
        token = re.sub(r"(?i:^the\s+|\s+(?:option|couplet|verse|one)$)", "", token.strip())
        token = re.sub(rf"{vocab.ZW}(?:بیت|گزینه)$", "", token)
    return _value_of(token, n)


# ---------------------------------------------------------------- JSON

_JSON_KEYS = ("answer", "final_answer", "choice", "option", "outlier", "selected_option", "odd_one_out",
              "پاسخ", "جواب", "گزینه", "پاسخ_نهایی")


_OBJECT_START = re.compile(r'\{(?=\s*(?:"|\}))')  # an object starts with a key (or is empty)


def json_objects(text: str, wanted: Callable[[dict[str, Any]], bool],
                 object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None) -> list[dict[str, Any]]:
    """The JSON objects in the text for which ``wanted(obj)`` is true, outermost first; one
    nested in an object already taken is its part, not another object. The answer parser's
    and the judge's one JSON scanner."""
    decoder = json.JSONDecoder(object_pairs_hook=object_pairs_hook)
    found: list[dict[str, Any]] = []
    covered = -1
    starts = [m.start() for m in _OBJECT_START.finditer(text)]
    if len(starts) > 64:  # a reply is not a data file: the first and last objects are enough
        starts = starts[:32] + starts[-32:]
    for i in starts:
        if i < covered:
            continue
        try:
            obj, end = decoder.raw_decode(text, i)
        except (ValueError, RecursionError):
            continue
        if isinstance(obj, dict) and wanted(obj):
            found.append(obj)
            covered = end
    return found


def _answer_keys(obj: dict[str, Any]) -> dict[str, Any]:
    return {re.sub(r"[\s\-]+", "_", str(k).strip().lower()): v for k, v in obj.items()}


def _json_answers(text: str) -> list[object]:
    """The answer-key values of the JSON objects in the text (outermost first)."""
    values = []
    for obj in json_objects(text, lambda o: any(k in _answer_keys(o) for k in _JSON_KEYS)):
        keys = _answer_keys(obj)
        values.append(keys[next(k for k in _JSON_KEYS if k in keys)])
    return values


def _from_json_value(value: object, n: int) -> tuple[int | None, str, str]:
    """(answer, kind, status) of an answer-key value: a number, or text read like a reply."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return value, "", "ok"
    if isinstance(value, list) and len(value) == 1:  # {"answer": [3]}
        value = value[0]
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return _from_json_value(value, n)
    if isinstance(value, str):
        p = parse_answer(value, n_options=n)
        kind = p.method[p.method.index(":"):] if ":" in p.method else ""
        return p.answer, kind, "ambiguous" if p.status == "ambiguous" else "ok"
    return None, "", "ok"


# ---------------------------------------------------------------- entry point


MEMO_CHARS = 512  # replies this short are remembered: a model's short answers repeat (Parsed is frozen)


def parse_answer(text: str | None, *, reasoning: str | None = None, n_options: int = 4) -> Parsed:
    """The answer a reply states (see the module's doc)."""
    if len(text or "") <= MEMO_CHARS and len(reasoning or "") <= MEMO_CHARS:
        return _remembered(text, reasoning, n_options)
    return _parse(text, reasoning, n_options)


@functools.lru_cache(maxsize=1024)
def _remembered(text: str | None, reasoning: str | None, n_options: int) -> Parsed:
    return _parse(text, reasoning, n_options)


def _parse(text: str | None, reasoning: str | None, n_options: int) -> Parsed:
    body, blocks = split_reasoning(text or "")
    parts = [p.strip() for p in [reasoning or "", *blocks]]
    why = "\n\n".join(p for p in parts if p) or None
    body = body.strip()
    if not body:
        return Parsed(None, "empty", why, "none")
    if len(body) > MAX_PARSE_CHARS:  # a hostile megabyte reply: the answer is stated at one end
        half = MAX_PARSE_CHARS // 2
        body = f"{body[:half]}\n\n{body[-half:]}"

    def result(value: int | None, where: str, kind: str = "") -> Parsed:
        if value is None or not 1 <= value <= n_options:
            return Parsed(None, "invalid", why, where + kind)
        return Parsed(value, "ok", why, where + kind)

    values = _json_answers(body)
    if values:
        read = [_from_json_value(v, n_options) for v in values]
        if len({v for v, _, _ in read}) > 1 or any(status == "ambiguous" for _, _, status in read):
            return Parsed(None, "ambiguous", why, "json")
        return result(read[-1][0], "json", read[-1][1])

    clean = _clean(body)
    if not re.search(r"[^\W_]", clean):  # only markdown or punctuation: "**", "...", "```"
        return Parsed(None, "empty", why, "none")
    only = _only(clean, n_options)
    if only:
        return result(only[0], "bare", only[1])
    doc = _Text(clean, n_options)
    cands = _candidates(doc)
    lines = [(i, ln) for i, ln in enumerate(clean.splitlines()) if ln.strip()]
    # a line that is only an answer is a statement too (several different ones are headings)
    only_answers = [(i, _only(ln, n_options)) for i, ln in lines]
    line_answers = [(i, a) for i, a in only_answers if a]
    for s_start, s_end in zip(doc.hard, doc.hard[1:] + [len(clean)]):  # "Not 1. Not 2. Couplet 3."
        sentence = clean[s_start:s_end]
        line_end = clean.find("\n", s_start + 1)
        line = clean[clean.rfind("\n", 0, s_start + 1) + 1:line_end if line_end >= 0 else len(clean)]
        if vocab.OR_SENTENCE.fullmatch(sentence):  # "I think 2. Or 3.": the answer before is one of two
            for c in cands:
                if doc.sentence(max(s_start - 1, 0))[0] <= c.pos < s_start and c.value is not None:
                    c.value, c.weak = None, True
            continue
        not_then = vocab.NOT_THEN.match(sentence)  # "Not couplet 2 — couplet 4." / «نه بیت دوم، بیت چهارم»
        if not_then:
            got = _only(sentence[not_then.end():], n_options)
            if got:
                cands.append(_Cand(s_start + not_then.end(), s_end, got[0], got[1], True, False, True))
        elif "\n" not in sentence.strip() and sentence.strip() != line.strip():
            got = _only(sentence, n_options)
            if got:
                cands.append(_Cand(s_start, s_end, got[0], got[1], True, False, True))
    for c in cands:  # "The answer is 1... no, wait, it's 2."
        if c.by_form and vocab.CORRECTION.search(clean, max(0, c.pos - 40), c.pos):
            c.weak = False
    strong = [c for c in cands if not c.weak]
    if len({a[0] for _, a in line_answers}) == 1 and (not strong or len(line_answers) == 1):
        i, (value, kind) = line_answers[-1]
        offset = sum(len(ln) + 1 for ln in clean.splitlines()[:i])
        where = "last_line" if i == lines[-1][0] else "first_line" if i == lines[0][0] else "tag"
        strong.append(_Cand(offset, offset + len(clean.splitlines()[i]), value, kind, False, False))
        strong.sort(key=lambda c: (c.pos, c.end))
        if len(strong) == 1:
            return result(value, where, kind)
    if strong:
        status, best = _decide(strong, clean)
        if status == "ambiguous":
            return Parsed(None, "ambiguous", why, "tag")
        if best is not None:
            return result(best.value, "tag", best.kind)
        return Parsed(None, "invalid", why, "tag")
    lead = _lead(doc)
    if lead is not None:
        return result(lead.value, "lead", lead.kind)
    weak = [c for c in cands if c.weak]
    if weak:
        status, best = _decide(weak, clean)
        if status == "ambiguous":
            return Parsed(None, "ambiguous", why, "tag")
        return result(best.value if best else None, "tag", best.kind if best else "")
    if vocab.REFUSAL.search(clean) and not doc.mentions:  # "unable to choose between 1 and 3" is undecided
        return Parsed(None, "refusal", why, "none")
    return Parsed(None, "invalid", why, "none")


