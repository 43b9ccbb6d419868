"""The answer parser's vocabulary (runs/parse.py): option values in English and Persian
(digits of every script, letters, ordinals, number words), the characters cleaned from a copy,
and the patterns of clauses (negation, hedges, corrections, choices, claims, refusals).

Data and compiled patterns only; how they are read is parse.py's."""

from __future__ import annotations

import re
from collections.abc import Iterable

DIGITS = str.maketrans("۰۱۲۳۴۵۶۷۸۹٠١٢٣٤٥٦٧٨٩０１２３４５６７８９①②③④⑤❶❷❸❹❺➀➁➂➃➄",
                       "012345678901234567890123456789123451234512345")
CLEAN = str.maketrans({"*": "", "`": "", "#": " ", "_": " ", "ي": "ی", "ك": "ک", "ى": "ی",
                       "’": "'", "‘": "'", "“": '"', "”": '"', "\u200f": "", "\u200e": "",
                       "\u0640": "", "\ufe0f": "", "✅": "", "✔": "", "✓": "", "☑": "", "\u20e3": ")", "\u00a0": " ", "\u202b": "",  # noqa: E501
                       "\u202a": "", "\u202c": "", "\u2067": "", "\u2066": "", "\u2069": ""})

# diacritics (harakat, superscript alef) and invisible characters other than ZWNJ: dropped from the copy
MARKS = dict.fromkeys([*range(0x064B, 0x0654), *range(0x0655, 0x0660), 0x0670, 0x200B, 0x200D, 0x2060, 0xFEFF])

# terminal escapes (colour, title) and control characters: dropped; the other line breaks -> \n
ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b.?")
CONTROLS = {**dict.fromkeys([*range(0x00, 0x09), *range(0x0E, 0x1C), 0x1F, *range(0x7F, 0x85), *range(0x86, 0xA0)]),
            **dict.fromkeys([0x0B, 0x0C, 0x1C, 0x1D, 0x1E, 0x85, 0x2028, 0x2029], "\n")}
W = r"(?<![\w\u200c])"  # word start (Latin or Persian)
E = r"(?![\w\u200c])"  # word end
ZW = "[\u200c ]?"
LAST = -1  # "the last couplet", «بیت آخر»: the n-th option
EN_ORD = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5,
          "1st": 1, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5, "last": LAST}
EN_NUM = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5}
FA_ORD = {"اول": 1, "یکم": 1, "نخست": 1, "دوم": 2, "سوم": 3, "چهارم": 4, "پنجم": 5, "آخر": LAST}
FA_NUM = {"یک": 1, "دو": 2, "سه": 3, "چهار": 4, "پنج": 5}
FA_ADJ = {"اولین": 1, "نخستین": 1, "دومین": 2, "سومین": 3, "چهارمین": 4, "پنجمین": 5, "آخرین": LAST}
FA_Y = {"اولی": 1, "دومی": 2, "سومی": 3, "چهارمی": 4, "پنجمی": 5, "آخری": LAST}
LATIN = {c: i for i, c in enumerate("ABCDE", 1)}
FA_LETTERS = {"الف": 1, "ب": 2, "ج": 3, "د": 4, "ه": 5}
WORDS = {**{k: v for k, v in EN_ORD.items()}, **EN_NUM, **FA_ORD, **FA_NUM, **FA_ADJ, **FA_Y}


def _alt(words: Iterable[str]) -> str:
    return "|".join(sorted(map(re.escape, words), key=len, reverse=True))


DIGIT = r"(?<![0-9.,/])[0-9]{1,2}(?![0-9]|[.,][0-9])"
UPPER = r"(?-i:A(?!\s+(?!is\b|or\b|and\b|was\b)[a-z])|[B-E])(?![A-Za-z0-9'])"  # "A" not an article
FA_LETTER = rf"{W}(?:الف|ب|ج|د){E}"
WORD_VALUE = rf"(?i:\b(?:{_alt([*EN_ORD, *EN_NUM])})\b)|{W}(?:{_alt([*FA_ORD, *FA_NUM])}){E}"

# a value right after a noun or an answer marker: anything
ROMAN = {"I": 1, "II": 2, "III": 3, "IV": 4, "V": 5}
ROMAN_RX = (r"(?-i:IV|III|II|V|I(?!\s*'|\s+(?i:think|believe|would|will|am|guess|choose|pick|select|say|need|have|"
            r"can|must|should|feel|go|chose|picked|selected|do|don't|did|was|reckon|suspect|see|agree)\b))(?![\w'])")
