"""Who is acting, and what they may do: the policy the CLI and the TUI both enforce.

``acting(store, name)`` resolves the person: with no user defined in the database, whoever runs
persian-tui is an admin (solo use, as before users existed); otherwise ``name`` (--user or
--annotator), else the login name, must be an active user, whose role decides (the rules are
models/users.py's). Roles keep honest work blind; without passwords they are no lock against
someone who names another person."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from . import settings
from .models import BankCounts, OptionLink, Question, QuestionRow
from .models.recall import PRODUCTION, Probe
from .models.users import Act, Role, check_name, may, refusal, roles_for
from .store import Store

HIDDEN: Literal[""] = ""  # what a blind person is shown of a question's status
EXPORTS = "exports"  # the folder beside the database that a non-admin's exports go under


class AccessDenied(Exception):
    """An act the acting person's role does not allow, or a person who is not a user: one line."""


@dataclass(frozen=True)
class Access:
    """The acting person: ``user`` (None: not known yet, in solo use the app asks), ``role``,
    and ``solo`` when no user is defined (then everyone is admin)."""

    user: str | None
    role: Role
    solo: bool = False

    def may(self, act: Act) -> bool:
        return may(self.role, act)

    def require(self, act: Act) -> None:
        """AccessDenied, with the one line saying why, unless the person may do ``act``."""
        if not self.may(act):
            raise AccessDenied(refusal(self.user, self.role, act))

    @property
    def blind(self) -> bool:
        """Labels blind everywhere: no key, model answer, judge verdict or other annotator's label."""
        return not self.may("see_answers")

    def question(self, q: Question) -> Question:
        """A question as this person may see it: without its key, its explanation (which
        gives the key away) and its status (``curated`` after a bulk accept of agreeing labels
        says the annotator's own answer was the key) when blind; nor its source page (the seed
        book prints its keys on the page of its questions) nor its poets (the label screen
        hides them on purpose: a poet tells couplets apart)."""
        if not self.blind:
            return q
        return replace(q, key=None, explanation=None, status=HIDDEN, source_page=None, poet=None,
                       options=[replace(o, poet=None) for o in q.options])

    def option_links(self, store: Store, uid: str) -> dict[int, OptionLink]:
        """Option position -> its corpus link, whose poem and poet the bank shows: none when
        blind (the corpus poets the label screen hides)."""
        return {} if self.blind else store.links.links([uid]).get(uid, {})

    def couplet_recall(self, store: Store, uid: str) -> dict[int, tuple[int, int]]:
        """Option position -> (models recalling its couplet, models probed on it) in the recall
        runs that had the model write the hemistich (reports/memory.py's rule: any of a model's
        production runs; a right pick among four may be a guess). AccessDenied when blind: which
        couplet the models remember points at the key."""
        self.require("see_answers")
        seen: dict[int, dict[str, bool]] = {}
        for model, position, score in store.probes.question_recall(uid, formats=PRODUCTION):
            mine = seen.setdefault(position, {})
            mine[model] = mine.get(model, False) or score in ("complete", "partial")
        return {p: (sum(models.values()), len(models)) for p, models in sorted(seen.items())}

    def run_probes(self, store: Store, run_id: int) -> list[Probe]:
        """A recall run's probes (each couplet's cue, reply, score and error rate). AccessDenied
        when blind, as couplet_recall: which couplets a model remembers points at the key."""
        self.require("see_answers")
        return store.probes.probes(run_id)

    def rows(self, rows: list[QuestionRow]) -> list[QuestionRow]:
        """Bank rows as this person may see them: without key, status or label count when
        blind (a count that grows, a status that turns curated, tell what others answered)."""
        return [replace(r, key=None, status=HIDDEN, labels=0) for r in rows] if self.blind else rows

    def counts(self, counts: BankCounts) -> BankCounts:
        """The bank's counts as this person may see them: the total only when blind."""
        return replace(counts, by_status={}) if self.blind else counts

    def export_folder(self, db_path: str | Path, folder: str | Path) -> Path:
        """The folder an export of this person's goes to: a relative ``folder`` is taken beside the
        database. An admin may name any folder; anyone else one under the database's ``exports/``
        folder (resolved, so neither `..` nor a symbolic link leads out): AccessDenied otherwise.
        Through the browser front the app writes as the server's account, not the person's."""
        base = Path(db_path).resolve().parent
        target = Path(folder).expanduser()
        target = (target if target.is_absolute() else base / target).resolve()
        allowed = base / EXPORTS
        if not self.may("settings") and not target.is_relative_to(allowed):
            who = refusal(self.user, self.role, "settings").split(":")[0]
            raise AccessDenied(f"{who}: an export goes under {allowed}/ ({target} is not), "
                               f"another folder is for {roles_for('settings')}")
        return target

    def remember_export_folder(self, store: Store, key: str, folder: Path) -> None:
        """Keep ``folder`` as the next export prompt's default, a setting everyone shares: only
        an admin's choice is kept (a reviewer's would change everyone's)."""
        if self.may("settings"):
            store.labels.set_setting(key, str(folder))

    def status_filter(self, status: str | None) -> str | None:
        """A filter by status, if this person may filter by it: AccessDenied when blind."""
        if status is not None:
            self.require("see_answers")
        return status


def solo(name: str | None = None) -> Access:
    """A database without users: its one user (named or not yet) is admin."""
    return Access(name, "admin", solo=True)


def acting(store: Store, name: str | None = None) -> Access:
    """The person acting on ``store``: named by ``name``, else the login name. AccessDenied when
    users are defined and that person is not one of them (or was removed)."""
    if not store.users.any():
        return solo(name)
    who = name or settings.local_user()
    if not who:
        raise AccessDenied("this database has users: name yourself with --user NAME (--annotator NAME in the app)")
    try:
        user = store.users.get(check_name(who))
    except ValueError:
        user = None
    if user is None:
        raise AccessDenied(f"{who} is not a user of {store.path}: an admin adds people with "
                           "`persian-tui users add NAME --role annotator|reviewer|admin`")
    return Access(user.name, user.role)
