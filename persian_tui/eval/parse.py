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

import json
import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass


@dataclass(frozen=True)
class Parsed:
    answer: int | None  # 1..n_options, None when no usable answer
    status: str  # "ok" | "invalid" | "empty" | "refusal" | "ambiguous"
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

_DIGITS = str.maketrans("۰۱۲۳۴۵۶۷۸۹٠١٢٣٤٥٦٧٨٩０１２３４５６７８９①②③④⑤❶❷❸❹❺➀➁➂➃➄",
                        "012345678901234567890123456789123451234512345")
_CLEAN = str.maketrans({"*": "", "`": "", "#": " ", "_": " ", "ي": "ی", "ك": "ک", "ى": "ی",
                        "’": "'", "‘": "'", "“": '"', "”": '"', "\u200f": "", "\u200e": "",
                        "\u0640": "", "\ufe0f": "", "✅": "", "✔": "", "✓": "", "☑": "", "\u20e3": ")", "\u00a0": " ", "\u202b": "",  # noqa: E501
                        "\u202a": "", "\u202c": "", "\u2067": "", "\u2066": "", "\u2069": ""})


# diacritics (harakat, superscript alef) and invisible characters other than ZWNJ: dropped from the copy
_MARKS = dict.fromkeys([*range(0x064B, 0x0654), *range(0x0655, 0x0660), 0x0670, 0x200B, 0x200D, 0x2060, 0xFEFF])


# terminal escapes (colour, title) and control characters: dropped; the other line breaks -> \n
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b.?")
_CONTROLS = {**dict.fromkeys([*range(0x00, 0x09), *range(0x0E, 0x1C), 0x1F, *range(0x7F, 0x85), *range(0x86, 0xA0)]),
             **dict.fromkeys([0x0B, 0x0C, 0x1C, 0x1D, 0x1E, 0x85, 0x2028, 0x2029], "\n")}


def _clean(text: str) -> str:
    """A copy for matching only: digits, letters, diacritics, markdown, keycaps (4️⃣ -> 4),
    control characters and terminal escapes normalized. The stored reply keeps every character."""
    return _ESCAPES.sub("", text).translate(_CONTROLS).translate(_DIGITS).translate(_CLEAN).translate(_MARKS)


# ---------------------------------------------------------------- values and option mentions

_W = r"(?<![\w\u200c])"  # word start (Latin or Persian)
_E = r"(?![\w\u200c])"  # word end
_ZW = "[\u200c ]?"
_LAST = -1  # "the last couplet", «بیت آخر»: the n-th option
_EN_ORD = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5,
           "1st": 1, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5, "last": _LAST}
_EN_NUM = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5}
_FA_ORD = {"اول": 1, "یکم": 1, "نخست": 1, "دوم": 2, "سوم": 3, "چهارم": 4, "پنجم": 5, "آخر": _LAST}
_FA_NUM = {"یک": 1, "دو": 2, "سه": 3, "چهار": 4, "پنج": 5}
_FA_ADJ = {"اولین": 1, "نخستین": 1, "دومین": 2, "سومین": 3, "چهارمین": 4, "پنجمین": 5, "آخرین": _LAST}
_FA_Y = {"اولی": 1, "دومی": 2, "سومی": 3, "چهارمی": 4, "پنجمی": 5, "آخری": _LAST}
_LATIN = {c: i for i, c in enumerate("ABCDE", 1)}
_FA_LETTERS = {"الف": 1, "ب": 2, "ج": 3, "د": 4, "ه": 5}
_WORDS = {**{k: v for k, v in _EN_ORD.items()}, **_EN_NUM, **_FA_ORD, **_FA_NUM, **_FA_ADJ, **_FA_Y}


def _alt(words) -> str:
    return "|".join(sorted(map(re.escape, words), key=len, reverse=True))


_DIGIT = r"(?<![0-9.,/])[0-9]{1,2}(?![0-9]|[.,][0-9])"
_UPPER = r"(?-i:A(?!\s+(?!is\b|or\b|and\b|was\b)[a-z])|[B-E])(?![A-Za-z0-9'])"  # "A" not an article
_FA_LETTER = rf"{_W}(?:الف|ب|ج|د){_E}"
_WORD_VALUE = rf"(?i:\b(?:{_alt([*_EN_ORD, *_EN_NUM])})\b)|{_W}(?:{_alt([*_FA_ORD, *_FA_NUM])}){_E}"
# a value right after a noun or an answer marker: anything
_ROMAN = {"I": 1, "II": 2, "III": 3, "IV": 4, "V": 5}
_ROMAN_RX = (r"(?-i:IV|III|II|V|I(?!\s*'|\s+(?i:think|believe|would|will|am|guess|choose|pick|select|say|need|have|"
             r"can|must|should|feel|go|chose|picked|selected|do|don't|did|was|reckon|suspect|see|agree)\b))(?![\w'])")
_VALUE = rf"(?:{_DIGIT}|{_UPPER}|{_ROMAN_RX}|(?<=[(\[\"'«])[a-e](?=[)\]\"'»])|{_FA_LETTER}|{_WORD_VALUE})"
_QO, _QC = r"(?:[(\[\"'«]\s*)?", r"(?:\s*[)\]\"'»])?"

_NOUN_EN = (r"(?i:\b(?:(?:options?|choices?|couplets?|verses?|beits?|bayts?|lines?)(?:\s+(?:number|no\.))?|number|no\.|"
            r"answer\s+choice))")
_NOUN_FA = rf"(?:{_W}(?:گزین(?:ه|ۀ)\u0654?(?:{_ZW}ی{_E})?|بیت(?:{_ZW}های)?|ابیات|شماره)(?:\s*ی{_E})?)"
_MENTION = re.compile(
    rf"(?P<noun>(?:{_NOUN_EN}|{_NOUN_FA})\s*(?:\#\s*)?{_QO}(?P<v>{_VALUE}|(?i:[a-e])(?![\w']))(?:{_QC}))"
    rf"|(?P<ordnoun>(?i:\b(?:the\s+)?(?P<o>{_alt(_EN_ORD)})\s+(?:options?|choices?|couplets?|verses?|"
    rf"beits?|lines?|one)\b))"
    rf"|(?P<ordalone>(?i:\bthe\s+(?P<a>{_alt(_EN_ORD)})\b)(?=\s*(?:[,.;:!?)]|$)|(?i:\s+(?:is|isn't|differs|"
    rf"stands|does|doesn't|seems|appears|would|has|fits|breaks|belongs)\b)))"
    rf"|(?P<faadj>{_W}(?P<j>{_alt(_FA_ADJ)}){_ZW}(?:بیت|گزینه))"
    rf"|(?P<fay>{_W}(?P<y>{_alt(_FA_Y)}){_E})"
    rf"|(?P<numverb>(?i:\b(?P<nv>{_alt([*_EN_NUM, *_EN_ORD])})(?=\s+(?:is|was|would|seems|stands|differs|does|doesn't)\b)))"  # noqa: E501
    rf"|(?P<digit>(?<![\w.,/\-])[1-9](?![\w\u200c]|[.,][0-9])(?![ \t]*(?i:couplets|options|verses|lines|of\b))"
    rf"(?![ \t]*(?:بیت|گزینه|مصراع)))"
    rf"|(?P<letter>(?<=\()[A-Ea-e](?=\))|(?<![\w'])[B-D](?![\w'\u200c]))"
)
# after a mention: "or 4", "and 3", "/ 2" -> more than one option named
_MORE = re.compile(rf"\s*(?:,|،|/|&|\bor\b|\band\b|(?<!\S)و(?!\S)|(?<!\S)یا(?!\S))\s*(?:(?:{_NOUN_EN}|{_NOUN_FA})\s*)?{_QO}"  # noqa: E501
                   rf"(?:[0-9]{{1,2}}(?![0-9])|{_UPPER}|{_FA_LETTER}|{_WORD_VALUE})")


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
    if t in _ROMAN and t != "V":
        return _ROMAN[t], ":roman"
    if t.upper() in _LATIN and len(t) == 1:
        return _LATIN[t.upper()], ":letter"
    if t in _FA_LETTERS:
        return _FA_LETTERS[t], ":persian_letter"
    value = _WORDS[t.lower()]
    return (n if value == _LAST else value), ":word"