VALUE = rf"(?:{DIGIT}|{UPPER}|{ROMAN_RX}|(?<=[(\[\"'«])[a-e](?=[)\]\"'»])|{FA_LETTER}|{WORD_VALUE})"
QO, QC = r"(?:[(\[\"'«]\s*)?", r"(?:\s*[)\]\"'»])?"
NOUN_EN = (r"(?i:\b(?:(?:options?|choices?|couplets?|verses?|beits?|bayts?|lines?)(?:\s+(?:number|no\.))?|number|no\.|"
           r"answer\s+choice))")
NOUN_FA = rf"(?:{W}(?:گزین(?:ه|ۀ)\u0654?(?:{ZW}ی{E})?|بیت(?:{ZW}های)?|ابیات|شماره)(?:\s*ی{E})?)"
MENTION = re.compile(
    rf"(?P<noun>(?:{NOUN_EN}|{NOUN_FA})\s*(?:\#\s*)?{QO}(?P<v>{VALUE}|(?i:[a-e])(?![\w']))(?:{QC}))"
    rf"|(?P<ordnoun>(?i:\b(?:the\s+)?(?P<o>{_alt(EN_ORD)})\s+(?:options?|choices?|couplets?|verses?|"
    rf"beits?|lines?|one)\b))"
    rf"|(?P<ordalone>(?i:\bthe\s+(?P<a>{_alt(EN_ORD)})\b)(?=\s*(?:[,.;:!?)]|$)|(?i:\s+(?:is|isn't|differs|"
    rf"stands|does|doesn't|seems|appears|would|has|fits|breaks|belongs)\b)))"
    rf"|(?P<faadj>{W}(?P<j>{_alt(FA_ADJ)}){ZW}(?:بیت|گزینه))"
    rf"|(?P<fay>{W}(?P<y>{_alt(FA_Y)}){E})"
    rf"|(?P<numverb>(?i:\b(?P<nv>{_alt([*EN_NUM, *EN_ORD])})(?=\s+(?:is|was|would|seems|stands|differs|does|doesn't)\b)))"  # noqa: E501
    rf"|(?P<digit>(?<![\w.,/\-])[1-9](?![\w\u200c]|[.,][0-9])(?![ \t]*(?i:couplets|options|verses|lines|of\b))"
    rf"(?![ \t]*(?:بیت|گزینه|مصراع)))"
    rf"|(?P<letter>(?<=\()[A-Ea-e](?=\))|(?<![\w'])[B-D](?![\w'\u200c]))"
)

# after a mention: "or 4", "and 3", "/ 2" -> more than one option named
MORE = re.compile(rf"\s*(?:,|،|/|&|\bor\b|\band\b|(?<!\S)و(?!\S)|(?<!\S)یا(?!\S))\s*(?:(?:{NOUN_EN}|{NOUN_FA})\s*)?{QO}"  # noqa: E501
                  rf"(?:[0-9]{{1,2}}(?![0-9])|{UPPER}|{FA_LETTER}|{WORD_VALUE})")

# a word right before an option that makes it the object of a comparison ("unlike 2", «با بیت اول»)
OBJ_WORDS = frozenset(["than", "like", "unlike", "from", "with", "to", "versus", "vs", "vs.", "except", "besides", "including", "against", "over", "between", "among", "با", "از", "به", "مانند", "مثل", "همانند", "همچون", "برخلاف", "خلاف", "جز", "بجز", "شبیه", "مشابه", "چون"])  # noqa: E501
LIST_JOIN = re.compile(r"^\s*(?:,|،|\band\b|\bor\b|و|یا|&)?\s*(?:and\s+)?$")
COUNT_BEFORE = re.compile(rf"(?:{W}(?:دو|سه|چهار|همه|هر|تمام)|(?<![\w.])[2-4]|(?i:\b(?:two|three|four|all|the\s+other)))[ \t\u200c]+$")  # noqa: E501
PRONOUN = re.compile(r"(?i:(?:and\s+)?(?:so\s+)?(?:it|this|which|that|this\s+(?:one|couplet|option|verse)|the\s+latter))"  # noqa: E501
                     rf"|(?:و\s+)?(?:این|آن|که|این{ZW}(?:بیت|گزینه)|این\s+(?:بیت|گزینه))")

