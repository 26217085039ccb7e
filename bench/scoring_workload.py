"""The episodes the scoring benches time (bench/evaluator_speed.py, bench/log_bytes.py):
signed logs over τ-Rec's release or the built-in catalog, their conversion to the traces
τ-Rec's orchestrator would have recorded, and τ-Rec v1.0's own evaluator to score those.

Each log has 33 lines (messages, six filter calls, a history lookup, an availability
check, a recommendation), chained and signed as the server writes them, its header that
of a sealed run (one plan for all), so `--verify` finds every log signed by the bench key.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from taurec.catalog.store import Catalog
from taurec.evaluator.recommendation.taurec_trace import to_trace
from taurec.tasks.recommendation.catalog_tools import replay_call
from taurec.tasks.recommendation.generator import generate_tasks
from taurec.tasks.suite import Suite, SuiteManifest, load_suite, write_suite_dir
from taurec.tasks.trajectory.format import TRAJECTORY_FORMAT_VERSION
from taurec.tasks.trajectory.reader import parse_log_bytes
from taurec.tasks.trajectory.signing import LogKey, chained_lines

GENRES = ("Comedy", "Drama", "Thriller", "Action", "Romance", "Horror")
BENCH_KEY = LogKey(b"bench key, not a secret: 0123456789", "bench")
#: The run plan every bench log names (sealed mode).
BENCH_PLAN = "b" * 32
#: τ-Rec v1.0's release and source, where the project's compatibility tests find them.
TAU_REC = Path(__file__).resolve().parents[2] / "shared" / "third_party" / "tau-rec-v1.0"


def write_logs(root: Path, episodes: int, seed: int, suite: Suite) -> tuple[Path, int]:
    """`episodes` signed logs over `suite`'s tasks (about 33 lines each), under root/logs."""
    catalog, tasks = suite.catalog, suite.tasks
    rng = random.Random(seed)
    ids = catalog.ids
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

        add(type="user_message", text="Looking for something good tonight, not too long.")
        for turn in range(6):
            add(type="agent_message", text=f"Question {turn}: what about the runtime or genre?")
            add(type="user_message", text="I'd like a comedy, under two hours please.")
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
            arguments={"item_id": item, "message": "Enjoy!"},
        )
        add(type="tool_result", call_id="r", content={"committed": item})
        add(type="end", reason="recommended", item_id=item, key_id=BENCH_KEY.key_id)
        events_total += len(lines)
        path = out / f"agent{n % 2}" / f"{n:07d}.jsonl"
        if n < 2:
            path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(signed_lines(lines))
    return out, events_total


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
        out = []
        for f in files:
            trace = self.trace.model_validate_json(f.read_bytes())
            out.append(self.evaluator.evaluate(self.tasks[trace.task_id], trace).primary_reward)
        return out


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
