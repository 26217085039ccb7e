"""The README backs each security claim and each departure from τ-Rec with a test: every
test it names exists."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def section(title: str) -> str:
    text = (ROOT / "README.md").read_text("utf-8")
    start = text.index(f"## {title}\n")
    end = text.index("\n## ", start + 1)
    return text[start:end]


def security_section() -> str:
    return section("Security")


DEPARTURES = "Rules profiles: ours and τ-Rec's"


def named_tests(text: str | None = None) -> list[tuple[str, str | None]]:
    """(file, test name or None) for every `tests/...py[::name]` and `::name` reference;
    a bare `::name` belongs to the file named before it in the same cell."""
    refs: list[tuple[str, str | None]] = []
    for row in (security_section() if text is None else text).splitlines():
        if not row.startswith("| ") or "`" not in row:
            continue
        last_file: str | None = None
        for ref in re.findall(r"`((?:tests/[\w/]+\.py)?(?:::\w+)?)`", row):
            file, _, name = ref.partition("::")
            if file:
                last_file = file
            assert last_file is not None, f"{ref!r} names no file before it"
            refs.append((last_file, name or None))
    return refs


def test_the_security_section_names_tests_for_each_threat():
    rows = [r for r in security_section().splitlines() if r.startswith("| ") and "---" not in r]
    threats = rows[1:]  # below the header row
    assert len(threats) >= 10
    for row in threats:
        assert "`tests/" in row, f"a threat without a test: {row[:80]}"


def test_every_test_the_security_section_names_exists():
    refs = named_tests()
    assert len(refs) >= 25
    _assert_defined(refs)


def test_each_departure_from_tau_rec_names_a_test():
    rows = [r for r in section(DEPARTURES).splitlines() if r.startswith("| ") and "---" not in r]
    departures = rows[1:]
    assert len(departures) >= 15
    for row in departures:
        assert "`tests/" in row, f"a departure without a test: {row[:80]}"


def test_every_test_the_departures_name_exists():
    refs = named_tests(section(DEPARTURES))
    assert len(refs) >= 18
    _assert_defined(refs)


def _assert_defined(refs: list[tuple[str, str | None]]) -> None:
    for file, name in refs:
        path = ROOT / file
        assert path.is_file(), f"README names {file}, which does not exist"
        if name is None:
            continue
        tree = ast.parse(path.read_text("utf-8"))
        defined = {
            node.name
            for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        }
        assert name in defined, f"README names {file}::{name}, which is not defined there"
