"""The data model: the dataclasses passed between the store, the readers and writers, the CLI and
the TUI, with the invariants and pure rules that define them (a question's problems, the
statuses and question sets, the scoring and accuracy rule, the majority vote over a run's
samples, a release's name and digest). No I/O.

One module per domain: `bank`, `labels`, `runs`, `judging`, `corpus`, `releases`; their public
names are re-exported here (`from persian_tui.models import Question`). Beside them, pure rules
the store needs, imported by module: `keys` (fingerprint, import uid, search text), `merge`
(the three-way merge of question edits), `linking` (which corpus couplet an option is)."""

from .bank import (
    MAX_HEMISTICH,
    MAX_PAGE,
    MAX_STEM,
    MAX_TEXT,
    ORIGINS,
    QUESTION_SETS,
    STATUSES,
    BankCounts,
    Option,
    Origin,
    Question,
    QuestionRow,
    SourceRef,
)
from .corpus import CorpusCouplet, CorpusPoem, OptionLink
from .judging import ErrorCategory, JudgmentRow, ReviewFlag
from .labels import CONFIDENCES, LABELLED_STATUSES, Adjudication, Label, Progress, QueueScope, Revision
from .releases import RELEASE_NAME, Release, ReleaseItem, check_release_name, release_digest
from .runs import SCORED_STATUSES, Prediction, Run, RunSummary, SampleVote, accuracy, sample_vote, scored_key, tally
from .vocabulary import (
    JUDGMENT_STATUSES,
    LINK_STATUSES,
    PARSE_STATUSES,
    QUESTION_STATUSES,
    QUEUE_MODES,
    RUN_KINDS,
    RUN_STATUSES,
    JudgmentStatus,
    LinkStatus,
    ParseStatus,
    QuestionStatus,
    QueueMode,
    RunKind,
    RunStatus,
)

__all__ = [
    "CONFIDENCES", "LABELLED_STATUSES", "MAX_HEMISTICH", "MAX_PAGE", "MAX_STEM", "MAX_TEXT", "ORIGINS", "QUESTION_SETS",
    "QUEUE_MODES", "RELEASE_NAME", "SCORED_STATUSES", "STATUSES", "Adjudication", "BankCounts", "CorpusCouplet",
    "CorpusPoem", "ErrorCategory", "JudgmentRow", "JUDGMENT_STATUSES", "JudgmentStatus", "LINK_STATUSES",
    "LinkStatus", "PARSE_STATUSES", "ParseStatus", "QUESTION_STATUSES", "QuestionStatus", "QueueMode", "RUN_KINDS",
    "RUN_STATUSES", "RunKind", "RunStatus", "Label", "Option", "Origin", "OptionLink", "Prediction", "Progress",
    "Question", "QuestionRow", "QueueScope", "Release", "ReleaseItem", "ReviewFlag", "Revision", "Run",
    "RunSummary", "SampleVote", "SourceRef", "accuracy", "check_release_name", "release_digest", "sample_vote",
    "scored_key", "tally",
]