# a word right before an option that makes it the object of a comparison ("unlike 2", «با بیت اول»)
_OBJ_WORDS = frozenset(["than", "like", "unlike", "from", "with", "to", "versus", "vs", "vs.", "except", "besides", "including", "against", "over", "between", "among", "با", "از", "به", "مانند", "مثل", "همانند", "همچون", "برخلاف", "خلاف", "جز", "بجز", "شبیه", "مشابه", "چون"])  # noqa: E501


def _is_object(before: str) -> bool:
    if before[-1:] not in (" ", "\t", "\n", "\u200c"):
        return False
    words = before[-40:].lower().split()
    while words and words[-1] in ("the", "other"):
        words.pop()
    return bool(words) and words[-1] in _OBJ_WORDS


_LIST_JOIN = re.compile(r"^\s*(?:,|،|\band\b|\bor\b|و|یا|&)?\s*(?:and\s+)?$")


_COUNT_BEFORE = re.compile(rf"(?:{_W}(?:دو|سه|چهار|همه|هر|تمام)|(?<![\w.])[2-4]|(?i:\b(?:two|three|four|all|the\s+other)))[ \t\u200c]+$")  # noqa: E501
_PRONOUN = re.compile(r"(?i:(?:and\s+)?(?:so\s+)?(?:it|this|which|that|this\s+(?:one|couplet|option|verse)|the\s+latter))"  # noqa: E501
                      rf"|(?:و\s+)?(?:این|آن|که|این{_ZW}(?:بیت|گزینه)|این\s+(?:بیت|گزینه))")
# what may stand between a pronoun and its predicate: «با بقیه», "from the others"
_OBJ_PHRASE = re.compile(rf"(?:{_W}(?:با|از)\s+(?:بقیه|سایر|دیگر|سه|ابیات|بیت|گزینه|آن|همه)[^،,]*"
                         r"|(?i:(?:from|with|than|to)\s+(?:all\s+)?the\s+(?:others|rest|other\s+\w+(?:\s+\w+)?)))")


def _mentions(t: str, n: int) -> list[_Mention]:
    out: list[_Mention] = []
    for m in _MENTION.finditer(t):
        token = m.group("v") or m.group("o") or m.group("a") or m.group("j") or m.group("y") or m.group("nv") \
            or m.group("digit") or m.group("letter")
        value, kind = _value_of(token, n)
        mention = _Mention(m.start(), m.end(), value, kind)
        before = t[max(0, m.start() - 40):m.start()]
        if m.group("noun") and _COUNT_BEFORE.search(before[-12:]):
            continue  # «سه بیت نخست», "three couplets": a count, not an option
        mention.obj = _is_object(before)
        if not mention.obj and out and out[-1].obj and _LIST_JOIN.match(t[out[-1].end:m.start()]):
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


_AFTER_MARKER = re.compile(rf"\s*(?:(?i:either|one\s+of|between)\s+(?:(?:{_NOUN_EN})\s*)?|(?:یکی\s+از|بین)\s+)?"
                           rf"{_QO}(?P<v>{_VALUE}|[a-e](?=\s*(?:[)\].!]|$)))(?:{_QC})")


def _marker_value(t: str, pos: int, n: int) -> tuple[int, str, int] | None:
    """(value, kind, end) of the answer token right after a marker, any form."""
    m = _AFTER_MARKER.match(t, pos)
    if not m:
        return None
    value, kind = _value_of(m.group("v"), n)
    return value, kind, m.end()


# ---------------------------------------------------------------- clauses

_HARD = re.compile(r"\n|[!?؟;؛]|(?<!e\.g)(?<!i\.e)(?<!vs)\.(?=\s|$)(?!(?<=\b[Nn]o\.)\s*[0-9])")  # not "No. 3"
_SOFT = re.compile(
    r"[,،:(]|—|–| - "
    r"|(?i:\b(?:but|however|yet|although|though|because|since|whereas|while|so|therefore|thus|hence|unlike|"
    r"rather\s+than|instead\s+of|whereas|if|unless)\b)"
    rf"|{_W}(?:اما|ولی|لیکن|ولیکن|زیرا|چون|پس|بنابراین|هرچند|اگرچه|گرچه|درحالی{_ZW}که|در\s+حالی{_ZW}که|"
    rf"برخلاف|چرا{_ZW}که|اگر|بلکه|در{_ZW}حالیکه){_E}"
    r"|(?<=[دت])\s+و\s+(?=\S)")  # Persian clauses joined after a verb: «... است و بیت چهارم ...»


class _Text:
    """The cleaned reply with its sentence and clause boundaries."""

    def __init__(self, t: str, n: int = 4):
        self.t, self.n = t, n
        self.hard = [0] + [m.end() for m in _HARD.finditer(t) if not self._list_dot(m)]
        self.mentions = _mentions(t, n)
        self.starts = [m.start for m in self.mentions]
        inside = {i for m in self.mentions for i in range(m.start + 1, m.end)}  # "option (4)" is one piece
        self.soft = sorted(set(self.hard) | ({m.start() for m in _SOFT.finditer(t)}
                                             | {m.end() for m in _COMMA.finditer(t)}) - inside)

    def _list_dot(self, m: re.Match) -> bool:
        """"3." at the start of a line is a list marker, not the end of a sentence."""
        if m.group() != ".":
            return False
        line_start = self.t.rfind("\n", 0, m.start()) + 1
        return bool(_LIST_MARK.fullmatch(self.t, line_start, m.start()))

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
        return end_char in ("?", "؟") or bool(_QUESTION_WORD.match(self.t, s, e))


