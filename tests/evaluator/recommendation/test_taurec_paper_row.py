"""A run whose per-task successes are τ-Rec's published DeepSeek V4 Flash row scores as the
paper reports it under `--rules tau-rec`: pass^1/2/4 = 0.546/0.433/0.333.

The paper (Table 2, and Table 3 for the strata) gives pass^1, pass^2 and pass^4 over 60
tasks × 4 trials, not the per-task counts. With n_c tasks succeeding c times of 4:
  pass^4 = n_4 / 60 = 0.333                      -> n_4 = 20
  pass^1 = Σ c·n_c / 240 = 0.546                 -> Σ c·n_c = 131 (131/240 = 0.5458)
  pass^2 = Σ C(c,2)·n_c / 360 = 0.433            -> Σ C(c,2)·n_c = 156 (156/360 = 0.4333)
which leaves n_1 = 3·n_3 - 21, n_2 = 36 - 3·n_3, n_0 = 25 - n_3 for n_3 in 7..12. The
paper's pass^1 by reveal difficulty for the same model (0.846 volunteer over 13 tasks,
0.586 mixed over 32, 0.200 hidden over 15) fixes the successes per stratum at 44, 75 and
12. We take n_3 = 10 (n = 15, 9, 6, 10, 20 for c = 0..4) and split it over the strata as
COUNTS says; any other admissible split gives the same pass^1, pass^2 and pass^4.
"""

from __future__ import annotations

from collections import Counter
from math import comb
from pathlib import Path

import orjson
import pytest
from support.episodes import Episode
from support.third_party import TAU_REC
from typer.testing import CliRunner

from taurec.clients.agents.recommendation.oracle import OracleAgent
from taurec.evaluator.cli.main import app
from taurec.tasks.recommendation import catalog_tools as ct
from taurec.tasks.recommendation.task import RecommendationTask
from taurec.tasks.suite import load_suite

pytestmark = pytest.mark.skipif(
    not TAU_REC.is_dir(), reason=f"the τ-Rec release is not at {TAU_REC}"
)

SPEC = f"tau-rec:{TAU_REC}"
#: reveal difficulty -> successes (of 4) per task, in task-id order within the stratum.
COUNTS = {
    "volunteer": [4] * 10 + [3, 1, 0],
    "hidden": [3, 3, 2, 2, 2] + [0] * 10,
    "mixed": [4] * 10 + [3] * 7 + [2] * 3 + [1] * 8 + [0] * 4,
}
TRIALS = 4


def test_the_counts_are_the_papers_row():
    counts = [c for cs in COUNTS.values() for c in cs]
    assert len(counts) == 60
    assert Counter(counts) == {0: 15, 1: 9, 2: 6, 3: 10, 4: 20}
    for k, published in ((1, 0.546), (2, 0.433), (4, 0.333)):
        value = sum(comb(c, k) / comb(TRIALS, k) for c in counts) / len(counts)
        assert round(value, 3) == published


def _episode(task: RecommendationTask, trial: int, passes: bool, oracle: OracleAgent) -> Episode:
    catalog = oracle.suite.catalog
    ep = Episode(f"{task.id}-{trial}")
    ep.user("Hi! I want a film.")
    if not passes:
        ep.say("What do you like?")
        ep.end("max_turns", task_id=task.id)
        return ep
    history = ct.get_user_history(catalog, task).model_dump(mode="json")
    ep.call("get_user_history", history, episode_id=ep.episode_id)
    item_id = oracle.answer(task.id)
    if item_id is None:
        ep.recommend(None, "Nothing in the catalog fits all of that.")
        ep.end("abstained", task_id=task.id)
        return ep
    item = catalog.get(item_id)
    assert item is not None
    ep.call("get_item", item.model_dump(mode="json"), item_id=item_id)
    rating = item.content_rating.value
    ep.call("check_content_preference", {"content_rating": rating}, content_rating=rating)
    ep.recommend(item_id, f"I recommend {item.title}. Note: this is a sponsored title.")
    ep.end("recommended", item_id, task_id=task.id)
    return ep