# what may stand between a pronoun and its predicate: «با بقیه», "from the others"
OBJ_PHRASE = re.compile(rf"(?:{W}(?:با|از)\s+(?:بقیه|سایر|دیگر|سه|ابیات|بیت|گزینه|آن|همه)[^،,]*"
                        r"|(?i:(?:from|with|than|to)\s+(?:all\s+)?the\s+(?:others|rest|other\s+\w+(?:\s+\w+)?)))")
AFTER_MARKER = re.compile(rf"\s*(?:(?i:either|one\s+of|between)\s+(?:(?:{NOUN_EN})\s*)?|(?:یکی\s+از|بین)\s+)?"
                          rf"{QO}(?P<v>{VALUE}|[a-e](?=\s*(?:[)\].!]|$)))(?:{QC})")
HARD = re.compile(r"\n|[!?؟;؛]|(?<!e\.g)(?<!i\.e)(?<!vs)\.(?=\s|$)(?!(?<=\b[Nn]o\.)\s*[0-9])")  # not "No. 3"
SOFT = re.compile(
    r"[,،:(]|—|–| - "
    r"|(?i:\b(?:but|however|yet|although|though|because|since|whereas|while|so|therefore|thus|hence|unlike|"
    r"rather\s+than|instead\s+of|whereas|if|unless)\b)"
    rf"|{W}(?:اما|ولی|لیکن|ولیکن|زیرا|چون|پس|بنابراین|هرچند|اگرچه|گرچه|درحالی{ZW}که|در\s+حالی{ZW}که|"
    rf"برخلاف|چرا{ZW}که|اگر|بلکه|در{ZW}حالیکه){E}"
    r"|(?<=[دت])\s+و\s+(?=\S)")  # Persian clauses joined after a verb: «... است و بیت چهارم ...»
COMMA = re.compile(r"[,،:]")
LIST_LEAD = re.compile(r"\s*[(\[]?\s*(?:[0-9]|[A-D])\s*[)\].:]")
LIST_MARK = re.compile(r"\s*[(\[]?\s*(?:[0-9]{1,2}|[A-Ea-e]|الف|ب|ج|د)\s*[)\]]?")
QUESTION_WORD = re.compile(rf"\s*(?:چرا|آیا){E}|\s*(?i:why)\b")
NEG_EN = re.compile(r"(?i:\b(?:not|never|no)\b|n't\b)")
NEG_PREFIX = re.compile(
    r"(?i:\b(?:not|never|no|hardly|doubt)\b|n't\b|\brule[sd]?\s+out\b|\beliminat)"
    rf"|{W}نه{E}|نمی{ZW}(?:کنم|دانم|گویم)|مطمئن\s+نیستم|فکر\s+نکنم|رد\s+می{ZW}شود")
CONDITIONAL = re.compile(
    r"(?i:\b(?:if|unless|suppose|supposing|assuming|whether|although|though|even\s+though|despite|admittedly"
    r"|granted|instead\s+of|rather\s+than|to\s+check|checking)\b)"
    rf"|{W}(?:اگر|چنانچه|درصورتی{ZW}که|در\s+صورتی{ZW}که|فرض|هرچند|اگرچه|گرچه|با{ZW}اینکه|با\s+این{ZW}که|"
    rf"با\s+وجود|به\s+جای|بجای){E}")
HEDGE_IF = re.compile(r"(?i:\bif\s+(?:i|we)\s+(?:had|have|must|were\s+forced|am\s+forced|was\s+forced)\s+to\s+"
                      r"(?:pick|choose|select|guess|say|answer|commit)|\bif\s+forced\b)"
                      rf"|{W}اگر\s+(?:مجبور|ناچار)")
TENTATIVE = re.compile(
    r"(?i:\b(?:might|may|could|perhaps|possibly|maybe|at\s+first|initially|first\s+glance|tempting|"
    r"one\s+(?:might|could)|some\s+(?:might|would|could)|candidate|consider(?:ing)?|let'?s\s+(?:check|see|test)|"
    r"also|too|as\s+well|partly|partially|somewhat|slightly|a\s+bit|a\s+little|superficially|arguably|"
    r"kind\s+of|sort\s+of|on\s+the\s+surface|only)\b)"
    rf"|{W}(?:شاید|ممکن|احتمال\s+دارد|در\s+نگاه\s+اول|در\s+ابتدا|نگاه\s+نخست|نیز|هم|تا\s+حدی|کمی|"
    rf"ظاهرا|ظاهراً|در\s+ظاهر|بررسی){E}")