_COMMA = re.compile(r"[,،:]")
_REACH = 200  # how far back a clause is read from a statement
_LIST_LEAD = re.compile(r"\s*[(\[]?\s*(?:[0-9]|[A-D])\s*[)\].:]")
_LIST_MARK = re.compile(r"\s*[(\[]?\s*(?:[0-9]{1,2}|[A-Ea-e]|الف|ب|ج|د)\s*[)\]]?")
_QUESTION_WORD = re.compile(rf"\s*(?:چرا|آیا){_E}|\s*(?i:why)\b")


# ---------------------------------------------------------------- cues

_NEG_EN = re.compile(r"(?i:\b(?:not|never|no)\b|n't\b)")
_NEG_PREFIX = re.compile(
    r"(?i:\b(?:not|never|no|hardly|doubt)\b|n't\b|\brule[sd]?\s+out\b|\beliminat)"
    rf"|{_W}نه{_E}|نمی{_ZW}(?:کنم|دانم|گویم)|مطمئن\s+نیستم|فکر\s+نکنم|رد\s+می{_ZW}شود")
_CONDITIONAL = re.compile(
    r"(?i:\b(?:if|unless|suppose|supposing|assuming|whether|although|though|even\s+though|despite|admittedly"
    r"|granted|instead\s+of|rather\s+than|to\s+check|checking)\b)"
    rf"|{_W}(?:اگر|چنانچه|درصورتی{_ZW}که|در\s+صورتی{_ZW}که|فرض|هرچند|اگرچه|گرچه|با{_ZW}اینکه|با\s+این{_ZW}که|"
    rf"با\s+وجود|به\s+جای|بجای){_E}")
_HEDGE_IF = re.compile(r"(?i:\bif\s+(?:i|we)\s+(?:had|have|must|were\s+forced|am\s+forced|was\s+forced)\s+to\s+"
                       r"(?:pick|choose|select|guess|say|answer|commit)|\bif\s+forced\b)"
                       rf"|{_W}اگر\s+(?:مجبور|ناچار)")
_TENTATIVE = re.compile(
    r"(?i:\b(?:might|may|could|perhaps|possibly|maybe|at\s+first|initially|first\s+glance|tempting|"
    r"one\s+(?:might|could)|some\s+(?:might|would|could)|candidate|consider(?:ing)?|let'?s\s+(?:check|see|test)|"
    r"also|too|as\s+well|partly|partially|somewhat|slightly|a\s+bit|a\s+little|superficially|arguably|"
    r"kind\s+of|sort\s+of|on\s+the\s+surface|only)\b)"
    rf"|{_W}(?:شاید|ممکن|احتمال\s+دارد|در\s+نگاه\s+اول|در\s+ابتدا|نگاه\s+نخست|نیز|هم|تا\s+حدی|کمی|"
    rf"ظاهرا|ظاهراً|در\s+ظاهر|بررسی){_E}")
_WEAK_CLAUSE = re.compile(
    r"(?i:^\W*(?:because|since|as|for\s+example|for\s+instance|e\.g\.?|note|nb|by\s+the\s+way|similarly|"
    r"likewise|just\s+as|like|unlike|compared|in\s+contrast|whereas|also|and\s+also)\b)"
    rf"|^\W*(?:زیرا|چون|چون{_ZW}که|چرا{_ZW}که|به\s+این\s+دلیل|به\s+خاطر|مثلا|مثلاً|برای\s+نمونه|برای\s+مثال|توجه|"
    rf"نکته|همچنین|ضمنا|ضمناً|مانند|مثل|همانند|برخلاف|در\s+مقایسه){_E}")
_PARTIAL_AFTER = re.compile(
    r"(?i:[^.!?\n]{0,40}?\b(?:only\s+(?:in|on|by|slightly)|(?:in|by)\s+(?:terms\s+of\s+|respect\s+to\s+)?"
    r"(?:(?:its|their|the)\s+)?(?:sound|music|form|tone|style|wording|imagery|meter|"
    r"rhyme|vocabulary|diction|register)|superficially|on\s+the\s+surface|at\s+first|but\s+not\s+in\s+"
    r"(?:meaning|theme|sense|concept)|a\s+little|slightly|somewhat|too|as\s+well|also|but\s+less|less\s+so|"
    r"to\s+some\s+extent|partly|a\s+bit)\b)"
    r"|[^.!?؟\n]{0,40}?(?:فقط\s+در|در\s+ظاهر|از\s+نظر\s+(?:وزن|قافیه|لفظ|ظاهر|واژه|واژگان)|اما\s+(?:در|از\s+نظر)\s+"
    r"(?:معنا|مفهوم))")
_FA_NEG_AFTER = re.compile(rf"[^.،,؛\n:]{{0,12}}?(?:{_W}نیست|نمی{_ZW}باشد|نباشد|نبود){_E}")
_CORRECTION = re.compile(
    r"(?i:\b(?:actually|on\s+second\s+thoughts?|wait|correction|i\s+was\s+wrong|i\s+made\s+a\s+mistake|"
    r"my\s+mistake|reconsider(?:ing)?|on\s+(?:further\s+)?reflection|upon\s+reflection|on\s+closer\s+"
    r"(?:look|inspection|reading|examination)|looking\s+again|scratch\s+that|let\s+me\s+correct|"
    r"correcting\s+myself|i\s+correct\s+myself|chang(?:e|ing)\s+my\s+answer|revised|updated|in\s+fact|"
    r"sorry|oops|edit|i\s+meant|no\s*,|hmm,?\s+no|i\s+take\s+(?:that|it)\s+back|instead)\b)"
    rf"|{_W}(?:منظورم|در{_ZW}واقع|درواقع|در\s+حقیقت|اصلاح|تصحیح|اشتباه\s+(?:کردم|گفتم|کرده{_ZW}ام)|ببخشید|پوزش|صبر\s+کن|"
    rf"نه\s*[،,]|با\s+دقت\s+بیشتر|بازنگری|در\s+نگاه\s+دوم|راستش|بهتر\s+است\s+بگویم|نه{_ZW}خیر){_E}")
_FINAL = re.compile(r"(?i:\bfinal\s+(?:answer|choice|pick|verdict|selection)|\bin\s+conclusion\b|\bto\s+conclude\b"
                    r"|\bmy\s+final\b)|نهایی|در\s+نهایت|سرانجام|در\s+پایان")


# ---------------------------------------------------------------- candidate patterns

# explicit answer markers; the value follows the match
_FILLER = r"(?:\s*(?i:therefore|thus|then|clearly|definitely|certainly|obviously|probably|likely|simply|indeed|" \
          r"i\s+think|i\s+believe)\s*,?)?(?:\s*(?:\.{2,}|…))?"
