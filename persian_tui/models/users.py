"""People and what each role may do: the one definition of roles and acts (pure, no I/O).

Annotators label, blind; reviewers also see keys, model answers, judge verdicts and others'
labels, adjudicate and review; admins also author, run, release and change what everyone
shares (settings, guidelines, the error taxonomy, the users). A database with no user defined is
used by one person, who is admin (`persian_tui.access`)."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Literal, get_args

from ..text import normalize

Role = Literal["annotator", "reviewer", "admin"]
ROLES: tuple[Role, ...] = get_args(Role)

Act = Literal["label", "see_answers", "see_sources", "adjudicate", "review", "author", "propose", "run", "release",
              "settings", "users"]
ACTS: tuple[Act, ...] = get_args(Act)

# act -> (the roles that may do it, what it is in a refusal: "<what> is for ...")
RULES: dict[Act, tuple[tuple[Role, ...], str]] = {
    "label": (("annotator", "reviewer", "admin"), "labelling"),
    "see_answers": (("reviewer", "admin"),
                    "seeing keys, model answers, judge verdicts and other annotators' labels"),
    "see_sources": (("reviewer", "admin"), "seeing or searching poets, source pages and the corpus"),
    "adjudicate": (("reviewer", "admin"), "adjudicating keys"),
    "review": (("reviewer", "admin"), "reviewing the judge's verdicts"),
    "author": (("admin",), "authoring and importing questions, labels, guidelines and the error taxonomy"),
    "propose": (("admin",), "proposing, accepting and rejecting candidate questions from the corpus"),
    "run": (("admin",), "running, importing and managing model runs"),
    "release": (("admin",), "freezing releases"),
    "settings": (("admin",), "changing a shared setting"),
    "users": (("admin",), "managing users"),
}

MAX_NAME = 64


def may(role: Role, act: Act) -> bool:
    """Whether ``role`` may do ``act``."""
    return role in RULES[act][0]


def roles_for(act: Act) -> str:
    """Who may do ``act``, in words: "reviewers and admins"."""
    names = [f"{r}s" for r in RULES[act][0]]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def refusal(name: str | None, role: Role, act: Act) -> str:
    """The one line that refuses ``act`` to a person: "ali is an annotator: adjudicating keys is
    for reviewers and admins"."""
    article = "an" if role[0] in "aeiou" else "a"
    who = f"{name} is {article} {role}" if name else f"you are {article} {role}"
    return f"{who}: {RULES[act][1]} is for {roles_for(act)}"


def check_role(value: str) -> Role:
    """A role named by a person; ValueError naming the roles otherwise."""
    for role in ROLES:
        if value == role:
            return role
    raise ValueError(f"unknown role {value!r}: one of {', '.join(ROLES)}")


def check_name(value: str) -> str:
    """A user's name as stored (NFC, outer spaces trimmed): 1 to MAX_NAME characters, no control
    characters. The name labels, edits and decisions are recorded under."""
    name = unicodedata.normalize("NFC", value).strip()
    if not name:
        raise ValueError("a user needs a name")
    if len(name) > MAX_NAME:
        raise ValueError(f"a user's name is at most {MAX_NAME} characters")
    if any(unicodedata.category(c) in ("Cc", "Cf") and c != "\u200c" for c in name):
        raise ValueError("a user's name has no control characters")
    if bad := next((c for c in name if c in INVISIBLE or (c.isspace() and c != " ")), None):
        raise ValueError(f"a user's name has no invisible characters (U+{ord(bad):04X})")
    scripts = sorted({_script(c) for c in name if c.isalpha()} & LOOKALIKE_SCRIPTS)
    if len(scripts) > 1:
        raise ValueError(f"a user's name does not mix {' and '.join(s.title() for s in scripts)} letters "
                         "(they look alike)")
    return name


# letters that draw nothing (Hangul fillers, the braille blank, ...): a name of them looks empty
INVISIBLE = frozenset("\u115f\u1160\u3164\uffa0\u2800\u180e\u034f\u17b4\u17b5")
LOOKALIKE_SCRIPTS = frozenset({"LATIN", "CYRILLIC", "GREEK"})  # bоss with a Cyrillic о


def _script(c: str) -> str:
    return unicodedata.name(c, "?").split(" ", 1)[0]


def name_key(name: str) -> str:
    """What two names are compared by: the project's normalizer (Arabic ي and ك as Persian ی
    and ک, digits, diacritics), without ZWNJ, case folded. Two users never share a key."""
    return normalize(name).replace("\u200c", "").casefold()


def same_person(users: list[User], name: str) -> User | None:
    """The user (active or removed) whose name has ``name``'s key, if any."""
    key = name_key(name)
    return next((u for u in users if name_key(u.name) == key), None)


@dataclass(frozen=True)
class User:
    name: str
    role: Role
    created_at: str
    disabled_at: str | None = None  # removed: the name keeps its labels and can no longer act

    @property
    def active(self) -> bool:
        return self.disabled_at is None


UserEventKind = Literal["added", "removed", "role"]  # role: the role changed to ``role``


@dataclass(frozen=True)
class UserEvent:
    """One line of a user's history: added (with a role), given another role, or removed, and when."""

    name: str
    event: UserEventKind
    role: Role
    at: str


def check_add(users: list[User], name: str, role: Role) -> None:
    """Whether ``name`` may be added as ``role`` to ``users`` (all of them, removed ones too);
    ValueError otherwise. The first user is an admin, so someone can manage the others."""
    active = [u for u in users if u.active]
    if not active and role != "admin":
        raise ValueError(f"the first user is an admin (users add NAME --role admin), so someone can "
                         f"manage the others; {name} would be the only user, as {role}")
    for u in active:
        if u.name == name:
            raise ValueError(f"{name} is already a user ({u.role}); to change the role: users role "
                             f"{name} {role}")
    alike = next((u for u in users if u.name != name and name_key(u.name) == name_key(name)), None)
    if alike is not None:
        raise ValueError(f"{name} looks like the user {alike.name} (the same name once normalized); "
                         "choose a name that reads differently")


def check_remove(users: list[User], name: str) -> User:
    """The active user ``name`` may be removed from ``users``; ValueError otherwise. The last
    admin always stays: without one nobody could manage the others, and a database whose users
    are all removed would make every name, removed ones too, an admin."""
    found = next((u for u in users if u.name == name and u.active), None)
    if found is None:
        raise ValueError(f"{name} is not a user")
    others = [u for u in users if u.active and u.name != name]
    if found.role == "admin" and not any(u.role == "admin" for u in others):
        raise ValueError(f"{name} is the last admin: add another admin first (users add NAME --role admin)")
    return found


def article(role: Role) -> str:
    """"an annotator", "a reviewer", "an admin"."""
    return f"{'an' if role[0] in 'aeiou' else 'a'} {role}"


def check_role_change(users: list[User], name: str, role: Role) -> User:
    """The active user ``name`` of ``users`` may be given ``role``: returns them as they are;
    ValueError otherwise (not a user, already that role, or the last admin demoted)."""
    found = next((u for u in users if u.name == name and u.active), None)
    if found is None:
        raise ValueError(f"{name} is not a user (users list shows them)")
    if found.role == role:
        raise ValueError(f"{name} is already {article(role)}")
    if found.role == "admin" and not any(u.active and u.role == "admin" and u.name != name for u in users):
        raise ValueError(f"{name} is the last admin: add another admin first (users add NAME --role admin)")
    return found