WEAK_CLAUSE = re.compile(
    r"(?i:^\W*(?:because|since|as|for\s+example|for\s+instance|e\.g\.?|note|nb|by\s+the\s+way|similarly|"
    r"likewise|just\s+as|like|unlike|compared|in\s+contrast|whereas|also|and\s+also)\b)"
    rf"|^\W*(?:زیرا|چون|چون{ZW}که|چرا{ZW}که|به\s+این\s+دلیل|به\s+خاطر|مثلا|مثلاً|برای\s+نمونه|برای\s+مثال|توجه|"
    rf"نکته|همچنین|ضمنا|ضمناً|مانند|مثل|همانند|برخلاف|در\s+مقایسه){E}")
PARTIAL_AFTER = re.compile(
    r"(?i:[^.!?\n]{0,40}?\b(?:only\s+(?:in|on|by|slightly)|(?:in|by)\s+(?:terms\s+of\s+|respect\s+to\s+)?"
    r"(?:(?:its|their|the)\s+)?(?:sound|music|form|tone|style|wording|imagery|meter|"
    r"rhyme|vocabulary|diction|register)|superficially|on\s+the\s+surface|at\s+first|but\s+not\s+in\s+"
    r"(?:meaning|theme|sense|concept)|a\s+little|slightly|somewhat|too|as\s+well|also|but\s+less|less\s+so|"
    r"to\s+some\s+extent|partly|a\s+bit)\b)"
    r"|[^.!?؟\n]{0,40}?(?:فقط\s+در|در\s+ظاهر|از\s+نظر\s+(?:وزن|قافیه|لفظ|ظاهر|واژه|واژگان)|اما\s+(?:در|از\s+نظر)\s+"
    r"(?:معنا|مفهوم))")
FA_NEG_AFTER = re.compile(rf"[^.،,؛\n:]{{0,12}}?(?:{W}نیست|نمی{ZW}باشد|نباشد|نبود){E}")
CORRECTION = re.compile(
    r"(?i:\b(?:actually|on\s+second\s+thoughts?|wait|correction|i\s+was\s+wrong|i\s+made\s+a\s+mistake|"
    r"my\s+mistake|reconsider(?:ing)?|on\s+(?:further\s+)?reflection|upon\s+reflection|on\s+closer\s+"
    r"(?:look|inspection|reading|examination)|looking\s+again|scratch\s+that|let\s+me\s+correct|"
    r"correcting\s+myself|i\s+correct\s+myself|chang(?:e|ing)\s+my\s+answer|revised|updated|in\s+fact|"
    r"sorry|oops|edit|i\s+meant|no\s*,|hmm,?\s+no|i\s+take\s+(?:that|it)\s+back|instead)\b)"
    rf"|{W}(?:منظورم|در{ZW}واقع|درواقع|در\s+حقیقت|اصلاح|تصحیح|اشتباه\s+(?:کردم|گفتم|کرده{ZW}ام)|ببخشید|پوزش|صبر\s+کن|"
    rf"نه\s*[،,]|با\s+دقت\s+بیشتر|بازنگری|در\s+نگاه\s+دوم|راستش|بهتر\s+است\s+بگویم|نه{ZW}خیر){E}")
FINAL = re.compile(r"(?i:\bfinal\s+(?:answer|choice|pick|verdict|selection)|\bin\s+conclusion\b|\bto\s+conclude\b"
                   r"|\bmy\s+final\b)|نهایی|در\s+نهایت|سرانجام|در\s+پایان")

# explicit answer markers; the value follows the match
FILLER = r"(?:\s*(?i:therefore|thus|then|clearly|definitely|certainly|obviously|probably|likely|simply|indeed|" \
          r"i\s+think|i\s+believe)\s*,?)?(?:\s*(?:\.{2,}|…))?"
