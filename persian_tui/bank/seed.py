"""Readers for the seed benchmark's formats (Persian Poetry Semantic Similarity Benchmark).

- benchmark: [{id, options: ["m1 - m2" x4], correct_answer_index 0..3}]
- exp1:      {questions: [{question_number, question_text, answers: [{answer_number,
              answer_text_1, answer_text_2}]}]} + a separate answer-key file
- book:      {pages: [{data: {questions: [{id, stem, options: [{label, mesra1, mesra2}]}]}}]}
             + answer-key file; right-to-left extraction swapped mesra1/mesra2.
"""

from __future__ import annotations

from pathlib import Path

from ..files.inputs import InputError
from ..files.records import Record
from ..models import MAX_PAGE, Option, Question
from ..models.keys import repeated_couplets
from ..text import CoupletError, nfc, split_couplet, strip_option_label


def _str(value: object) -> str:
    return nfc(value) if isinstance(value, str) else ""


def _clean(text: str, label: int, where: str, notes: list[str]) -> tuple[str, bool]:
    cleaned, found = strip_option_label(text, label)
    if found:
        notes.append(f"option {label}: removed OCR label leftover from {text!r}")
    return cleaned, found


def _finish(q: Question, rec: Record) -> Record:
    halves = [bool(o.mesra1) + bool(o.mesra2) for o in q.options]
    wordless = [o.position for o in q.options if (o.mesra1 or o.mesra2) and not _has_letters(o.mesra1 + o.mesra2)]
    if wordless:
        rec.error = f"option {wordless[0]} has no words (only digits or punctuation)"
    elif q.options and all(h == 1 for h in halves):
        rec.error = "options are single phrases, not couplets (another question type)"
    elif problems := q.problems():
        rec.error = "; ".join(problems)
    else:
        q.origin = "book"  # every seed format is the book's questions (or an export of them)
        rec.question = q
        rec.dirty = repeated_couplets(q)
    return rec


def _has_letters(text: str) -> bool:
    return any(c.isalpha() for c in text)


def _page(value: object, position: int) -> int | None:
    """A book page's number as stored: its `page_number` when a whole number 0..MAX_PAGE (a digit
    string too), its position in the file when it has none, else unknown."""
    if value is None:
        return position
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip()) if len(value.strip()) <= 7 else -1
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_PAGE else None


def _key(rec: Record, keys: dict[str, int] | None, keys_path: Path | None) -> int | None:
    if keys is None:
        return None
    rec.key_from_file = True
    if rec.source_id not in keys:
        rec.error = f"no key for id {rec.source_id} in {keys_path}"
        return None
    key = keys[rec.source_id]
    if key not in (1, 2, 3, 4):
        rec.error = f"key {key} for id {rec.source_id} in {keys_path} is out of range 1..4"
        return None
    return key


def _start(records: list[Record], where: str, item: object, id_field: str,
           default: object) -> Record | None:
    """A new record for `item`, named by its id; None when it is not an object."""
    rec = Record(where=where)
    records.append(rec)
    if not isinstance(item, dict):
        rec.error = "not a JSON object"
        return None
    rec.source_id = str(item.get(id_field, default))
    rec.where = f"{where} ({id_field} {rec.source_id})"
    return rec


def read_benchmark(data: object, path: Path, source: str) -> list[Record]:
    if not isinstance(data, list):
        raise InputError(f"{path}: benchmark format must be a JSON list of questions")
    records: list[Record] = []
    for n, item in enumerate(data, 1):
        rec = _start(records, f"record {n}", item, "id", n)
        if rec is None:
            continue
        raw = item.get("options")
        if not isinstance(raw, list):
            rec.error = "'options' is missing or not a list"
            continue
        options, single = [], 0
        for pos, text in enumerate(raw, 1):
            text, _ = _clean(_str(text), pos, rec.where, rec.notes)
            try:
                m1, m2 = split_couplet(text)
            except CoupletError as e:
                if "single phrase" in str(e):
                    single += 1
                    m1, m2 = text, ""
                else:
                    rec.error = f"option {pos}: {e}"
                    break
            options.append(Option(pos, m1, m2))
        if rec.error:
            continue
        if 0 < single < len(raw):
            rec.error = f"{single} option(s) are single phrases, not couplets"
            continue
        index = item.get("correct_answer_index")
        if index is None:
            rec.error = "key missing (no correct_answer_index)"
            continue
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index <= 3:
            rec.error = f"correct_answer_index {index!r} out of range 0..3"
            continue
        q = Question(uid="", options=options, key=index + 1, status="ready",
                     source_name=source, source_id=rec.source_id)
        _finish(q, rec)
    return records