_MARKERS = [
    # Answer: 3 / The final answer is (B) / correct option is 4 / The outlier is the third couplet
    re.compile(
        r"(?i:\b(?:(?:the|my|our|final|correct|right|best|true|most\s+likely|likely|only|real|clear|"
        r"obvious)\s+)*(?:answers?|outlier|odd\s+(?:one|man)(?:\s+out)?|odd\s+(?:couplet|verse|option)|exception|"
        r"(?:(?:final|correct|right|best|my|our|different|odd|distinct|chosen|selected)\s+)(?:option|choice|couplet|"
        r"verse|one|pick|selection)|(?:couplet|option|verse|one)\s+(?:that|which)\s+(?:differs|stands\s+(?:out|apart)|"
        r"does\s*n[o']t\s+(?:fit|belong)|is\s+different|breaks\s+the\s+pattern)(?:\s+(?:from|with)\s+the\s+"
        r"(?:others|rest|other\s+\w+))?|response)\b)[\"']?"
        r"(?:\s*,[^,\n]{1,40},)?"
        r"(?:\s*(?:[:=：]|-(?=\s)|–|—|->|→|=>|⇒)\s*(?:(?i:is)\s+)?|\s+(?i:is|would\s+be|will\s+be|should\s+be|must\s+be|"
        r"here\s+is|=)\s*:?)" + _FILLER),
    # Option: 3 / Choice - B (a colon after a bare noun)
    # (the value on the same line: "each couplet:\n\n1. ..." heads a list)
    re.compile(r"(?i:\b(?:option|choice|selection|pick|couplet|final)[ \t]*[:=：][ \t]*(?=\S))"),
    # In short: 3 / Conclusion - couplet 2 / نتیجه: ۴
    re.compile(rf"(?:(?i:\b(?:in\s+short|in\s+summary|in\s+conclusion|to\s+sum\s+up|conclusion|result|verdict|"
               rf"bottom\s+line|tl;?dr))|{_W}(?:خلاصه|نتیجه|در\s+نتیجه|جمع{_ZW}بندی|نتیجه{_ZW}گیری)){_E}"
               rf"\s*(?:[:：]|-(?=\s)|–|—|->|→|=>|⇒)\s*(?:{_NOUN_EN}|{_NOUN_FA})?\s*(?=[^\W_]|[(\[\"'«])"),
    re.compile(rf"(?:(?i:\bi\s+meant\s+)|{_W}منظورم\s+)"),
    # a conclusion that is only the value: "Hence 2." / "Definitely 4." / «پس ۳.»
    re.compile(rf"(?:(?i:\b(?:hence|so|thus|therefore|definitely|clearly|certainly|obviously|surely|then|in\s+short|"
               rf"in\s+summary|in\s+conclusion|to\s+sum\s+up|actually|i\s+think|i\s+believe|i\s+guess|my\s+guess\s+is|"
               rf"probably|likely))|{_W}(?:پس|در\s+نتیجه|خلاصه|به\s+نظرم|به\s+نظر\s+من|فکر\s+می{_ZW}کنم|گمانم|احتمالا|"
               rf"بنابراین|لذا)){_E}\s*,?\s*(?=(?:(?:{_NOUN_EN}|{_NOUN_FA})\s*)?{_QO}(?:[0-9]|[A-D]|الف|ب|ج|د)"
               rf"{_QC}(?:\s*(?:است|باشد|هست))?\s*(?:[.!)]|$))"),  # «فکر می‌کنم گزینه ۳ باشد»
    # «تنها بیتی که با بقیه فرق دارد، بیت سوم است»: the claim first, the option after
    re.compile(rf"{_W}(?:تنها\s+)?(?:بیتی|گزینه{_ZW}ای)\s+که\s+[^.؟?!\n]{{0,50}}?(?:(?:فرق|تفاوت)(?:ی)?\s*(?:دارد|"
               rf"می{_ZW}کند)|(?:متفاوت|ناهمگون|ناهمخوان|جدا|متمایز)\s*(?:است|هست)|(?:قرابت|ارتباط|هم{_ZW}خوانی|"
               rf"همخوانی|شباهت)(?:ی)?(?:\s+\S+)?\s+ندارد|(?:هم{_ZW}خوان|همخوان|هم{_ZW}معنا|هماهنگ)\s*نیست)"
               rf"[\s،,:]*(?={_NOUN_FA})"),
    re.compile(r"(?i:<answer>)\s*"),
    re.compile(r"\\boxed\s*\{\s*(?:\\text\s*\{\s*)?"),
    # پاسخ: ۳ / جواب نهایی: گزینه الف / پاسخ صحیح گزینه «ب» است / گزینهٔ درست: ۳ / بیت متفاوت، بیت سوم است
    re.compile(rf"{_W}(?:(?:پاسخ|جواب|انتخاب)(?:\s*(?:ی|نهایی|درست|صحیح|من|ما|سوال|پرسش|این\s+پرسش|"
               rf"این\s+سوال|مناسب))*(?:\s*[:：،,]\s*|\s+(?:(?:برابر\s+(?:با\s+)?|همان\s+)?"
               rf"(?={_NOUN_FA}|[0-9]|[(\[\"'«])))"
               rf"|(?:گزین(?:ه|ۀ)\u0654?|بیت)(?:ی|{_ZW}ی)?\s+(?:نهایی|درست|صحیح|متفاوت|ناهمگون|ناهمخوان|نامرتبط|منتخب|"
               rf"انتخابی|برگزیده|مورد\s+نظر|غریبه|بیگانه|استثنا)(?:\s*(?:ی|{_ZW}ی))?"
               rf"(?:\s*[:：،,]\s*|\s+(?:(?:برابر\s+(?:با\s+)?|همان\s+)?)|\s*(?=[0-9(\[\"'«])))"
               rf"(?:{_NOUN_FA}\s*)?"),
]
_IT_IS = re.compile(r"(?i:\b(?:it'?s|it\s+is|that'?s|that\s+is|it\s+has\s+to\s+be|it\s+must\s+be)\s+(?=(?:the\s+)?\w))")
_NOT_BUT = re.compile(r"(?i:\s*(?:not|n't)\s+[^,.;\n]{1,25}?,?\s*but\s+(?:rather\s+)?)")

# claims about one option: subject mention ... predicate
_COP_EN = (r"(?P<cop>(?i:\b(?:(?:might|may|could)(?:\s+not)?\s+(?:also\s+)?be|would(?:\s+not|n't)?\s+be|"
           r"(?:seems|appears|looks)(?:\s+to\s+be|\s+like)?|is(?:\s+not|n't)?|'s(?:\s+not)?|was(?:\s+not|n't)?)"
           r"(?:\s+(?:clearly|indeed|definitely|certainly|obviously|thus|therefore|also|really|truly|actually|"
           r"semantically|thematically|conceptually|plainly|then|the\s+only\s+one))*\s+))")