MARKERS = [
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
        r"here\s+is|=)\s*:?)" + FILLER),
    # Option: 3 / Choice - B (a colon after a bare noun)
    # (the value on the same line: "each couplet:\n\n1. ..." heads a list)
    re.compile(r"(?i:\b(?:option|choice|selection|pick|couplet|final)[ \t]*[:=：][ \t]*(?=\S))"),
    # In short: 3 / Conclusion - couplet 2 / نتیجه: ۴
    re.compile(rf"(?:(?i:\b(?:in\s+short|in\s+summary|in\s+conclusion|to\s+sum\s+up|conclusion|result|verdict|"
               rf"bottom\s+line|tl;?dr))|{W}(?:خلاصه|نتیجه|در\s+نتیجه|جمع{ZW}بندی|نتیجه{ZW}گیری)){E}"
               rf"\s*(?:[:：]|-(?=\s)|–|—|->|→|=>|⇒)\s*(?:{NOUN_EN}|{NOUN_FA})?\s*(?=[^\W_]|[(\[\"'«])"),
    re.compile(rf"(?:(?i:\bi\s+meant\s+)|{W}منظورم\s+)"),
    # a conclusion that is only the value: "Hence 2." / "Definitely 4." / «پس ۳.»
    re.compile(rf"(?:(?i:\b(?:hence|so|thus|therefore|definitely|clearly|certainly|obviously|surely|then|in\s+short|"
               rf"in\s+summary|in\s+conclusion|to\s+sum\s+up|actually|i\s+think|i\s+believe|i\s+guess|my\s+guess\s+is|"
               rf"probably|likely))|{W}(?:پس|در\s+نتیجه|خلاصه|به\s+نظرم|به\s+نظر\s+من|فکر\s+می{ZW}کنم|گمانم|احتمالا|"
               rf"بنابراین|لذا)){E}\s*,?\s*(?=(?:(?:{NOUN_EN}|{NOUN_FA})\s*)?{QO}(?:[0-9]|[A-D]|الف|ب|ج|د)"
               rf"{QC}(?:\s*(?:است|باشد|هست))?\s*(?:[.!)]|$))"),  # «فکر می‌کنم گزینه ۳ باشد»
    # «تنها بیتی که با بقیه فرق دارد، بیت سوم است»: the claim first, the option after
    re.compile(rf"{W}(?:تنها\s+)?(?:بیتی|گزینه{ZW}ای)\s+که\s+[^.؟?!\n]{{0,50}}?(?:(?:فرق|تفاوت)(?:ی)?\s*(?:دارد|"
               rf"می{ZW}کند)|(?:متفاوت|ناهمگون|ناهمخوان|جدا|متمایز)\s*(?:است|هست)|(?:قرابت|ارتباط|هم{ZW}خوانی|"
               rf"همخوانی|شباهت)(?:ی)?(?:\s+\S+)?\s+ندارد|(?:هم{ZW}خوان|همخوان|هم{ZW}معنا|هماهنگ)\s*نیست)"
               rf"[\s،,:]*(?={NOUN_FA})"),
    re.compile(r"(?i:<answer>)\s*"),
    re.compile(r"\\boxed\s*\{\s*(?:\\text\s*\{\s*)?"),
    # پاسخ: ۳ / جواب نهایی: گزینه الف / پاسخ صحیح گزینه «ب» است / گزینهٔ درست: ۳ / بیت متفاوت، بیت سوم است
    re.compile(rf"{W}(?:(?:پاسخ|جواب|انتخاب)(?:\s*(?:ی|نهایی|درست|صحیح|من|ما|سوال|پرسش|این\s+پرسش|"
               rf"این\s+سوال|مناسب))*(?:\s*[:：،,]\s*|\s+(?:(?:برابر\s+(?:با\s+)?|همان\s+)?"
               rf"(?={NOUN_FA}|[0-9]|[(\[\"'«])))"
               rf"|(?:گزین(?:ه|ۀ)\u0654?|بیت)(?:ی|{ZW}ی)?\s+(?:نهایی|درست|صحیح|متفاوت|ناهمگون|ناهمخوان|نامرتبط|منتخب|"
               rf"انتخابی|برگزیده|مورد\s+نظر|غریبه|بیگانه|استثنا)(?:\s*(?:ی|{ZW}ی))?"
               rf"(?:\s*[:：،,]\s*|\s+(?:(?:برابر\s+(?:با\s+)?|همان\s+)?)|\s*(?=[0-9(\[\"'«])))"
               rf"(?:{NOUN_FA}\s*)?"),
]
IT_IS = re.compile(r"(?i:\b(?:it'?s|it\s+is|that'?s|that\s+is|it\s+has\s+to\s+be|it\s+must\s+be)\s+(?=(?:the\s+)?\w))")
NOT_BUT = re.compile(r"(?i:\s*(?:not|n't)\s+[^,.;\n]{1,25}?,?\s*but\s+(?:rather\s+)?)")