def _options_from(raw: object, rec: Record, first: str, second: str, label: str,
                  swapped: bool) -> list[Option] | None:
    if not isinstance(raw, list):
        rec.error = "options are missing or not a list"
        return None
    options = []
    for i, o in enumerate(raw, 1):
        if not isinstance(o, dict):
            rec.error = f"option {i} is not an object"
            return None
        pos = o.get(label, i)
        if not isinstance(pos, int) or isinstance(pos, bool):
            rec.error = f"option {i}: {label} {pos!r} is not a number"
            return None
        a, found_a = _clean(_str(o.get(first)), pos, rec.where, rec.notes)
        b, found_b = _clean(_str(o.get(second)), pos, rec.where, rec.notes)
        # The option number is printed before the first hemistich: where the OCR left it,
        # that hemistich is the first one, whatever the file's default order.
        if swapped and not found_a:
            a, b = b, a
        elif found_b and not found_a:
            a, b = b, a
        options.append(Option(pos, a, b))
    return options


def read_exp1(data: object, path: Path, source: str, keys: dict[str, int] | None,
              keys_path: Path | None) -> list[Record]:
    if not isinstance(data, dict) or not isinstance(data.get("questions"), list):
        raise InputError(f"{path}: exp1 format must be an object with a 'questions' list")
    records: list[Record] = []
    for n, item in enumerate(data["questions"], 1):
        rec = _start(records, f"record {n}", item, "question_number", n)
        if rec is None:
            continue
        options = _options_from(item.get("answers"), rec, "answer_text_1", "answer_text_2",
                                "answer_number", swapped=False)
        key = _key(rec, keys, keys_path)
        if options is None or rec.error:
            continue
        q = Question(uid="", options=options, stem=_str(item.get("question_text")), key=key,
                     status="ready" if key else "draft", source_name=source, source_id=rec.source_id)
        _finish(q, rec)
    return records


def read_book(data: object, path: Path, source: str, keys: dict[str, int] | None,
              keys_path: Path | None, swapped: bool = True) -> list[Record]:
    if not isinstance(data, dict) or not isinstance(data.get("pages"), list):
        raise InputError(f"{path}: book format must be an object with a 'pages' list")
    records: list[Record] = []
    for p, page in enumerate(data["pages"], 1):
        raw_page = page.get("page_number") if isinstance(page, dict) else None
        page_no = p if raw_page is None else raw_page
        data = page.get("data") if isinstance(page, dict) else None
        questions = data.get("questions") if isinstance(data, dict) else None
        if not isinstance(questions, list):
            records.append(Record(where=f"page {page_no}", error="no 'data.questions' list"))
            continue
        for n, item in enumerate(questions, 1):
            rec = _start(records, f"page {page_no} question {n}", item, "id", f"p{page_no}-{n}")
            if rec is None:
                continue
            options = _options_from(item.get("options"), rec, "mesra1", "mesra2", "label", swapped)
            key = _key(rec, keys, keys_path)
            if options is None or rec.error:
                continue
            q = Question(uid="", options=options, stem=_str(item.get("stem")), key=key,
                         status="ready" if key else "draft", source_name=source,
                         source_id=rec.source_id, source_page=_page(raw_page, p))
            _finish(q, rec)
    return records