_PREDICATES = [
    re.compile(_COP_EN + r"(?P<core>(?i:(?:the\s+)?(?:(?:real|true|clear|obvious|only)\s+)?(?:outlier|"
               r"odd\s+(?:one|man)(?:\s+out)?|odd\s+(?:couplet|option|verse)|exception|different\s+one|out\s+of\s+step|"
               r"one\s+that\s+stands\s+apart|"
               r"one\s+that\s+(?:differs|stands\s+out|does\s*n[o']t\s+(?:fit|belong))|"
               r"(?:correct|right)\s+(?:answer|option|choice)|answer|different|distinct|unrelated|"
               r"out\s+of\s+place|(?:unlike|not\s+like|(?:not\s+)?(?:similar|related)\s+to)\s+(?:all\s+)?the\s+other\s+"
               r"(?:three|couplets|options|verses|ones)|correct(?!\s+(?:in|about|that|to|when|as|for|on)\b)|dissimilar|odd|the\s+exception|unlike\s+the\s+(?:others|rest)|"
               r"not\s+like\s+the\s+(?:others|rest)|(?:least|less)\s+(?:related|similar|connected|like|relevant)|"
               r"most\s+(?:different|distinct|unrelated|dissimilar)|only\s+(?:one|couplet|option|verse)(?!\s+(?:of|among)\b)|(?:not\s+)?(?:similar|related)\s+to\s+the\s+(?:others|rest)))\b)"),
    re.compile(r"(?P<cop>(?i:\b(?:(?:might|may|could|does|did|would|will)(?:\s+not|n't)?\s+|doesn't\s+|"
               r"never\s+|clearly\s+|also\s+|alone\s+|really\s+)?))"
               r"(?P<core>(?i:differs|differ|stands\s+(?:out|apart)|stand\s+(?:out|apart)|breaks\s+(?:away\s+)?(?:from|with)\s+the\s+"
               r"(?:others|rest|other\s+\w+)|breaks\s+the\s+pattern|break\s+the\s+pattern|"
               r"deviates|deviate|diverges|diverge|contrasts)\b)"),
    re.compile(r"(?P<form>)(?P<cop>(?i:\b(?:does\s+not|doesn't|does\s*n't)\s+))(?P<core>(?i:fit(?:\s+in)?|belong|"
               r"match|share|align|go\s+with|agree|conform)\b)"),
    re.compile(r"(?P<form>)(?P<cop>)(?P<core>(?i:has\s+nothing\s+(?:in\s+common|to\s+do)|shares\s+nothing|has\s+an?\s+"
               r"(?:different|distinct|separate|unrelated)\s+(?:meaning|theme|message|idea|concept|subject|sense))\b)"),
    # Persian, verb-final
    re.compile(rf"(?P<core>{_W}(?:متفاوت|متمایز|ناهمگون|ناهمخوان|نامرتبط|بی{_ZW}ربط|بی{_ZW}ارتباط|جدا|"
               rf"استثنا|غریبه|بیگانه|از\s+جنس\s+دیگری|از\s+مقوله{_ZW}ای\s+دیگر|درست|صحیح|پاسخ(?:\s+(?:درست|صحیح|سوال|نهایی))?|جواب(?:\s+(?:درست|صحیح|"
               rf"سوال|نهایی))?|(?:گزین(?:ه|ۀ)\u0654?|بیت)(?:ی|{_ZW}ی)?\s+(?:درست|صحیح|متفاوت|ناهمگون))(?:{_ZW}تر)?)"
               rf"[\s\u200c]*(?P<cop>است|هست|می{_ZW}باشد|بود|نیست|نمی{_ZW}باشد|نبود|باشد|نباشد|ه|"
               rf"به\s+نظر\s+(?:می{_ZW}رسد|نمی{_ZW}رسد|می{_ZW}آید)){_E}"),
    re.compile(rf"(?P<core>{_W}(?:فرق|تفاوت|تمایز|اختلاف)(?:ی)?(?:\s+(?:معنایی|مفهومی|اساسی|آشکاری|آشکار|روشنی|"
               rf"محسوسی))?)\s*(?P<cop>دارد|داره|می{_ZW}کند|ندارد|نداره|نمی{_ZW}کند){_E}"),
    re.compile(rf"(?P<form>)(?P<core>{_W}(?:قرابت|هم{_ZW}خوانی|همخوانی|سنخیت|ارتباط|تناسب|مطابقت|هماهنگی|شباهت|"
               rf"هم{_ZW}معنایی|همسویی|هم{_ZW}سویی|نسبت|پیوند)(?:ی)?(?:\s+(?:معنایی|مفهومی))?)"
               rf"\s*(?P<cop>ندارد|نداره){_E}"),
    re.compile(rf"(?P<form>)(?P<core>{_W}(?:هم{_ZW}خوان|همخوان|هماهنگ|هم{_ZW}معنا|هم{_ZW}معنی|همسو|هم{_ZW}سو|سازگار|مرتبط|متناسب|مشابه|"
               rf"هم{_ZW}راستا|هم{_ZW}مضمون|هم{_ZW}مفهوم|یکسان|همانند|هم{_ZW}سنخ))[\s\u200c]*(?P<cop>نیست|"
               rf"نمی{_ZW}باشد){_E}"),
    re.compile(rf"(?P<form>)(?P<core>{_W}(?:کمترین|بیشترین\s+(?:تفاوت|فاصله)|کم{_ZW}ترین)(?:\s+(?:ارتباط|شباهت|قرابت|"
               rf"هم{_ZW}خوانی|همخوانی|نسبت|پیوند))?)[^.،؛\n]{{0,30}}?(?P<cop>دارد|را\s+دارد){_E}"),
    re.compile(rf"(?P<form>)(?P<core>{_W}(?:جور\s*در\s*نمی{_ZW}آید|نمی{_ZW}خواند|جدا\s+می{_ZW}شود|فاصله\s+دارد|"
               rf"(?:مفهوم|معنا|معنای|مضمون|پیام)(?:ی)?\s+(?:متفاوت|دیگر|جداگانه|دیگری|جدا|متمایز|دیگرگون)\s+دارد))(?P<cop>)"),
]
# a claim followed by "but ..." in its sentence is conceded ("couplet 2 is different, but it fits")
_BUT = re.compile(rf"(?i:\b(?:but|however|yet|though|although)\b)|{_W}(?:اما|ولی|لیکن|ولیکن|هرچند|اگرچه){_E}")
_JOINED = re.compile(r"\s*(?:,|،|/|&|(?i:or|and)|و|یا)\s*")
# "couplet 2 might be the outlier, or maybe 3": a second option offered after the claim
_OR_AFTER = re.compile(rf"\s*[,،]?\s*(?:(?i:or)|یا)\s+(?:(?i:maybe|perhaps|possibly|even)\s+|شاید\s+)?(?:(?i:the)\s+)?"
                       rf"(?:{_NOUN_EN}|{_NOUN_FA}|(?i:{_alt(_EN_ORD)})|{_DIGIT})")
