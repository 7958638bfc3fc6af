"""The registry of email kinds is complete: every kind the code queues has its entry, every
``kinds/<kind>`` template belongs to an entry that says so, and no module keeps a set of kinds
of its own."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import mail_templates
from pbem.services.mailout import kinds

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = Path(mail_templates.__file__).parent
#: Where emails are queued (the scaffold's ``kind="board"`` is a kind of game package, not of email).
QUEUERS = [ROOT / "pbem" / "services", ROOT / "pbem" / "inbound", ROOT / "worker"]
#: ``kind="..."`` passed to notify or an outbox row, and the named constants some callers pass.
LITERAL = re.compile(r'\bkind="(\w+)"|^\w*_KIND = "(\w+)"', re.M)
#: The kinds the code names through the enum.
MEMBER = re.compile(r"\bEmailKind\.([A-Z_]+)\b")
REGISTERED = {kind.value for kind in kinds.KINDS}


def _sources() -> list[Path]:
    return [path for folder in QUEUERS for path in folder.rglob("*.py")]


def test_every_kind_queued_in_the_code_is_registered_and_named_by_the_enum():
    literals = {a or b for path in _sources() for a, b in LITERAL.findall(path.read_text())}
    assert literals == set(), "a kind is named by its EmailKind member, which a typo cannot pass"
    named = {name for path in _sources() for name in MEMBER.findall(path.read_text())}
    assert len(named) >= 20, named  # the scan finds the code's kinds (if it found none, it would prove nothing)
    assert named - {kind.name for kind in kinds.EmailKind} == set()


def test_notify_refuses_a_kind_that_is_not_registered(runtime):
    import pytest

    from pbem.services.mailout import notify

    with pytest.raises(ValueError, match="not a valid EmailKind"), runtime.unit() as uow:
        notify.queue(
            uow, game=None, seat=None, recipient="a@example.org", template="notice",
            kind="newsletter", headline="x", details=[],
        )  # fmt: skip


def test_every_kind_has_one_entry_under_its_own_name():
    assert set(kinds.KINDS) == set(kinds.EmailKind)
    assert all(entry.kind is key for key, entry in kinds.KINDS.items())


def test_every_kinds_template_has_its_entry_and_every_entry_its_templates():
    own = {path.stem for path in (TEMPLATES / "kinds").glob("*.txt")}
    assert own == {path.stem for path in (TEMPLATES / "kinds").glob("*.html")}
    assert own == {entry.kind.value for entry in kinds.KINDS.values() if entry.own_template}
    for entry in kinds.KINDS.values():
        if entry.template is not None:
            assert (TEMPLATES / f"{entry.template}.txt").is_file(), entry
            assert (TEMPLATES / f"{entry.template}.html").is_file(), entry


def test_no_module_keeps_its_own_set_of_kinds():
    """A set literal made only of kinds, outside the registry, is a rule that a new kind can miss."""
    kept = []
    for path in (ROOT / "pbem").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Set) and len(node.elts) > 1:
                words = {e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
                if len(words) == len(node.elts) and words <= REGISTERED:
                    kept.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert kept == []