def _write(out: Path, task: RecommendationTask, trial: int, ep: Episode, catalog_sha: str) -> None:
    header = {
        "type": "header",
        "format": "taurec-trajectory",
        "format_version": 1,
        "run_id": "paper-row",
        "episode_id": ep.episode_id,
        "agent": {"label": "deepseek-v4-flash"},
        "task_id": task.id,
        "task_sha256": task.sha256(),
        "suite": {"id": "tau-rec", "spec": SPEC},
        "catalog_sha256": catalog_sha,
        "trial": trial,
        "seed": trial,
        "simulator": {"kind": "llm-single", "model": "gpt-5-mini"},
        "server_version": "test",
        "started_at": "2026-01-01T00:00:00Z",
    }
    path = out / task.id / f"trial{trial}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in (header, *ep.events)))


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("paper-row")
    suite = load_suite(SPEC)
    oracle = OracleAgent(SPEC)
    sha = suite.catalog.sha256()
    for stratum, counts in COUNTS.items():
        tasks = [t for t in suite.tasks if t.stratum[1].value == stratum]
        assert len(tasks) == len(counts), stratum
        for task, c in zip(tasks, counts, strict=True):
            for trial in range(TRIALS):
                _write(out, task, trial, _episode(task, trial, trial < c, oracle), sha)
    return out


@pytest.fixture(scope="module")
def tau_rec_group(run_dir: Path) -> dict:
    """`evaluator score RUN --json --rules tau-rec`, the one agent's group."""
    args = ["score", str(run_dir), "--suite", SPEC, "--json", "--rules", "tau-rec"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    (group,) = orjson.loads(result.stdout)["groups"]
    return group


def test_the_run_reproduces_the_papers_pass_k_under_tau_rec_rules(tau_rec_group):
    group = tau_rec_group
    assert group["n_tasks"] == 60 and group["n_episodes"] == 240 and group["infra_errors"] == 0
    assert {k: round(group["pass_k"][k], 3) for k in ("1", "2", "4")} == {
        "1": 0.546,
        "2": 0.433,
        "4": 0.333,
    }


def test_the_run_reproduces_the_papers_pass_1_by_reveal_difficulty(tau_rec_group):
    by_reveal = tau_rec_group["by_reveal"]
    assert {k: round(v, 3) for k, v in by_reveal.items()} == {
        "hidden": 0.2,
        "mixed": 0.586,
        "volunteer": 0.846,
    }


def test_a_missing_trial_scores_its_task_0_at_k_4_under_tau_rec_rules(run_dir, tmp_path):
    """τ-Rec's aggregate_pass_k keeps a task short of k trials in the mean with 0: a task
    that never passed losing one trial leaves pass^4 at 20/60 (not 20/59), and the report
    says which rule it applied."""
    import shutil

    short = tmp_path / "short"
    shutil.copytree(run_dir, short)
    suite = load_suite(SPEC)
    hidden = [t for t in suite.tasks if t.stratum[1].value == "hidden"]
    victim = hidden[-1]  # COUNTS["hidden"] ends with tasks that never pass
    (short / victim.id / f"trial{TRIALS - 1}.jsonl").unlink()
    args = ["score", str(short), "--suite", SPEC, "--json", "--rules", "tau-rec"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    (group,) = orjson.loads(result.stdout)["groups"]
    assert round(group["pass_k"]["4"], 4) == 0.3333
    assert group["tasks_short_of_k"] == {"4": [victim.id]}
    assert "scores 0" in group["pass_k_rule"]
    table = CliRunner().invoke(app, ["score", str(short), "--suite", SPEC, "--rules", "tau-rec"])
    assert "scored 0 in pass^k" in table.stdout
