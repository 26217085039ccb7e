"""Run every offline command of README.md and docs/*.md, as a newcomer pasting them would.

    .venv/bin/python scripts/walk_docs.py            # every document, everything runnable
    .venv/bin/python scripts/walk_docs.py --quick    # without the commands that take minutes
    .venv/bin/python scripts/walk_docs.py docs/server.md --keep   # one document; keep its folder

Each fenced ``bash``/``sh``/``console`` block is read into commands (doc_commands.py) and
each command is run, served or skipped with a reason (doc_plans.py): skipped when it
needs an API key, the network, a Ray cluster, another machine, a person at the terminal
or data not in the checkout, when it holds a placeholder (`path/to/`, `<...>`, `…`,
`FOLDER`), or when it needs what an earlier skipped or failed command would have made.

Where: one fresh temporary folder per document, the commands in the order written, one
terminal session per document (`source`, `export` and `cd` carry to the next command).
The folder holds `.venv` (a link to the environment running this script: taurec comes
from there, nothing is installed), links to the checkout's folders a command names
(`examples/`, `bench/`, ...), and nothing of the checkout's logs; a document after the
README starts where the README leaves a reader, with a copy of the README's `logs/` (when
the README is not walked, with the `logs/` of the Quickstart's `taurec run`). Keys and `TAUREC_*` settings are removed from the environment and the
network is closed (proxies on a closed port), so a command that reaches out fails here.

Servers (`taurec serve`, `taurec crs-demo`, `taurec a2a-demo`, `evaluator view`) start,
are waited for until they listen, and are stopped with Ctrl-C: at once when written
alone (the reader stops one before typing the next line), at the block's end when
written with a trailing `&`, so a later command of the block can talk to them.

A command passes when it exits 0 (within `--timeout`) and prints no Python traceback.
Annotation: a trailing comment that begins `# exits N` (`# exits 2: the option is
unknown`) documents a refusal; that command passes when it exits N without a traceback.
One that begins `# exits N when ...` (or `if`) documents a condition the walk cannot
know: the command passes when it exits 0 or N.
Exit code: 0 when every command that ran passed, 1 when one failed, 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from doc_commands import Command, blocks
from doc_plans import Facts, Plan, blocked, plan, shell_words
from doc_shell import Outcome, Server, Shell, listening

ROOT = Path(__file__).resolve().parents[1]
QUICKSTART = "taurec run --log-dir logs"  # the Quickstart's run, without its install steps
CLOSED = "http://127.0.0.1:9"  # nothing listens there: a request through it fails at once
SECRET = re.compile(r"(_API_KEY|_TOKEN|_SECRET|_PASSWORD)$|^(TAUREC_|OPENAI|ANTHROPIC|AWS_)")


@dataclass
class Result:
    command: Command
    status: str  # ok, failed, skipped
    detail: str = ""  # skipped: the reason's category
    more: str = ""  # skipped: specifics; failed: the last lines of its output
    seconds: float = 0.0
    ran: str = ""  # what ran, when not the command as written (install steps dropped)

    def line(self) -> str:
        where = f"{self.command.doc}:{self.command.line}"
        shown = re.sub(r"(\bdo|\bthen|\{)\n", r"\1 ", self.command.code).replace("\n", "; ")
        shown = shown if len(shown) <= 90 else shown[:87] + "..."
        if self.status == "skipped":
            return f"  skip    {where:<24} {self.detail} ({self.more}): {shown}"
        text = f"  {self.status:<7} {where:<24} {self.seconds:6.1f} s  {shown}"
        if self.ran:
            text += f"\n          ran: {self.ran} (the install steps are done in this venv)"
        if self.status == "failed":
            text += f"\n          {self.detail}" + "".join(
                f"\n          | {line}" for line in self.more.splitlines()
            )
        return text


def _installed(name: str) -> bool:
    try:
        metadata.distribution(name)
    except metadata.PackageNotFoundError:
        return False
    return True


def facts(root: Path) -> Facts:
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]

    def script_text(path: str) -> str | None:
        file = root / path
        return file.read_text(errors="replace") if file.is_file() else None

    return Facts(_installed, project.get("optional-dependencies", {}), project["name"], script_text)


def base_env(venv: Path) -> dict[str, str]:
    """The environment of a newcomer's shell with the venv active, no keys and no network."""
    env = {k: v for k, v in os.environ.items() if not SECRET.search(k)}
    for name in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV"):
        env.pop(name, None)
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        env[name] = env[name.lower()] = CLOSED
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost,::1,0.0.0.0"
    env.update(
        PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}",
        BROWSER="true",  # `evaluator view` opens a browser: here, the `true` command
        PIP_NO_INDEX="1",
        npm_config_offline="true",
        NO_COLOR="1",
        COLUMNS="120",
        PYTHONDONTWRITEBYTECODE="1",
    )
    return env


