"""The doc walk's shell: one command at a time, as a reader's terminal would run it.

`Shell.run()` runs a command with bash in the document's working folder and keeps what it
changed (exported variables, `source .venv/bin/activate`, `cd`) for the next command, as
one terminal session does. `Server` starts a long-running command, waits until it
listens, and stops it with Ctrl-C (SIGINT) as a reader would. Every process is started
in a session of its own, and the whole session is ended afterwards, so nothing the walk
started outlives it. Standard library only.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

TRACEBACK = "Traceback (most recent call last)"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
LISTENING = re.compile(r"https?://(?:127\.0\.0\.1|localhost):(\d+)")
READY_SECONDS = 60.0  # how long a server may take to listen
STDIO_SECONDS = 3.0  # a stdio server has nothing to connect to: alive this long is up
STOP_SECONDS = 20.0  # after Ctrl-C: longer is a hang to a reader too
SHELL_OWN = {"_", "SHLVL", "PWD", "OLDPWD"}


@dataclass(frozen=True)
class Outcome:
    exit_code: int | None
    seconds: float
    tail: str  # the last lines of stderr (of stdout when stderr is empty)
    traceback: bool
    timed_out: bool = False


def tail(text: str, lines: int = 6) -> str:
    kept = [line.rstrip()[:240] for line in ANSI.sub("", text).splitlines() if line.strip()]
    return "\n".join(kept[-lines:])


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""


def _end_session(process: subprocess.Popen[bytes], sig: int = signal.SIGKILL) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, sig)


def listening(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(0.5)
        return probe.connect_ex(("127.0.0.1", port)) == 0


class Shell:
    """One terminal session in `cwd`: its environment carries from command to command."""

    def __init__(self, env: dict[str, str], cwd: Path, scratch: Path) -> None:
        self.env, self.cwd, self.scratch, self.count = dict(env), cwd, scratch, 0

    def _files(self) -> tuple[Path, Path]:
        self.count += 1
        return self.scratch / f"{self.count}.out", self.scratch / f"{self.count}.err"

    def _outcome(self, code: int | None, started: float, out: Path, err: Path) -> Outcome:
        stdout, stderr = _read(out), _read(err)
        return Outcome(
            code,
            time.monotonic() - started,
            tail(stderr) or tail(stdout),
            TRACEBACK in stdout or TRACEBACK in stderr,
            timed_out=code is None,
        )

    def run(self, code: str, timeout: float) -> Outcome:
        out, err = self._files()
        state = self.scratch / f"{self.count}.state"
        keep = f"env -0 > {shlex.quote(str(state))}.env; pwd > {shlex.quote(str(state))}.pwd"
        script = f"__walk_keep() {{ {keep}; }}\ntrap __walk_keep EXIT\n{code}\n"
        started = time.monotonic()
        with out.open("wb") as stdout, err.open("wb") as stderr:
            process = subprocess.Popen(
                ["bash", "-c", script],
                cwd=self.cwd,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=stdout,
                stderr=stderr,
                start_new_session=True,
            )
            try:
                exit_code: int | None = process.wait(timeout)
            except subprocess.TimeoutExpired:
                _end_session(process, signal.SIGTERM)
                time.sleep(2)
                exit_code = None
            _end_session(process)  # whatever it left running in the background
            process.wait()
        self._keep(state)
        return self._outcome(exit_code, started, out, err)

    def _keep(self, state: Path) -> None:
        """Carry the environment and folder a command left behind into the next one."""
        env, pwd = Path(f"{state}.env"), Path(f"{state}.pwd")
        if env.exists():
            pairs = (entry.partition("=") for entry in _read(env).split("\0") if "=" in entry)
            kept = {name: value for name, _, value in pairs if name not in SHELL_OWN}
            self.env = {n: v for n, v in kept.items() if not n.startswith("__walk")}
        if pwd.exists() and (where := _read(pwd).strip()):
            self.cwd = Path(where)


class Server:
    """A command that serves until stopped: started, waited for, stopped with Ctrl-C."""

    def __init__(self, code: str, shell: Shell) -> None:
        self.out, self.err = shell._files()
        self.started = time.monotonic()
        self.port: int | None = None
        with self.out.open("wb") as stdout, self.err.open("wb") as stderr:
            self.process = subprocess.Popen(
                ["bash", "-c", code],
                cwd=shell.cwd,
                env=shell.env,
                stdin=subprocess.PIPE,  # held open: a stdio server serves until its input ends
                stdout=stdout,
                stderr=stderr,
                start_new_session=True,
            )

    def ready(self, port: int | None, stdio: bool) -> str:
        """ "" once the server listens (on `port`, or on the port it prints); else why not."""
        deadline = time.monotonic() + (STDIO_SECONDS if stdio else READY_SECONDS)
        while time.monotonic() < deadline:
            if (code := self.process.poll()) is not None:
                return f"exited with code {code} before it was up"
            printed = LISTENING.search(_read(self.out) + _read(self.err))
            if port and listening(port):
                self.port = port
                return ""
            if not port and printed and listening(int(printed.group(1))):
                self.port = int(printed.group(1))
                return ""
            time.sleep(0.2)
        return "" if stdio else f"not listening after {READY_SECONDS:.0f} s"

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> tuple[Outcome, str]:
        """Ctrl-C, as a reader stops it: the outcome, and a complaint if it would not stop."""
        complaint = ""
        if (code := self.process.poll()) not in (None, 0):
            complaint = f"exited with code {code} while serving"
        if code is None:
            _end_session(self.process, signal.SIGINT)
            try:
                self.process.wait(STOP_SECONDS)
            except subprocess.TimeoutExpired:
                complaint = f"did not stop within {STOP_SECONDS:.0f} s of Ctrl-C"
                _end_session(self.process, signal.SIGKILL)
        _end_session(self.process)
        if self.process.stdin:
            self.process.stdin.close()
        code = self.process.wait()
        return Outcome(
            code,
            time.monotonic() - self.started,
            tail(_read(self.err)) or tail(_read(self.out)),
            TRACEBACK in _read(self.out) + _read(self.err),
        ), complaint