# choices: "I'd pick 2" / "I would choose option 3" / "گزینه ۳ را انتخاب می‌کنم"
_CHOOSE_EN = re.compile(
    r"(?i:\b(?:i|we)(?P<cop>(?:\s*'d|\s*'ll|'m\s+going\s+to|\s+(?:would|will|must|shall|do|did|can|could|might|"
    r"am\s+going\s+to|have\s+to))?(?:\s+not|n't)?(?:\s+(?:therefore|thus|then|definitely|probably|confidently|"
    r"still|rather|also))?)\s+(?:choose|chose|pick|picked|select|selected|go\s+with|went\s+with|opt\s+for|"
    r"opted\s+for|vote\s+for|settle\s+on|mark|say|go\s+for|lean(?:ing)?\s+towards?)\s+"
    r"|\blet'?s\s+go\s+with\s+|\bgoing\s+with\s+"
    r"|\bmy\s+(?:vote|pick|choice|bet|money)\s+(?:goes\s+to|is\s+on|is\s+for|would\s+be\s+on|falls\s+on)\s+"
    r"|\b(?:i'?m|i\s+am|we'?re|we\s+are)(?P<cop2>\s+not)?\s+(?:selecting|choosing|picking|going\s+with|opting\s+for|"
    r"leaning\s+towards?|"
    r"going\s+to\s+(?:choose|pick|select|go\s+with))\s+)")
_CHOOSE_FA = re.compile(rf"\s*(?:را|رو)\s*(?P<core>انتخاب|برمی{_ZW}گزینم|بر\s*می{_ZW}گزینم)"
                        rf"\s*(?P<cop>می{_ZW}کنم|کردم|می{_ZW}کنیم|خواهم\s+کرد|نمی{_ZW}کنم|نکردم|نمی{_ZW}کنیم)?")


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
    if doc.question(start) or _CONDITIONAL.search(prefix) or _NEG_PREFIX.search(prefix):
        return False, False
    j = cs  # the clause before this one ends before its separator (", " is a boundary of its own)
    while j > 0 and doc.t[j - 1] in " \t,،:":
        j -= 1
    before = doc.t[max(doc.clause_start(max(j - 1, 0)), j - _REACH):cs]
    if not prefix.strip(" ,،") and _CONDITIONAL.search(before) and not _HEDGE_IF.search(before):
        return False, False  # "if so, ..." keeps the condition ("if I had to pick one, ..." is a hedge)
    weak = bool(_TENTATIVE.search(prefix) or _WEAK_CLAUSE.search(prefix)
                or (cs > sentence_start and _WEAK_CLAUSE.search(head[:1] + doc.t[cs:start])))
    return True, weak


def _value_candidate(doc: _Text, start: int, vpos: int, final_text: str) -> _Cand | None:
    """A candidate whose value token starts at vpos (after a marker or a choice verb)."""
    t = doc.t
    skip = _NOT_BUT.match(t, vpos)
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
    if not ok or _FA_NEG_AFTER.match(t, end):
        return None
    more = _MORE.match(t, end) or _OR_AFTER.match(t, end)
    return _Cand(start, end, None if more else value, kind, weak or bool(more), bool(_FINAL.search(final_text)))


_ASIDE = re.compile(r"[(\[][^()\[\]\n]{1,80}[)\]](?P<tail>[^()\[\]\n]{0,60})$")


# "couplet 3 differs, as does couplet 1": the claim is made of a second option too
_AS_DOES = re.compile(r"(?i:[^.;!?\n]{0,40}?[,،]?\s*(?:as\s+(?:does|do|did|is|are|was)|and\s+so\s+(?:does|do|is)|"
                      r"so\s+(?:does|do|is))\b[^.;!?\n]{0,25}?(?:\b(?:option|couplet|verse|line|choice)s?\s*)?"
                      r"(?<![\w.])[1-9](?![\w]))")
# an aside that offers another option: "Couplet 2 (and perhaps 3) stands apart"
_ASIDE_MORE = re.compile(r"\s*[(\[]\s*(?:(?i:and|or|plus|maybe|perhaps|possibly|also)\b"
                         r"|(?:و|یا|شاید|نیز)(?![\w\u200c]))[^()\[\]\n]{0,40}?[0-9]")


def _before_aside(t: str, pos: int) -> int:
    """Where a parenthetical aside right before pos starts (pos when there is none): the aside
    sits between a subject and its predicate (or the predicate's «با بقیه», "from the rest")
    and is not a clause of its own."""
    m = _ASIDE.search(t, max(0, pos - 150), pos)
    if m and not _OBJ_PHRASE.sub(" ", m.group("tail")).strip(" \t,،"):
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
    rest = _OBJ_PHRASE.sub(" ", doc.t[cs:pred_start]).strip(" ,،:\t")
    rest = re.sub(r"^(?:و|(?i:and))(?:\s+|$)", "", re.sub(r"\s+", " ", rest))
    if rest and not _PRONOUN.fullmatch(rest):
        return None
    s, _ = doc.sentence(pred_start)
    if rest and s == cs:  # "This couplet ..." opening a sentence: the one option of the sentence before
        start = max(doc.sentence(max(s - 1, 0))[0], s - _REACH)
        before = [m for m in doc.between(start, s) if m.end <= s and not m.obj]
        if len({m.value for m in before}) == 1:
            return before[0]
    line_start = doc.t.rfind("\n", 0, pred_start) + 1
    earlier = [m for m in doc.between(max(s, cs - _REACH), cs) if m.end <= cs and not m.obj]
    lead = _LIST_LEAD.match(doc.t, line_start)
    if not earlier and lead:
        earlier = [m for m in doc.between(line_start, lead.end()) if m.end <= lead.end()]
    return earlier[0] if earlier else None


def _candidates(doc: _Text) -> list[_Cand]:
    t, out = doc.t, []
    for rx in _MARKERS:
        for m in rx.finditer(t):
            c = _value_candidate(doc, m.start(), m.end(),
                                 t[max(doc.clause_start(m.start()), m.start() - _REACH):m.end()])
            if c:
                out.append(c)
    for m in _IT_IS.finditer(t):  # "It's couplet 3 ...": an answer only when nothing stronger is said
        c = _value_candidate(doc, m.start(), m.end(), "")
        if c and _mention_at(doc, m.end()):
            c.weak = c.by_form = True
            out.append(c)
    for m in _CHOOSE_EN.finditer(t):
        cop = (m.group("cop") or "") + (m.group("cop2") or "")
        if _NEG_EN.search(cop):
            continue
        c = _value_candidate(doc, m.start(), m.end(), "")
        if c:
            c.weak = c.weak or bool(re.search(r"(?i:could|might)", cop))
            out.append(c)
    for _i, rx in enumerate(_PREDICATES):
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
                negated = bool(_NEG_EN.search(cop) or _NEG_EN.search(gap))
                tentative = bool(re.search(r"(?i:might|may|could|seems|appears|looks)", cop))
                if core.lower() in ("differ", "stand out", "break the pattern", "deviate", "diverge") \
                        and not re.search(r"(?i:might|may|could|does|did|would|will)", cop):
                    continue  # plural subject: "options 1 and 3 differ"
            if negated or (persian and _NEG_PREFIX.search(gap)):
                continue
            ok, weak = _clause_ok(doc, subj.start)
            if not ok:
                continue
            _, sentence_end = doc.sentence(m.start())
            weak = weak or tentative or bool(_TENTATIVE.search(gap) or _PARTIAL_AFTER.match(t, m.end())
                                             or _TENTATIVE.search(cop)
                                             or _BUT.search(t, m.end(), min(sentence_end, m.end() + _REACH)))
            more = _MORE.match(t, subj.end) or _OR_AFTER.match(t, m.end()) or _ASIDE_MORE.match(t, subj.end) \
                or _AS_DOES.match(t, m.end()) or any(
                x.end <= subj.start and _JOINED.fullmatch(t, x.end, subj.start)
                for x in doc.between(subj.start - 40, subj.start))
            out.append(_Cand(subj.start, m.end(), None if more else subj.value, subj.kind, weak or bool(more),
                             bool(_FINAL.search(t[max(doc.clause_start(subj.start), subj.start - _REACH):m.end()]))))
    out += _exclusions(doc)
    for x in doc.mentions:  # "Options 1 and 3 fit. Option 4 does not.": the verb left out is a fit verb
        m = _ELIDED.match(t, x.end)
        if m and not x.obj and _FIT_BEFORE.search(t, max(0, x.start - _REACH), x.start) and _clause_ok(doc, x.start)[0]:
            out.append(_Cand(x.start, m.end(), x.value, x.kind, False, False))
    for m in _CHOOSE_FA.finditer(t):
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