def _tracked(root: Path) -> set[str]:
    """The checkout's top-level names under version control (never its logs or outputs)."""
    listed = subprocess.run(
        ["git", "-C", str(root), "ls-files"], capture_output=True, text=True, check=False
    )
    return {line.split("/")[0] for line in listed.stdout.splitlines() if line}


def prepare(work: Path, commands: list[Command], root: Path, seed: Path | None) -> None:
    """The document's folder: the venv, the checkout's folders its commands name, the seed logs."""
    work.mkdir(parents=True)
    (work / ".venv").symlink_to(Path(sys.prefix))
    tracked = _tracked(root)
    named = {w.split("/")[0] for c in commands for w in shell_words(c.code) if "/" in w}
    for name in sorted(named & tracked):
        (work / name).symlink_to(root / name)
    if seed is not None:
        shutil.copytree(seed, work / "logs", symlinks=True)


def _reads_logs(commands: list[Command]) -> bool:
    return any(re.match(r"logs(/|$)", w) for c in commands for w in shell_words(c.code))


def judge(command: Command, outcome: Outcome, timeout: float) -> Result:
    result = Result(command, "failed", more=outcome.tail, seconds=outcome.seconds)
    if outcome.timed_out:
        result.detail = f"timed out after {timeout:.0f} s (a hang?)"
    elif outcome.traceback:
        result.detail = f"printed a Python traceback (exit {outcome.exit_code})"
    elif outcome.exit_code not in command.exits:
        documented = " or ".join(map(str, command.exits))
        expected = f", documented: {documented}" if command.exits != (0,) else ""
        result.detail = f"exit {outcome.exit_code}{expected}"
    else:
        result.status, result.more = "ok", ""
    return result


def judge_server(command: Command, server: Server, not_up: str) -> Result:
    outcome, complaint = server.stop()
    result = Result(command, "failed", more=outcome.tail, seconds=outcome.seconds)
    if not_up or complaint:
        result.detail = not_up or complaint
    elif outcome.traceback:
        result.detail = "printed a Python traceback"
    else:
        result.status, result.more = "ok", ""
    return result


class Walk:
    def __init__(self, options: argparse.Namespace, root: Path, scratch: Path) -> None:
        self.options, self.root, self.scratch = options, root, scratch
        self.facts, self.env = facts(root), base_env(Path(sys.prefix))
        self.results: list[Result] = []
        self.blocks = 0
        self._seed: Path | None = None

    def report(self, result: Result) -> None:
        self.results.append(result)
        print(result.line(), flush=True)

    def seed(self) -> Path | None:
        """The README's `logs/` when it was walked; else the Quickstart's, made once."""
        if self._seed is None:
            folder = self.scratch / "quickstart"
            folder.mkdir()
            shell = Shell(self.env, folder, self.scratch / "out-quickstart")
            shell.scratch.mkdir()
            command = Command("(the Quickstart, for the other documents)", 0, QUICKSTART)
            timeout = self.options.timeout
            self.report(judge(command, shell.run(QUICKSTART, timeout), timeout))
            self._seed = folder / "logs"
        return self._seed if self._seed.is_dir() else None

    def document(self, path: Path, name: str) -> None:
        found = blocks(path, name)
        commands = [c for block in found for c in block.commands]
        self.blocks += len(found)
        print(f"== {name}: {len(found)} blocks, {len(commands)} commands", flush=True)
        slug = re.sub(r"\W+", "-", name).strip("-")
        seed = self.seed() if name != "README.md" and _reads_logs(commands) else None
        prepare(self.scratch / slug, commands, self.root, seed)
        (self.scratch / f"out-{slug}").mkdir()
        shell = Shell(self.env, self.scratch / slug, self.scratch / f"out-{slug}")
        missing: dict[str, str] = {}
        for block in found:
            servers: list[tuple[Command, Server]] = []
            for command in block.commands:
                self.step(command, shell, servers, missing)
            for command, server in servers:
                self.report(judge_server(command, server, ""))
        if name == "README.md" and (self.scratch / slug / "logs").is_dir():
            self._seed = self.scratch / slug / "logs"

    def step(
        self,
        command: Command,
        shell: Shell,
        servers: list[tuple[Command, Server]],
        missing: dict[str, str],
    ) -> None:
        where = f"{command.doc}:{command.line}"
        step = plan(command, self.facts)
        if step.action == "run" and step.slow and self.options.quick:
            step = Plan(
                "skip", step.code, "slow (--quick skips it)", step.slow, outputs=step.outputs
            )
        if step.action != "skip":
            ports = {server.port for _, server in servers if server.alive() and server.port}
            why = blocked(
                step,
                lambda p: (shell.cwd / p).exists(),
                lambda m: (
                    (shell.cwd / m).exists()
                    or (shell.cwd / f"{m}.py").exists()
                    or importlib.util.find_spec(m) is not None
                ),
                missing,
                ports,
            )
            if step.port and listening(step.port):
                why = why or ("port in use by another process", f"port {step.port}")
            if why:
                step = Plan("skip", step.code, *why, outputs=step.outputs)
        if step.action == "skip":
            self.report(Result(command, "skipped", step.reason, step.detail))
            for out in step.outputs:
                missing.setdefault(out, f"{where}, skipped")
            return
        if step.action == "serve":
            server = Server(step.code, shell)
            not_up = server.ready(step.port, step.stdio)
            if command.background and not not_up:
                servers.append((command, server))
            else:
                self.report(judge_server(command, server, not_up))
            return
        result = judge(command, shell.run(step.code, self.options.timeout), self.options.timeout)
        result.ran = step.code if step.code != command.code else ""
        self.report(result)
        if result.status == "failed":
            for out in step.outputs:
                missing.setdefault(out, f"{where}, failed")


