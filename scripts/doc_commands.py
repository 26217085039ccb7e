"""The shell commands of a Markdown document, as a reader would type them.

`blocks()` reads the fenced ``bash``/``sh``/``shell``/``console`` blocks of a document
into commands: comment-only lines dropped, backslash continuations joined, a compound
command (`for ... done`) kept whole, a trailing `&` read as "in the background", and a
trailing comment that begins `# exits N` read as the exit code the command is
documented to end with (`# exits N when ...`: N or 0). Standard library only.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

SHELL_LANGUAGES = {"bash", "sh", "shell", "console"}
#: `# exits 2` (or `# exit 2`, alone or followed by `:` and why) at the start of a
#: command's trailing comment: the command is documented to end with that exit code;
#: `# exits 1 when ...` (or `if`): with that code or 0, the condition being the reader's.
EXPECTED_EXIT = re.compile(r"^exits?\s+(\d+)(?:\s*(?:$|[:;,.(—-])|\s+(when|if)\b)")


@dataclass(frozen=True)
class Command:
    doc: str
    line: int
    code: str  # as run: comments dropped, continuations joined, no trailing `&`
    comment: str = ""
    background: bool = False
    exits: tuple[int, ...] = (0,)  # the exit codes it is documented to end with


@dataclass(frozen=True)
class Block:
    doc: str
    line: int
    commands: tuple[Command, ...]


def split_comment(line: str) -> tuple[str, str]:
    """(code, comment) of one shell line: `#` starts a comment outside quotes, at a word's start."""
    quote = ""
    for i, char in enumerate(line):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip(), line[i + 1 :].strip()
    return line.rstrip(), ""


def _fences(text: str) -> list[tuple[int, str, list[str]]]:
    """(line of the first body line, language, body lines dedented) of each fenced block."""
    found, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        opening = re.match(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)", lines[i])
        if not opening:
            i += 1
            continue
        indent, fence, language = opening.groups()
        body, j = [], i + 1
        while j < len(lines) and not lines[j].strip().startswith(fence):
            body.append(lines[j][len(indent) :] if lines[j].startswith(indent) else lines[j])
            j += 1
        found.append((i + 2, language.lower(), body))
        i = j + 1
    return found


def _console_lines(body: list[str]) -> list[str]:
    """A console block's commands (`$ ` lines and their `> ` continuations); output blanked."""
    kept, inside = [], False
    for line in body:
        if line.startswith("$ ") or (inside and line.startswith("> ")):
            kept.append(line[2:])
            inside = line.rstrip().endswith("\\")
        else:
            kept.append("")
            inside = False
    return kept


def _complete(code: str) -> bool:
    """Whether bash reads `code` as whole commands (a `for` needs its `done`)."""
    if not re.search(r"\b(for|while|until|if|case|do|then)\b|[{(]", code):
        return True
    checked = subprocess.run(["bash", "-n", "-c", code], capture_output=True, check=False)
    return checked.returncode == 0


def _logical_lines(first_line: int, body: list[str]) -> list[tuple[int, str, str]]:
    """(line, code, comment) per line of code, backslash continuations joined."""
    found: list[tuple[int, str, str]] = []
    current: tuple[int, str, str] | None = None
    for offset, raw in enumerate(body):
        code, comment = split_comment(raw)
        if current is None and not code.strip():
            continue
        if current is None:
            current = (first_line + offset, code.strip(), comment)
        else:
            line, before, note = current
            current = (line, f"{before} {code.strip()}", f"{note} {comment}".strip())
        if current[1].endswith("\\"):
            current = (current[0], current[1][:-1].rstrip(), current[2])
            continue
        found.append(current)
        current = None
    return [*found, current] if current else found


def _command(doc: str, lines: list[tuple[int, str, str]]) -> Command:
    code = "\n".join(part for _, part, _ in lines)
    background = bool(re.search(r"(?<!&)&$", code))
    expected = EXPECTED_EXIT.match(lines[0][2])
    exits = (int(expected.group(1)),) if expected else (0,)
    return Command(
        doc,
        lines[0][0],
        code[:-1].rstrip() if background else code,
        " ".join(note for _, _, note in lines if note),
        background,
        (0, *exits) if expected and expected.group(2) else exits,
    )


def _commands(doc: str, first_line: int, body: list[str]) -> list[Command]:
    found, pending = [], []
    for line in _logical_lines(first_line, body):
        pending.append(line)
        if _complete("\n".join(code for _, code, _ in pending)):
            found.append(_command(doc, pending))
            pending = []
    return [*found, _command(doc, pending)] if pending else found


def blocks(path: Path, name: str) -> list[Block]:
    """The shell blocks of the Markdown file at `path`, in order; `name` is how reports cite it."""
    found = []
    for line, language, body in _fences(path.read_text(encoding="utf-8")):
        if language not in SHELL_LANGUAGES:
            continue
        lines = _console_lines(body) if language == "console" else body
        commands = _commands(name, line, lines)
        if commands:
            found.append(Block(name, line - 1, tuple(commands)))
    return found
