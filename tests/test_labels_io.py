"""import-labels, agreement command, export with labels."""

import json

import pytest
from factories import make_question, write_file

from persian_tui.annotation.label_files import apply_labels, plan_labels
from persian_tui.cli import main
from persian_tui.files.inputs import InputError
from persian_tui.releases.export import export_jsonl


@pytest.fixture
def bank(store):
    store.questions.add_questions([make_question("q-1", source_name="book", source_id="6"),
                                   make_question("q-2", key=2, source_name="book", source_id="7")])
    return store


def test_csv_labels_by_uid_and_source_id(bank, tmp_path):
    path = write_file(tmp_path, "l.csv", "annotator,uid,source_id,answer,confidence,note\n"
                 "ali,q-1,,۱,high,\nsara,,7,2,,بیت دوم مبهم است\nreza,,6,skip,,\n")
    plan = plan_labels(bank, path)
    assert plan.summary() == "3 new, 0 unchanged, 0 rejected"
    apply_labels(bank, plan)
    got = {(l.uid, l.annotator): (l.answer, l.skipped, l.confidence, l.note) for l in bank.labels.labels()}
    assert got == {("q-1", "ali"): (1, False, "high", None), ("q-2", "sara"): (2, False, None, "بیت دوم مبهم است"),
                   ("q-1", "reza"): (None, True, None, None)}
    assert plan_labels(bank, path).summary() == "0 new, 3 unchanged, 0 rejected"  # idempotent


def test_bad_rows_abort_with_line_numbers(bank, tmp_path):
    path = write_file(tmp_path, "l.jsonl", "\n".join([
        json.dumps({"annotator": "ali", "uid": "q-1", "answer": 1}),
        "{oops",
        json.dumps({"annotator": "ali", "uid": "q-9", "answer": 1}),
        json.dumps({"annotator": "ali", "uid": "q-2", "answer": 5}),
        json.dumps({"annotator": "", "uid": "q-2", "answer": 1}),
        json.dumps({"annotator": "ali", "uid": "q-2", "answer": 1, "confidence": "sure"}),
    ]))
    plan = plan_labels(bank, path)
    with pytest.raises(InputError) as e:
        apply_labels(bank, plan)
    msg = str(e.value)
    for part in ("line 2: malformed JSON", "line 3: no question with uid q-9", "line 4: answer 5",
                 "line 5: annotator is empty", "line 6: confidence 'sure'"):
        assert part in msg
    assert bank.labels.labels() == []
    apply_labels(bank, plan, skip_invalid=True)
    assert len(bank.labels.labels()) == 1


def test_agreement_command(bank, tmp_path, capsys):
    for uid, a, b in (("q-1", 1, 1), ("q-2", 2, 3)):
        bank.labels.add_label(uid, "ali", a)
        bank.labels.add_label(uid, "sara", b)
    db = str(bank.path)
    assert main(["--db", db, "agreement"]) == 0
    out = capsys.readouterr().out
    assert "accuracy vs key ali: 2/2" in out and "kappa ali ~ sara" in out
    assert main(["--db", db, "agreement", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data[0]["scope"] == "all" and data[0]["multi"] == 2


def test_export_with_labels_and_anonymized(bank, tmp_path):
    bank.labels.add_label("q-1", "sara", 1, confidence="high")
    bank.labels.add_label("q-1", "ali", 1)
    bank.curation.adjudicate("q-1", "judge", "accept", reason="همه موافق‌اند")
    out = tmp_path / "x.jsonl"
    export_jsonl(bank, out, with_labels=True, anonymize=True)
    first = json.loads(out.read_text("utf-8").splitlines()[0])
    assert [l["annotator"] for l in first["labels"]] == ["A1", "A2"]  # ali, sara by name order
    assert first["agreement"] == {"votes": 2, "majority": 1, "agrees_with_key": True, "unanimous": True}
    assert first["adjudication"]["decision"] == "accept" and first["status"] == "curated"
    assert "sara" not in out.read_text("utf-8")
    export_jsonl(bank, out)  # the plain export stays schema v1 without these keys
    assert "labels" not in json.loads(out.read_text("utf-8").splitlines()[0])
