"""The Store: one Database (connection, transactions) and its repositories, reached by name."""

from __future__ import annotations

from pathlib import Path

from .candidates import CandidatesRepo
from .corpus import CorpusRepo
from .corpus_prose import CorpusProseRepo
from .curation import CurationRepo
from .db import BUSY_TIMEOUT_MS, Database
from .imports import ImportsRepo
from .judging import JudgingRepo
from .labels import LabelsRepo
from .links import LinksRepo
from .probes import ProbesRepo
from .questions import QuestionsRepo
from .releases import ReleasesRepo
from .runs import RunsRepo
from .sources import SourcesRepo
from .sweeps import SweepsRepo
from .users import UsersRepo


class Store(Database):
    """One SQLite file (see Database for opening it) and its repositories over its one
    connection: ``store.questions.get_question(uid)``, ``store.runs.create_run(...)``. A
    repository that needs another is given it here. Open one Store per thread."""

    def __init__(self, path: str | Path, *, create_dir: bool = True, read_only: bool | None = False,
                 busy_timeout_ms: int = BUSY_TIMEOUT_MS):
        super().__init__(path, create_dir=create_dir, read_only=read_only, busy_timeout_ms=busy_timeout_ms)
        self.corpus = CorpusRepo(self)
        self.links = LinksRepo(self, self.corpus)
        self.questions = QuestionsRepo(self, self.links)
        self.sources = SourcesRepo(self, self.questions)
        self.imports = ImportsRepo(self, self.questions, self.links)
        self.curation = CurationRepo(self, self.questions, self.links)
        self.labels = LabelsRepo(self, self.questions)
        self.runs = RunsRepo(self)
        self.probes = ProbesRepo(self)
        self.sweeps = SweepsRepo(self, self.runs)
        self.judging = JudgingRepo(self)
        self.releases = ReleasesRepo(self)
        self.users = UsersRepo(self)
        self.candidates = CandidatesRepo(self)
        self.corpus_prose = CorpusProseRepo(self)
