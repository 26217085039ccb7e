"""One in-process taurec server for environments: built once over a loaded suite, reached
through MCP's in-memory transport (`mcp.Client(server)`) on an event loop of its own in a
background thread, so that synchronous `reset`/`step` code (Gymnasium, TRL, a plain
training loop) can drive it, and many episodes can run on it at once (VectorEnv).

Every episode goes through the same MCP tools, the same episode code and the same log
writer as `taurec serve`: its log is a normal taurec log, and its reward is what
`evaluator score` computes from that log (the evaluator's `score_file`, nothing else).
Logs go to `log_dir`; without one, to a temporary folder removed by `close()`.
"""

from __future__ import annotations

import queue
import tempfile
import threading
from collections import defaultdict
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import anyio
import orjson
from anyio.from_thread import BlockingPortal
from mcp import Client
from mcp_types import Tool
from pydantic import ValidationError

from taurec.catalog.errors import DataError
from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.logs import score_file
from taurec.evaluator.resolver import Resolver
from taurec.server.app import build_server_with_service
from taurec.server.run_facts import default_run_label
from taurec.server.settings import ServerSettings
from taurec.server.trajectory_writer import log_path
from taurec.tasks.suite import Suite, load_suite

T = TypeVar("T")

#: Bytes read from a log's end to find its end record.
_TAIL = 65_536

#: The agent label env episodes are logged under unless another is given.
ENV_LABEL = "env"


def log_has_ended(log: Path) -> bool:
    """Whether the episode log holds its end record: the one sign that holds for every
    kind and every way an episode ends (a commit, the user leaving, a budget, an abort)."""
    if not log.is_file():
        return False
    with open(log, "rb") as f:
        size = f.seek(0, 2)
        f.seek(max(0, size - _TAIL))
        last = f.read().rstrip(b"\n").rsplit(b"\n", 1)[-1]
    try:
        return bool(orjson.loads(last).get("type") == "end")
    except orjson.JSONDecodeError:
        return False


def _daemon_portal() -> BlockingPortal:
    """An event loop in a daemon thread, reached through a portal: a program that never
    closes its environment still exits (the server's open episodes stay unended, as
    after a crash)."""
    handed: queue.Queue[BlockingPortal | BaseException] = queue.Queue(1)

    async def serve() -> None:
        async with BlockingPortal() as portal:
            handed.put(portal)
            await portal.sleep_until_stopped()

    def run() -> None:
        try:
            anyio.run(serve)
        except BaseException as exc:  # pragma: no cover - the loop could not start
            handed.put(exc)

    threading.Thread(target=run, name="taurec-env", daemon=True).start()
    portal = handed.get()
    if isinstance(portal, BaseException):  # pragma: no cover
        raise portal
    return portal


class EnvHost:
    """The server, its client and its event loop. `settings` are any ServerSettings
    fields (simulator, patience, max_turns, ...); `suite` and `log_dir` are set here."""

    def __init__(
        self,
        suite: str | Suite = "builtin",
        *,
        log_dir: str | Path | None = None,
        label: str = ENV_LABEL,
        run_label: str | None = None,
        rules: str | None = None,
        **settings: Any,
    ) -> None:
        self._tmp = (
            None if log_dir is not None else tempfile.TemporaryDirectory(prefix="taurec-env-")
        )
        self.log_dir = Path(log_dir if log_dir is not None else self._tmp.name)  # type: ignore[union-attr]
        self.keeps_logs = log_dir is not None
        self.suite = suite if isinstance(suite, Suite) else load_suite(suite)
        self.label = label
        try:
            self.settings = ServerSettings(
                suite=self.suite.spec,
                log_dir=self.log_dir,
                run_label=run_label or default_run_label(),
                agent_label=label,
                **settings,
            )
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "settings"
            raise DataError(f"environment setting {where}: {first['msg']}") from None
        resolver = Resolver(suite=self.suite.spec)
        self.resolver = resolver if rules is None else Resolver(suite=self.suite.spec, rules=rules)
        self.server, self.service = build_server_with_service(self.settings, self.suite)
        self._trials: defaultdict[str, int] = defaultdict(int)
        self.portal: BlockingPortal | None = _daemon_portal()
        self._client_cm = self.portal.wrap_async_context_manager(Client(self.server))
        self.client: Client = self._client_cm.__enter__()
        self.tools: list[Tool] = self.call(self._list_tools)

    @property
    def kind(self) -> str:
        return self.suite.kind

    async def _list_tools(self) -> list[Tool]:
        return list((await self.client.list_tools()).tools)

    def call(self, fn: Callable[..., Awaitable[T]], *args: Any) -> T:
        """Run the coroutine function `fn(*args)` on the host's event loop; its result."""
        if self.portal is None:
            raise RuntimeError("this environment has been closed")
        return self.portal.call(fn, *args)

    def task(self, task: str | Any | None) -> Any:
        """The suite's task named by `task` (an id or a task; None: the first), or
        DataError naming the suite."""
        if task is None:
            return self.suite.tasks[0]
        task_id = task if isinstance(task, str) else getattr(task, "id", None)
        found = self.suite.get(task_id) if isinstance(task_id, str) else None
        if found is None:
            shown = ", ".join(t.id for t in self.suite.tasks[:5])
            raise DataError(
                f"task {task_id!r} is not in suite {self.suite.id!r}; expected one of {shown}, ..."
            )
        return found

    def next_trial(self, task_id: str) -> int:
        """Trials of one task count up from 0 in the order episodes start (pass^k reads
        them), unless the caller names one."""
        trial = self._trials[task_id]
        self._trials[task_id] += 1
        return trial

    def log_of(self, task_id: str, trial: int, episode_id: str) -> Path:
        run_label = self.settings.run_label
        assert run_label is not None
        return log_path(self.log_dir, run_label, task_id, trial, episode_id)

    def score(self, path: Path) -> EpisodeScore:
        """The evaluator's score of one finished episode log (exactly `evaluator score`'s)."""
        return score_file(path, self.resolver)

    def close(self) -> None:
        """End every open episode (as the server does when it stops), close the client
        and the loop, and remove the temporary log folder (when there is one)."""
        portal, self.portal = self.portal, None
        if portal is None:
            return
        try:
            portal.call(self.service.close_all)
            self._client_cm.__exit__(None, None, None)
        finally:
            portal.call(portal.stop)
            if self._tmp is not None:
                self._tmp.cleanup()

    def __enter__(self) -> EnvHost:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