def summary(results: list[Result], documents: int, blocks: int) -> str:
    commands = [r for r in results if r.command.line]
    counts = {s: sum(r.status == s for r in commands) for s in ("ok", "failed", "skipped")}
    lines = [
        f"{documents} documents, {blocks} blocks, {len(commands)} commands: {counts['ok']} ok, "
        f"{counts['failed']} failed, {counts['skipped']} skipped"
    ]
    reasons: dict[str, int] = {}
    for result in commands:
        if result.status == "skipped":
            reasons[result.detail] = reasons.get(result.detail, 0) + 1
    lines += [f"  skipped, {why}: {n}" for why, n in sorted(reasons.items(), key=lambda i: -i[1])]
    failed = [r for r in results if r.status == "failed"]
    lines += ["failed:"] * bool(failed) + [r.line() for r in failed]
    return "\n".join(lines)


def _documents(names: list[str], root: Path) -> list[tuple[Path, str]]:
    if not names:
        return [(root / "README.md", "README.md")] + [
            (p, p.relative_to(root).as_posix()) for p in sorted((root / "docs").glob("*.md"))
        ]
    found = []
    for name in names:
        path = next((p for p in (Path(name), root / name) if p.is_file()), None)
        if path is None or path.suffix != ".md":
            raise ValueError(f"no Markdown document {name!r} (expected e.g. README.md)")
        resolved = path.resolve()
        shown = resolved.relative_to(root) if resolved.is_relative_to(root) else path
        found.append((path, Path(shown).as_posix()))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("documents", nargs="*", help="Markdown files (default: README + docs)")
    parser.add_argument("--quick", action="store_true", help="skip the commands marked slow")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per command")
    parser.add_argument("--keep", action="store_true", help="keep the working folders")
    options = parser.parse_args(argv)
    if options.timeout <= 0:
        parser.error(f"--timeout must be a positive number of seconds, not {options.timeout}")
    if not (Path(sys.prefix) / "bin" / "taurec").exists():
        parser.error(f"taurec is not installed in {sys.prefix}: run with .venv/bin/python")
    try:
        documents = _documents(options.documents, ROOT)
    except ValueError as bad:
        parser.error(str(bad))
    scratch = Path(tempfile.mkdtemp(prefix="walk-docs-"))
    walk = Walk(options, ROOT, scratch)
    try:
        for path, name in documents:
            walk.document(path, name)
    finally:
        if options.keep:
            print(f"working folders kept in {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    print(summary(walk.results, len(documents), walk.blocks))
    return 1 if any(r.status == "failed" for r in walk.results) else 0


if __name__ == "__main__":
    sys.exit(main())
