"""The answer key of a live task is withheld: a task's hidden constraints (and every other
answer) appear in the viewer only once none of its episodes is live, or with --show-hidden."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.logs import Resolver
from taurec.evaluator.viewer.answers import WITHHELD, is_live, withhold_detail
from taurec.evaluator.viewer.data import LogSet
from taurec.tasks.suite import load_suite

HIDDEN = {"field": "runtime", "op": "<=", "value": 95, "reveal": "hidden"}


@pytest.fixture
def suite_dir(suite_dir: Path) -> Path:
    """The evaluator's tiny suite, with a hidden `runtime <= 95` on task ta."""
    path = suite_dir / "tasks" / "ta.json"
    record = orjson.loads(path.read_bytes())
    record["constraints"].append(HIDDEN)
    path.write_bytes(orjson.dumps(record))
    return suite_dir


def _logset(logs, *, show_hidden: bool = False) -> LogSet:
    view = LogSet([logs.out], Resolver(suite=logs.spec), show_hidden=show_hidden)
    view.refresh(force=True)
    return view


def _hidden_text(logs) -> str:
    task = load_suite(logs.spec).get("ta")
    assert task is not None
    (text,) = [c.text for c in task.constraints if c.reveal == "hidden"]
    return text


def _live(logs, task_id: str, trial: int) -> Path:
    """An episode still being played: its log has no end record yet."""
    path = logs.episode(task_id, trial, item="h1")
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:-1]))
    return path


def _shown(view: LogSet, task_id: str) -> str:
    """The list row and the detail of every episode of `task_id`, as the page gets them."""
    rows = [r for r in view.rows if r["task"] == task_id]
    return orjson.dumps([rows, [view.detail(r["key"]) for r in rows]]).decode()


def test_an_ended_episode_of_a_task_with_a_live_episode_hides_its_constraints(logs):
    logs.episode("ta", 0, item="h1")  # ended, failed on the hidden runtime <= 95
    _live(logs, "ta", 1)
    shown = _shown(_logset(logs), "ta")
    assert _hidden_text(logs) not in shown and "runtime" not in shown
    assert WITHHELD in shown


def test_once_every_episode_of_the_task_has_ended_its_hidden_constraints_show(logs):
    logs.episode("ta", 0, item="h1")
    _live(logs, "ta", 1)
    view = _logset(logs)
    assert _hidden_text(logs) not in _shown(view, "ta")
    logs.episode("ta", 1, item="h1")  # the live episode ends
    view.refresh(force=True)
    shown = _shown(view, "ta")
    assert _hidden_text(logs) in shown and WITHHELD not in shown


def test_show_hidden_shows_the_constraints_of_a_live_task(logs):
    logs.episode("ta", 0, item="h1")
    _live(logs, "ta", 1)
    shown = _shown(_logset(logs, show_hidden=True), "ta")
    assert _hidden_text(logs) in shown and WITHHELD not in shown


def test_a_live_task_leaves_the_other_tasks_shown(logs):
    logs.run({"ta": 0, "tb": 0}, trials=1)
    _live(logs, "ta", 1)
    view = _logset(logs)
    (tb,) = [r for r in view.rows if r["task"] == "tb"]
    assert tb["failed_constraints"] and "withheld" not in tb
    detail = view.detail(tb["key"])
    assert detail is not None and detail["verdicts"]["constraints"]


def test_the_list_row_of_a_live_task_keeps_pass_fail_and_drops_the_answer(logs):
    logs.episode("ta", 0, item="h1")
    _live(logs, "ta", 1)
    row = next(r for r in _logset(logs).rows if r["task"] == "ta" and r["trial"] == 0)
    assert row["passed"] is False and row["failed_constraints"] == [] and row["metrics"] == {}


def _score(**kw) -> EpisodeScore:
    base = dict(path="x", label="a", task_id="t", trial=0, end_reason="x", outcome="none")
    return EpisodeScore(item_id=None, **{**base, **kw})


def test_planned_episodes_not_yet_played_or_ended_are_live():
    assert is_live(_score(sealed_failure="never started"))
    assert is_live(_score(sealed_failure="not ended: no end in the register"))
    assert is_live(_score(problems=["x.jsonl: no end record: the episode did not finish"]))
    assert not is_live(_score(sealed_failure="log differs: not the log the server recorded"))
    assert not is_live(_score())


def test_a_withheld_episode_has_no_ranking_positive_pair_answer_or_stream():
    doc = {
        "row": {},
        "verdicts": {"constraints": [{"text": "x"}], "metrics": [{"name": "ndcg"}]},
        "ranking": {"positive": "i9"},
        "ppr": {"answer": "a"},
        "stream": [{"regret": 1.0}],
    }
    withheld = withhold_detail(doc)
    assert withheld["ranking"] is None and withheld["ppr"] is None
    assert withheld["stream"] is None
    assert withheld["verdicts"]["constraints"] == withheld["verdicts"]["metrics"] == []