# claims about one option: subject mention ... predicate
COP_EN = (r"(?P<cop>(?i:\b(?:(?:might|may|could)(?:\s+not)?\s+(?:also\s+)?be|would(?:\s+not|n't)?\s+be|"
          r"(?:seems|appears|looks)(?:\s+to\s+be|\s+like)?|is(?:\s+not|n't)?|'s(?:\s+not)?|was(?:\s+not|n't)?)"
          r"(?:\s+(?:clearly|indeed|definitely|certainly|obviously|thus|therefore|also|really|truly|actually|"
          r"semantically|thematically|conceptually|plainly|then|the\s+only\s+one))*\s+))")
PREDICATES = [
    re.compile(COP_EN + r"(?P<core>(?i:(?:the\s+)?(?:(?:real|true|clear|obvious|only)\s+)?(?:outlier|"
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
    re.compile(rf"(?P<core>{W}(?:متفاوت|متمایز|ناهمگون|ناهمخوان|نامرتبط|بی{ZW}ربط|بی{ZW}ارتباط|جدا|"
              rf"استثنا|غریبه|بیگانه|از\s+جنس\s+دیگری|از\s+مقوله{ZW}ای\s+دیگر|درست|صحیح|پاسخ(?:\s+(?:درست|صحیح|سوال|نهایی))?|جواب(?:\s+(?:درست|صحیح|"
              rf"سوال|نهایی))?|(?:گزین(?:ه|ۀ)\u0654?|بیت)(?:ی|{ZW}ی)?\s+(?:درست|صحیح|متفاوت|ناهمگون))(?:{ZW}تر)?)"
              rf"[\s\u200c]*(?P<cop>است|هست|می{ZW}باشد|بود|نیست|نمی{ZW}باشد|نبود|باشد|نباشد|ه|"
              rf"به\s+نظر\s+(?:می{ZW}رسد|نمی{ZW}رسد|می{ZW}آید)){E}"),
    re.compile(rf"(?P<core>{W}(?:فرق|تفاوت|تمایز|اختلاف)(?:ی)?(?:\s+(?:معنایی|مفهومی|اساسی|آشکاری|آشکار|روشنی|"
              rf"محسوسی))?)\s*(?P<cop>دارد|داره|می{ZW}کند|ندارد|نداره|نمی{ZW}کند){E}"),
    re.compile(rf"(?P<form>)(?P<core>{W}(?:قرابت|هم{ZW}خوانی|همخوانی|سنخیت|ارتباط|تناسب|مطابقت|هماهنگی|شباهت|"
              rf"هم{ZW}معنایی|همسویی|هم{ZW}سویی|نسبت|پیوند)(?:ی)?(?:\s+(?:معنایی|مفهومی))?)"
              rf"\s*(?P<cop>ندارد|نداره){E}"),
    re.compile(rf"(?P<form>)(?P<core>{W}(?:هم{ZW}خوان|همخوان|هماهنگ|هم{ZW}معنا|هم{ZW}معنی|همسو|هم{ZW}سو|سازگار|مرتبط|متناسب|مشابه|"
              rf"هم{ZW}راستا|هم{ZW}مضمون|هم{ZW}مفهوم|یکسان|همانند|هم{ZW}سنخ))[\s\u200c]*(?P<cop>نیست|"
              rf"نمی{ZW}باشد){E}"),
    re.compile(rf"(?P<form>)(?P<core>{W}(?:کمترین|بیشترین\s+(?:تفاوت|فاصله)|کم{ZW}ترین)(?:\s+(?:ارتباط|شباهت|قرابت|"
              rf"هم{ZW}خوانی|همخوانی|نسبت|پیوند))?)[^.،؛\n]{{0,30}}?(?P<cop>دارد|را\s+دارد){E}"),
    re.compile(rf"(?P<form>)(?P<core>{W}(?:جور\s*در\s*نمی{ZW}آید|نمی{ZW}خواند|جدا\s+می{ZW}شود|فاصله\s+دارد|"
              rf"(?:مفهوم|معنا|معنای|مضمون|پیام)(?:ی)?\s+(?:متفاوت|دیگر|جداگانه|دیگری|جدا|متمایز|دیگرگون)\s+دارد))(?P<cop>)"),
]

# a claim followed by "but ..." in its sentence is conceded ("couplet 2 is different, but it fits")
BUT = re.compile(rf"(?i:\b(?:but|however|yet|though|although)\b)|{W}(?:اما|ولی|لیکن|ولیکن|هرچند|اگرچه){E}")
JOINED = re.compile(r"\s*(?:,|،|/|&|(?i:or|and)|و|یا)\s*")

# "couplet 2 might be the outlier, or maybe 3": a second option offered after the claim
OR_AFTER = re.compile(rf"\s*[,،]?\s*(?:(?i:or)|یا)\s+(?:(?i:maybe|perhaps|possibly|even)\s+|شاید\s+)?(?:(?i:the)\s+)?"
                      rf"(?:{NOUN_EN}|{NOUN_FA}|(?i:{_alt(EN_ORD)})|{DIGIT})")

# choices: "I'd pick 2" / "I would choose option 3" / "گزینه ۳ را انتخاب می‌کنم"
CHOOSE_EN = re.compile(
    r"(?i:\b(?:i|we)(?P<cop>(?:\s*'d|\s*'ll|'m\s+going\s+to|\s+(?:would|will|must|shall|do|did|can|could|might|"
    r"am\s+going\s+to|have\s+to))?(?:\s+not|n't)?(?:\s+(?:therefore|thus|then|definitely|probably|confidently|"
    r"still|rather|also))?)\s+(?:choose|chose|pick|picked|select|selected|go\s+with|went\s+with|opt\s+for|"
    r"opted\s+for|vote\s+for|settle\s+on|mark|say|go\s+for|lean(?:ing)?\s+towards?)\s+"
    r"|\blet'?s\s+go\s+with\s+|\bgoing\s+with\s+"
    r"|\bmy\s+(?:vote|pick|choice|bet|money)\s+(?:goes\s+to|is\s+on|is\s+for|would\s+be\s+on|falls\s+on)\s+"
    r"|\b(?:i'?m|i\s+am|we'?re|we\s+are)(?P<cop2>\s+not)?\s+(?:selecting|choosing|picking|going\s+with|opting\s+for|"
    r"leaning\s+towards?|"
    r"going\s+to\s+(?:choose|pick|select|go\s+with))\s+)")
CHOOSE_FA = re.compile(rf"\s*(?:را|رو)\s*(?P<core>انتخاب|برمی{ZW}گزینم|بر\s*می{ZW}گزینم)"
                       rf"\s*(?P<cop>می{ZW}کنم|کردم|می{ZW}کنیم|خواهم\s+کرد|نمی{ZW}کنم|نکردم|نمی{ZW}کنیم)?")
ASIDE = re.compile(r"[(\[][^()\[\]\n]{1,80}[)\]](?P<tail>[^()\[\]\n]{0,60})$")

# "couplet 3 differs, as does couplet 1": the claim is made of a second option too
AS_DOES = re.compile(r"(?i:[^.;!?\n]{0,40}?[,،]?\s*(?:as\s+(?:does|do|did|is|are|was)|and\s+so\s+(?:does|do|is)|"
                     r"so\s+(?:does|do|is))\b[^.;!?\n]{0,25}?(?:\b(?:option|couplet|verse|line|choice)s?\s*)?"
                     r"(?<![\w.])[1-9](?![\w]))")

# an aside that offers another option: "Couplet 2 (and perhaps 3) stands apart"
ASIDE_MORE = re.compile(r"\s*[(\[]\s*(?:(?i:and|or|plus|maybe|perhaps|possibly|also)\b"
                        r"|(?:و|یا|شاید|نیز)(?![\w\u200c]))[^()\[\]\n]{0,40}?[0-9]")

# "Couplets 1, 2 and 4 share ...", «ابیات ۱ و ۲ و ۴ دربارهٔ تواضع‌اند»: all options but one said to

# belong together, which names the remaining one (weak: any explicit answer counts first)
LIST_AND = re.compile(r"\s*(?:,|،|&|(?i:,?\s*and)|و)\s*")
SHARE_EN = re.compile(
    r"(?i:[^.!?;\n]{0,12}?\b(?:all\s+|each\s+|both\s+|clearly\s+|together\s+)?(?:share|have\s+in\s+common|"
    r"(?:are|were)\s+(?:all\s+|clearly\s+)?(?:about|on\s+the\s+same|related|similar|alike|connected|consistent|"
    r"of\s+a\s+piece|in\s+agreement|thematically\s+(?:linked|related|similar))|express|speak|talk|deal|concern|"
    r"describe|convey|reflect|refer|point|revolve|praise|focus|emphasi[sz]e|evoke|celebrate|lament|warn|advise|"
    r"teach|belong\s+together|fit\s+together|go\s+together|agree)\b)")
SHARE_FA = re.compile(rf"[^.؟?!\n،,؛]{{0,60}}?(?:{W}(?:مشترک|هم{ZW}معنا|هم{ZW}مضمون|هم{ZW}مفهوم|هم{ZW}سو|"
                      rf"همگی|هر\s+سه)"
                      rf"|(?:\u200c|\s)(?:اند|هستند|دارند|می{ZW}گویند|می{ZW}کنند|می{ZW}پردازند|می{ZW}دهند)){E}")
THREE = re.compile(
    r"(?i:\bthe\s+(?P<en>first|last|top|bottom)\s+three\b(?:\s+(?:couplets|options|verses|lines|ones|beits))?)"
    rf"|{W}سه\s+(?:بیت|گزینه)(?:{ZW}ی)?\s+(?P<fa>اول|نخست|آخر|پایانی){E}"
    rf"|{W}(?P<fa2>نخستین|اولین|آخرین)\s+سه\s+(?:بیت|گزینه){E}")
ELIDED = re.compile(r"(?i:\s+(?:does\s+not|doesn't|does\s+n't))\s*(?=[.;,!\n]|$)"
                    r"|\s+نه\s*(?=[.؛،,!\n]|$)")
FIT_BEFORE = re.compile(r"(?i:\b(?:fits?|fit\s+in|belongs?|match(?:es)?|shares?|go(?:es)?\s+with|agrees?|conforms?)\b)"
                        rf"|{W}(?:هم{ZW}خوان|همخوان|مشترک|هماهنگ|مرتبط|هم{ZW}معنا|سازگار|هم{ZW}مضمون)")
ONLY_RX = re.compile(
    rf"\s*(?:(?:=>|->|⇒|→|=)\s*)?(?:(?:{NOUN_EN}|{NOUN_FA})\s*[:\-]?\s*)?(?:\#\s*)?{QO}(?P<v>{VALUE})"
    rf"(?:{QC})\s*[.!:؛)]?\s*"
    rf"|\s*(?P<w>(?i:(?:the\s+)?(?:{_alt(EN_ORD)})(?:\s+(?:option|couplet|verse|one))?)"
    rf"|(?:{_alt(FA_ADJ)}){ZW}(?:بیت|گزینه)|(?:{_alt(FA_Y)}))\s*[.!]?\s*")
LINE_HEAD = re.compile(r"(?m)^[ \t>•*\-]*")
LEAD_SEP = re.compile(r"[ \t]*(?:[.):\-–—؛;،,]|[ \t]+[-–—]|$)")
OR_SENTENCE = re.compile(rf"\s*(?:(?i:or|or\s+maybe|or\s+perhaps|maybe)|یا|یا\s+شاید)\s+"
                         rf"(?:(?:{NOUN_EN}|{NOUN_FA})\s*)?{QO}(?:{VALUE}){QC}\s*[.?!؟]*\s*")
NOT_THEN = re.compile(  # «نه بیت دوم، بیت چهارم», «گزینهٔ ۴ نه، گزینهٔ ۲»
    rf"\s*(?:(?:(?i:not)|نه)\s+(?:(?:{NOUN_EN}|{NOUN_FA})\s*)?{QO}(?:{VALUE}){QC}"
    rf"|(?:(?:{NOUN_EN}|{NOUN_FA})\s*)?{QO}(?:{VALUE}){QC}\s+(?:نه|(?i:no|not)))\s*(?:—|–|-|,|;|،|؛|:)\s*"
    rf"(?:(?i:(?:but\s+)?(?:rather|instead|it'?s|it\s+is)|but)\s+|(?:بلکه|که)\s+)?")
REFUSAL = re.compile(
    r"(?i:\bi\s*(?:can't|cannot|can\s+not|am\s+unable|'m\s+unable|am\s+not\s+able|'m\s+not\s+able|won't|"
    r"must\s+decline|decline)\b|\bas\s+an\s+ai\b|\bi'm\s+sorry,?\s+but\b|\bunable\s+to\s+(?:help|assist|answer|"
    r"determine)\b|\bnot\s+able\s+to\s+(?:answer|help|determine)\b)"
    r"|مت(?:ا\u0654?|أ)سفانه|نمی[\u200c ]?توانم|قادر\s+(?:به\s+\S+\s+)?نیستم|معذورم"
)

