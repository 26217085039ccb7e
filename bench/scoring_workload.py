"""The episodes the scoring benches time (bench/evaluator_speed.py, bench/log_bytes.py),
their conversion to the traces τ-Rec's orchestrator would have recorded, and τ-Rec v1.0's
own evaluator to score those, in one process or several.

`server_logs` has the taurec server write them: `taurec run` (in process, offline) with
the given agents, signed with a bench key. `write_logs` writes synthetic ones instead: 33
lines each (messages, six filter calls, a history lookup, an availability check, a
recommendation), chained and signed as the server writes them, the header that of a
sealed run (one plan for all), the texts drawn per episode from the catalog's titles and
a few hundred phrasings, so no cache of texts always hits.
"""

from __future__ import annotations

import os
import pickle
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from taurec.catalog.store import Catalog
from taurec.evaluator.recommendation.taurec_trace import to_trace
from taurec.tasks.recommendation.catalog_tools import replay_call
from taurec.tasks.recommendation.generator import generate_tasks
from taurec.tasks.suite import Suite, SuiteManifest, load_suite, write_suite_dir
from taurec.tasks.trajectory.format import TRAJECTORY_FORMAT_VERSION
from taurec.tasks.trajectory.reader import parse_log_bytes
from taurec.tasks.trajectory.signing import LogKey, chained_lines, load_log_key

GENRES = ("Comedy", "Drama", "Thriller", "Action", "Romance", "Horror")
_SECRET = b"bench key, not a secret: 0123456789"
BENCH_KEY = LogKey(_SECRET, "bench")
#: The run plan every bench log names (sealed mode).
BENCH_PLAN = "b" * 32
#: τ-Rec v1.0's release and source, where the project's compatibility tests find them.
TAU_REC = Path(__file__).resolve().parents[2] / "shared" / "third_party" / "tau-rec-v1.0"


def write_logs(root: Path, episodes: int, seed: int, suite: Suite) -> tuple[Path, int]:
    """`episodes` signed logs over `suite`'s tasks (about 33 lines each), under root/logs."""
    catalog, tasks = suite.catalog, suite.tasks
    rng = random.Random(seed)
    ids = catalog.ids

    def title(item_id: str) -> str:
        item = catalog.get(item_id)
        return item.title if item is not None else item_id

    events_total = 0
    out = root / "logs"
    for n in range(episodes):
        task = tasks[n % len(tasks)]
        trial = n // len(tasks)
        header = {
            "type": "header",
            "format": "taurec-trajectory",
            "format_version": TRAJECTORY_FORMAT_VERSION,
            "run_id": "bench",
            "episode_id": f"ep{n}",
            "agent": {"label": f"agent{n % 2}"},
            "task_id": task.id,
            "task_sha256": task.sha256(),
            "suite": {"id": suite.id, "spec": suite.spec},
            "catalog_sha256": catalog.sha256(),
            "trial": trial,
            "seed": n,
            "simulator": {"kind": "rule"},
            "server_version": "bench",
            "started_at": "2026-01-01T00:00:00Z",
            "mode": "sealed",
            "plan_id": BENCH_PLAN,
        }
        lines: list[dict[str, object]] = [header]

        def add(lines: list[dict[str, object]] = lines, **ev: object) -> None:
            seq = len(lines)
            # the server's key order: the type first, then seq, t and latency_ms
            record = {"type": ev.pop("type"), "seq": seq, "t": seq * 0.01, "latency_ms": 1.5}
            lines.append(record | ev)

        add(type="user_message", text=_user_text(rng, catalog))
        for turn in range(6):
            add(type="agent_message", text=_agent_text(rng, catalog, turn))
            add(type="user_message", text=_user_text(rng, catalog))
            cid = f"c{turn}"
            fargs = {"genres_any": [GENRES[turn % len(GENRES)]], "limit": 5}
            add(type="tool_call", call_id=cid, name="filter_catalog", arguments=fargs)
            add(
                type="tool_result",
                call_id=cid,
                content=replay_call(catalog, task, "filter_catalog", fargs),
            )
        item = rng.choice(ids)
        hargs = {"episode_id": f"ep{n}"}
        add(type="tool_call", call_id="h", name="get_user_history", arguments=hargs)
        add(
            type="tool_result",
            call_id="h",
            content=replay_call(catalog, task, "get_user_history", hargs),
        )
        aargs = {"episode_id": f"ep{n}", "item_id": item}
        add(type="tool_call", call_id="a", name="check_availability", arguments=aargs)
        add(
            type="tool_result",
            call_id="a",
            content=replay_call(catalog, task, "check_availability", aargs),
        )
        add(
            type="tool_call",
            call_id="r",
            name="recommend",
            arguments={"item_id": item, "message": f"{rng.choice(_OPENERS)} {title(item)}."},
        )
        add(type="tool_result", call_id="r", content={"committed": item})
        add(type="end", reason="recommended", item_id=item, key_id=BENCH_KEY.key_id)
        events_total += len(lines)
        path = out / f"agent{n % 2}" / f"{n:07d}.jsonl"
        if n < 2:
            path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(signed_lines(lines))
    return out, events_total


_OPENERS = ("I recommend", "Try", "My pick for you is", "You might enjoy", "Go with")
_ASKS = (
    "What about the runtime, {}?",
    "Do you prefer {} or something lighter?",
    "Have you seen {}? Something in that vein?",
    "Any mood in mind: like {} perhaps?",
    "Which services do you have? {} is on a few.",
)
_WANTS = (
    "I'd like a {g}, under {m} minutes please.",
    "Something like {t}, but more {a}.",
    "Not {t} again. A {g} would be nice.",
    "I have seen {t}; anything {a} from the {d}s?",
    "Maybe a {a} {g} tonight?",
)
_MOODS = ("funny", "dark", "quiet", "upbeat", "tense", "warm", "strange", "slow")