# "Couplets 1, 2 and 4 share ...", «ابیات ۱ و ۲ و ۴ دربارهٔ تواضع‌اند»: all options but one said to
# belong together, which names the remaining one (weak: any explicit answer counts first)
_LIST_AND = re.compile(r"\s*(?:,|،|&|(?i:,?\s*and)|و)\s*")
_SHARE_EN = re.compile(
    r"(?i:[^.!?;\n]{0,12}?\b(?:all\s+|each\s+|both\s+|clearly\s+|together\s+)?(?:share|have\s+in\s+common|"
    r"(?:are|were)\s+(?:all\s+|clearly\s+)?(?:about|on\s+the\s+same|related|similar|alike|connected|consistent|"
    r"of\s+a\s+piece|in\s+agreement|thematically\s+(?:linked|related|similar))|express|speak|talk|deal|concern|"
    r"describe|convey|reflect|refer|point|revolve|praise|focus|emphasi[sz]e|evoke|celebrate|lament|warn|advise|"
    r"teach|belong\s+together|fit\s+together|go\s+together|agree)\b)")
_SHARE_FA = re.compile(rf"[^.؟?!\n،,؛]{{0,60}}?(?:{_W}(?:مشترک|هم{_ZW}معنا|هم{_ZW}مضمون|هم{_ZW}مفهوم|هم{_ZW}سو|"
                       rf"همگی|هر\s+سه)"
                       rf"|(?:\u200c|\s)(?:اند|هستند|دارند|می{_ZW}گویند|می{_ZW}کنند|می{_ZW}پردازند|می{_ZW}دهند)){_E}")


_THREE = re.compile(
    r"(?i:\bthe\s+(?P<en>first|last|top|bottom)\s+three\b(?:\s+(?:couplets|options|verses|lines|ones|beits))?)"
    rf"|{_W}سه\s+(?:بیت|گزینه)(?:{_ZW}ی)?\s+(?P<fa>اول|نخست|آخر|پایانی){_E}"
    rf"|{_W}(?P<fa2>نخستین|اولین|آخرین)\s+سه\s+(?:بیت|گزینه){_E}")


def _shared(doc: _Text, start: int, end: int) -> re.Match | None:
    """The sharing predicate right after a group of options, unless it is negated."""
    share = _SHARE_EN.match(doc.t, end) or _SHARE_FA.match(doc.t, end)
    if not share or _NEG_PREFIX.search(doc.t, end, share.end()) \
            or re.search(rf"(?:{_W}ن(?:یستند|دارند|می)|(?i:\bnot\b|n't\b))", share.group()):
        return None
    return share if _clause_ok(doc, start)[0] else None


_ELIDED = re.compile(r"(?i:\s+(?:does\s+not|doesn't|does\s+n't))\s*(?=[.;,!\n]|$)"
                     r"|\s+نه\s*(?=[.؛،,!\n]|$)")
_FIT_BEFORE = re.compile(r"(?i:\b(?:fits?|fit\s+in|belongs?|match(?:es)?|shares?|go(?:es)?\s+with|agrees?|conforms?)\b)"
                         rf"|{_W}(?:هم{_ZW}خوان|همخوان|مشترک|هماهنگ|مرتبط|هم{_ZW}معنا|سازگار|هم{_ZW}مضمون)")


def _exclusions(doc: _Text) -> list[_Cand]:
    out, ms = [], doc.mentions
    if doc.n == 4:  # "the first three couplets share ...": the last one is named
        for m in _THREE.finditer(doc.t):
            first = (m.group("en") or "").lower() in ("first", "top") or (m.group("fa") or m.group("fa2") or "") in (
                "اول", "نخست", "نخستین", "اولین")
            share = _shared(doc, m.start(), m.end())
            if share:
                out.append(_Cand(m.start(), share.end(), 4 if first else 1, ":word", True, False))
    for i in range(len(ms) - doc.n + 2):
        group = ms[i:i + doc.n - 1]
        if any(not _LIST_AND.fullmatch(doc.t, a.end, b.start) for a, b in zip(group, group[1:])):
            continue
        values = {m.value for m in group}
        rest = set(range(1, doc.n + 1)) - values
        if len(values) != doc.n - 1 or len(rest) != 1 or any(m.obj for m in group):
            continue
        if (i > 0 and _LIST_AND.fullmatch(doc.t, ms[i - 1].end, group[0].start)) or \
                (i + doc.n - 1 < len(ms) and _LIST_AND.fullmatch(doc.t, group[-1].end, ms[i + doc.n - 1].start)):
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
            cue = _CORRECTION.search(t, prev_end, c.end)
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

_ONLY_RX = re.compile(
    rf"\s*(?:(?:=>|->|⇒|→|=)\s*)?(?:(?:{_NOUN_EN}|{_NOUN_FA})\s*[:\-]?\s*)?(?:\#\s*)?{_QO}(?P<v>{_VALUE})"
    rf"(?:{_QC})\s*[.!:؛)]?\s*"
    rf"|\s*(?P<w>(?i:(?:the\s+)?(?:{_alt(_EN_ORD)})(?:\s+(?:option|couplet|verse|one))?)"
    rf"|(?:{_alt(_FA_ADJ)}){_ZW}(?:بیت|گزینه)|(?:{_alt(_FA_Y)}))\s*[.!]?\s*")
_LINE_HEAD = re.compile(r"(?m)^[ \t>•*\-]*")
_LEAD_SEP = re.compile(r"[ \t]*(?:[.):\-–—؛;،,]|[ \t]+[-–—]|$)")