def _random_title(rng: random.Random, catalog: Catalog) -> str:
    return catalog.items[rng.randrange(len(catalog.items))].title


def _agent_text(rng: random.Random, catalog: Catalog, turn: int) -> str:
    return f"({turn + 1}) " + rng.choice(_ASKS).format(_random_title(rng, catalog))


def _user_text(rng: random.Random, catalog: Catalog) -> str:
    return rng.choice(_WANTS).format(
        g=rng.choice(GENRES).lower(),
        m=rng.randrange(80, 181, 5),
        t=_random_title(rng, catalog),
        a=rng.choice(_MOODS),
        d=rng.randrange(1950, 2030, 10),
    )


def server_logs(root: Path, suite: str, agents: list[str], trials: int) -> tuple[Path, LogKey]:
    """Logs the taurec server writes: `taurec run --suite SUITE --agent A --trials N` per
    agent (in process, offline), under root/logs/<agent>, signed with the bench key."""
    key_file = root / "log.key"
    key_file.write_bytes(_SECRET)
    key_file.chmod(0o600)
    env = os.environ | {"TAUREC_LOG_KEY_FILE": str(key_file)}
    env.pop("TAUREC_LOG_KEY", None)
    for agent in agents:
        out = root / "logs" / agent
        cmd = [sys.executable, "-c", "from taurec.clients.cli.main import main; main()", "run"]
        cmd += ["--suite", suite, "--agent", agent, "--trials", str(trials), "--out", str(out)]
        subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    return root / "logs", load_log_key(key_file)


def bench_suite(root: Path, tau_rec: Path | None, seed: int) -> Suite:
    """τ-Rec's release when given (so τ-Rec's evaluator can score the same episodes), else
    30 generated tasks on the built-in catalog."""
    if tau_rec is not None:
        return load_suite(f"tau-rec:{tau_rec}")
    catalog = Catalog.load("builtin")
    suite_dir = root / "suite"
    write_suite_dir(
        suite_dir,
        SuiteManifest(format_version=1, id="bench", catalog="builtin"),
        generate_tasks(catalog, 30, seed),
    )
    return load_suite(str(suite_dir))


def signed_lines(records: list[dict[str, object]]) -> bytes:
    """The records as the taurec server writes them: chained, the end record signed."""
    return chained_lines(records, BENCH_KEY)


class TauRecEvaluator:
    """τ-Rec v1.0's own `CombinedEvaluator`, imported from its source folder at run time
    (never copied into this project; it needs rank-bm25)."""

    def __init__(self, release: Path) -> None:
        src = release.parent / f"{release.name}-src"
        if str(src) not in sys.path:
            sys.path.insert(0, str(src))
        from tau_rec.data_model.catalog import Catalog as TauCatalog
        from tau_rec.data_model.conversation import ConversationTrace
        from tau_rec.data_model.task import Task as TauTask
        from tau_rec.evaluator.evaluator import CombinedEvaluator

        self.evaluator = CombinedEvaluator(TauCatalog.from_json(str(release / "catalog.json")))
        self.tasks = {
            f.stem: TauTask.from_json(str(f)) for f in sorted((release / "tasks").glob("*.json"))
        }
        self.trace = ConversationTrace

    def score(self, files: list[Path]) -> list[float]:
        """Read, validate and evaluate each trace file, as τ-Rec's own scoring does."""
        return [r.primary_reward for r in self.results(files)]  # type: ignore[attr-defined]

    def results(self, files: list[Path]) -> list[object]:
        """What τ-Rec's evaluator returns for each trace (its `EvaluationResult`)."""
        out: list[object] = []
        for f in files:
            trace = self.trace.model_validate_json(f.read_bytes())
            out.append(self.evaluator.evaluate(self.tasks[trace.task_id], trace))
        return out

    def score_in(self, files: list[Path], processes: int) -> list[float]:
        """`score` split over `processes` forked processes (this one among them), the
        rewards sent back pickled, as `evaluator score --workers` does with its scores."""
        return in_processes(files, processes, self.score)


def in_processes(
    files: list[Path], processes: int, score: Callable[[list[Path]], list[float]]
) -> list[float]:
    """`score` on `processes` contiguous slices of `files`, the first here, the others in
    forked children that pickle their results back through a pipe."""
    size = -(-len(files) // processes)
    slices = [files[i : i + size] for i in range(0, len(files), size)]
    children = []
    for part in slices[1:]:
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: score its slice, send it, leave at once
            os.close(read)
            with os.fdopen(write, "wb") as out:
                pickle.dump(score(part), out)
            os._exit(0)
        os.close(write)
        children.append((pid, read))
    results = score(slices[0]) if slices else []
    for pid, read in children:
        with os.fdopen(read, "rb") as got:
            results += pickle.load(got)
        os.waitpid(pid, 0)
    return results


def write_traces(files: list[Path], root: Path) -> list[Path]:
    """Each log converted to the trace τ-Rec's orchestrator would have recorded."""
    root.mkdir(parents=True)
    out = []
    for n, f in enumerate(files):
        trajectory = parse_log_bytes(f.read_bytes(), str(f)).trajectory
        assert trajectory is not None, f"{f}: the bench wrote a bad log"
        path = root / f"{n:07d}.json"
        path.write_text(to_trace(trajectory).model_dump_json())
        out.append(path)
    return out