def _lead(doc: _Text) -> _Mention | None:
    """The option a reply starts with ("3. The third couplet ...", «بیت چهارم؛ چون ...»), when the
    lines that start with an option all name the same one (else they are an enumeration)."""
    heads, first = [], True
    for m in _LINE_HEAD.finditer(doc.t):
        end = doc.t.find("\n", m.end())
        if not doc.t[m.end():end if end >= 0 else len(doc.t)].strip():
            continue
        mention = _mention_at(doc, m.end())
        if mention and mention.start <= m.end() + 1 and _LEAD_SEP.match(doc.t, mention.end) \
                and not _MORE.match(doc.t, mention.end):
            heads.append(mention)
        elif first:
            return None  # the first line does not start with an option
        first = False
    return heads[0] if heads and len({h.value for h in heads}) == 1 else None


_OR_SENTENCE = re.compile(rf"\s*(?:(?i:or|or\s+maybe|or\s+perhaps|maybe)|یا|یا\s+شاید)\s+"
                          rf"(?:(?:{_NOUN_EN}|{_NOUN_FA})\s*)?{_QO}(?:{_VALUE}){_QC}\s*[.?!؟]*\s*")
_NOT_THEN = re.compile(  # «نه بیت دوم، بیت چهارم», «گزینهٔ ۴ نه، گزینهٔ ۲»
    rf"\s*(?:(?:(?i:not)|نه)\s+(?:(?:{_NOUN_EN}|{_NOUN_FA})\s*)?{_QO}(?:{_VALUE}){_QC}"
    rf"|(?:(?:{_NOUN_EN}|{_NOUN_FA})\s*)?{_QO}(?:{_VALUE}){_QC}\s+(?:نه|(?i:no|not)))\s*(?:—|–|-|,|;|،|؛|:)\s*"
    rf"(?:(?i:(?:but\s+)?(?:rather|instead|it'?s|it\s+is)|but)\s+|(?:بلکه|که)\s+)?")


def _only(text: str, n: int = 4) -> tuple[int, str] | None:
    m = _ONLY_RX.fullmatch(text)
    if not m:
        return None
    token = m.group("v") or m.group("w")
    if m.group("w"):
        token = re.sub(r"(?i:^the\s+|\s+(?:option|couplet|verse|one)$)", "", token.strip())
        token = re.sub(rf"{_ZW}(?:بیت|گزینه)$", "", token)
    return _value_of(token, n)


# ---------------------------------------------------------------- JSON

_JSON_KEYS = ("answer", "final_answer", "choice", "option", "outlier", "selected_option", "odd_one_out",
              "پاسخ", "جواب", "گزینه", "پاسخ_نهایی")


_OBJECT_START = re.compile(r'\{(?=\s*(?:"|\}))')  # an object starts with a key (or is empty)


def _json_answers(text: str) -> list[object]:
    """The answer-key values of the JSON objects in the text (outermost first)."""
    decoder, values, covered = json.JSONDecoder(), [], -1
    starts = [m.start() for m in _OBJECT_START.finditer(text)]
    if len(starts) > 64:  # a reply is not a data file: the first and last objects are enough
        starts = starts[:32] + starts[-32:]
    for i in starts:
        try:
            obj, end = decoder.raw_decode(text, i)
        except (ValueError, RecursionError):
            continue
        if not isinstance(obj, dict):
            continue
        keys = {re.sub(r"[\s\-]+", "_", str(k).strip().lower()): v for k, v in obj.items()}
        key = next((k for k in _JSON_KEYS if k in keys), None)
        if key is not None:
            if i < covered:  # nested in an object already read: only if the outer had no answer
                continue
            values.append(keys[key])
            covered = i + end - i
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


def parse_answer(text: str | None, *, reasoning: str | None = None, n_options: int = 4) -> Parsed:
    body, blocks = split_reasoning(text or "")
    parts = [p.strip() for p in [reasoning or "", *blocks]]
    why = "\n\n".join(p for p in parts if p) or None
    body = body.strip()
    if not body:
        return Parsed(None, "empty", why, "none")

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
    line_answers = [(i, _only(ln, n_options)) for i, ln in lines]
    line_answers = [(i, a) for i, a in line_answers if a]
    for s_start, s_end in zip(doc.hard, doc.hard[1:] + [len(clean)]):  # "Not 1. Not 2. Couplet 3."
        sentence = clean[s_start:s_end]
        line_end = clean.find("\n", s_start + 1)
        line = clean[clean.rfind("\n", 0, s_start + 1) + 1:line_end if line_end >= 0 else len(clean)]
        if _OR_SENTENCE.fullmatch(sentence):  # "I think 2. Or 3.": the answer before is one of two
            for c in cands:
                if doc.sentence(max(s_start - 1, 0))[0] <= c.pos < s_start and c.value is not None:
                    c.value, c.weak = None, True
            continue
        not_then = _NOT_THEN.match(sentence)  # "Not couplet 2 — couplet 4." / «نه بیت دوم، بیت چهارم»
        if not_then:
            got = _only(sentence[not_then.end():], n_options)
            if got:
                cands.append(_Cand(s_start + not_then.end(), s_end, got[0], got[1], True, False, True))
        elif "\n" not in sentence.strip() and sentence.strip() != line.strip():
            got = _only(sentence, n_options)
            if got:
                cands.append(_Cand(s_start, s_end, got[0], got[1], True, False, True))
    for c in cands:  # "The answer is 1... no, wait, it's 2."
        if c.by_form and _CORRECTION.search(clean, max(0, c.pos - 40), c.pos):
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
        status, c = _decide(strong, clean)
        if status == "ambiguous":
            return Parsed(None, "ambiguous", why, "tag")
        if c is not None:
            return result(c.value, "tag", c.kind)
        return Parsed(None, "invalid", why, "tag")
    lead = _lead(doc)
    if lead is not None:
        return result(lead.value, "lead", lead.kind)
    weak = [c for c in cands if c.weak]
    if weak:
        status, c = _decide(weak, clean)
        if status == "ambiguous":
            return Parsed(None, "ambiguous", why, "tag")
        return result(c.value if c else None, "tag", c.kind if c else "")
    if _REFUSAL.search(clean) and not doc.mentions:  # "unable to choose between 1 and 3" is undecided
        return Parsed(None, "refusal", why, "none")
    return Parsed(None, "invalid", why, "none")


_REFUSAL = re.compile(
    r"(?i:\bi\s*(?:can't|cannot|can\s+not|am\s+unable|'m\s+unable|am\s+not\s+able|'m\s+not\s+able|won't|"
    r"must\s+decline|decline)\b|\bas\s+an\s+ai\b|\bi'm\s+sorry,?\s+but\b|\bunable\s+to\s+(?:help|assist|answer|"
    r"determine)\b|\bnot\s+able\s+to\s+(?:answer|help|determine)\b)"
    r"|مت(?:ا\u0654?|أ)سفانه|نمی[\u200c ]?توانم|قادر\s+(?:به\s+\S+\s+)?نیستم|معذورم"
)
