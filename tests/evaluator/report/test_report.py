"""`evaluator report`: one self-contained HTML file, with the sections the logs have data
for, the numbers in tables beside the plots, every label escaped, and one-line errors."""

from __future__ import annotations

import math
import sys
import types
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from taurec.evaluator.aggregate import aggregate
from taurec.evaluator.cli.main import app
from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.judge.signature import sign
from taurec.evaluator.report.build import render_report
from taurec.evaluator.report.cost import pareto_front
from taurec.evaluator.report.data import load_judgements
from taurec.tasks.trajectory.signing import load_log_key
from tests.support.report_runs import ranking_run, recommendation_run, stream_run

runner = CliRunner()


class Page(HTMLParser):
    """The parts of a page the tests look at: sections, external references, tables."""

    def __init__(self, source: str) -> None:
        super().__init__()
        self.sections: list[str] = []
        self.external: list[str] = []
        self.tables: dict[str, list[list[str]]] = {}
        self.figures = 0
        self._caption: str | None = None
        self._text: list[str] | None = None
        self.feed(source)

    @property
    def cells(self) -> list[str]:
        return [c for rows in self.tables.values() for row in rows for c in row]

    def row(self, caption: str, *first: str) -> list[str]:
        """The row of table `caption` whose first cells are `first`."""
        found = [r for r in self.tables[caption] if r[: len(first)] == list(first)]
        assert len(found) == 1, (caption, first, self.tables[caption])
        return found[0]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "section" and a.get("id"):
            self.sections.append(str(a["id"]))
        for name in ("src", "href"):
            value = (a.get(name) or "").strip().lower()
            if value.startswith(("http:", "https:", "//")):
                self.external.append(f"<{tag} {name}={value}>")
        if tag == "div" and "plotly-graph-div" in (a.get("class") or ""):
            self.figures += 1
        if tag in ("caption", "td"):
            self._text = []
        if tag == "tr" and self._caption is not None:
            self.tables[self._caption].append([])

    def handle_endtag(self, tag: str) -> None:
        if tag == "caption" and self._text is not None:
            self._caption = "".join(self._text)
            self.tables[self._caption] = []
        elif tag == "td" and self._text is not None and self._caption is not None:
            self.tables[self._caption][-1].append("".join(self._text))
        elif tag == "table":
            if self._caption is not None:  # drop the header row
                self.tables[self._caption] = [r for r in self.tables[self._caption] if r]
            self._caption = None
        if tag in ("caption", "td"):
            self._text = None

    def handle_data(self, data: str) -> None:
        if self._text is not None:
            self._text.append(data)


def _report(tmp_path: Path, *logdirs: Path, extra: tuple[str, ...] = ()) -> tuple[str, Page]:
    out = tmp_path / "report.html"
    result = runner.invoke(app, ["report", *map(str, logdirs), "-o", str(out), *extra])
    assert result.exit_code == 0, result.output
    source = out.read_text(encoding="utf-8")
    return source, Page(source)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("runs")
    return {
        "recommendation": recommendation_run(root / "recommendation"),
        "ranking": ranking_run(root / "ranking"),
        "stream": stream_run(root / "stream"),
    }


def test_a_recommendation_run_gets_the_pass_rate_sections(runs, tmp_path):
    _, page = _report(tmp_path, runs["recommendation"])
    # the simulated user logs dialogue acts, so the dialogue metrics have a section too
    for section in ("runs", "reliability", "strata", "policies", "failures", "dialogue"):
        assert section in page.sections, section
    for section in ("cost", "judge", "ranking", "streams"):
        assert section not in page.sections, section
    assert page.figures >= 4


def test_a_ranking_run_gets_the_ranking_metrics_and_its_cliff(runs, tmp_path):
    _, page = _report(tmp_path, runs["ranking"])
    assert "ranking" in page.sections and "reliability" in page.sections
    assert "strata" not in page.sections and "streams" not in page.sections
    for metric in ("hit@1", "hit@5", "ndcg@5", "hit@10", "ndcg@10", "reward"):
        assert page.row("Ranking metrics", "popularity", metric)


def test_a_stream_run_gets_learning_curves_and_no_pass_rate_plots(runs, tmp_path):
    _, page = _report(tmp_path, runs["stream"])
    assert "streams" in page.sections
    assert "reliability" not in page.sections and "strata" not in page.sections


def test_one_report_covers_runs_of_every_kind(runs, tmp_path):
    _, page = _report(tmp_path, *runs.values())
    for section in ("runs", "reliability", "strata", "ranking", "streams"):
        assert section in page.sections, section
    assert {"scripted", "random", "popularity", "learner"} <= set(page.cells)


def test_the_page_references_nothing_outside_itself(runs, tmp_path):
    source, page = _report(tmp_path, *runs.values())
    assert page.external == []
    assert "plotly.js v" in source  # the library itself is inlined
    assert "cdn." not in source.split("plotly.js v", 1)[0]


def test_the_pass_k_table_holds_the_values_as_the_terminal_shows_them(logs, tmp_path):
    logs.run({"ta": 4, "tb": 2, "tc": 1}, trials=4)
    _, page = _report(tmp_path, logs.out, extra=("--suite", logs.spec))
    # pass^1 = 7/12; pass^4 = 1/3 (only ta passes all four)
    assert page.row("pass^k by k", "agentA", "1")[2] == "58.3%"
    assert page.row("pass^k by k", "agentA", "4")[2] == "33.3%"


def _with_usage(path: Path, tokens: int) -> None:
    lines = [orjson.loads(line) for line in path.read_bytes().splitlines()]
    lines[-1]["usage"] = {"prompt_tokens": tokens, "completion_tokens": 0}
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in lines))


def test_tokens_against_pass_1_marks_the_series_no_other_beats(logs, tmp_path):
    logs.run({"ta": 1, "tb": 1, "tc": 1}, trials=1, label="cheap-good")
    logs.run({"ta": 0, "tb": 0, "tc": 0}, trials=1, label="dear-bad")
    for label, tokens in (("cheap-good", 10), ("dear-bad", 1000)):
        for path in (logs.out / label).glob("*.jsonl"):
            _with_usage(path, tokens)
    _, page = _report(tmp_path, logs.out, extra=("--suite", logs.spec))
    assert "cost" in page.sections
    # tokens are summed over the run's three episodes
    assert page.row("Cost and pass^1", "cheap-good") == ["cheap-good", "30", "100.0%", "yes"]
    assert page.row("Cost and pass^1", "dear-bad") == ["dear-bad", "3000", "0.0%", "no"]


def test_without_cost_or_tokens_there_is_no_cost_section(logs, tmp_path):
    logs.run({"ta": 1, "tb": 1, "tc": 1}, trials=1)
    _, page = _report(tmp_path, logs.out, extra=("--suite", logs.spec))
    assert "cost" not in page.sections


def test_the_pareto_front_keeps_only_undominated_points():
    points = [(1.0, 0.2), (2.0, 0.5), (3.0, 0.4), (2.0, 0.1), (5.0, 0.9)]
    assert sorted(pareto_front(points)) == [0, 1, 4]


HOSTILE = '<img src=x onerror="alert(1)"></script><b>'


def test_labels_are_escaped_everywhere(logs, tmp_path):
    logs.run({"ta": 1, "tb": 0, "tc": 1}, trials=2, label=HOSTILE)
    source, page = _report(tmp_path, logs.out, extra=("--suite", logs.spec))
    assert HOSTILE not in source
    assert "<img" not in source and "<b>" not in source
    assert HOSTILE in page.cells  # shown as text


def _score(label: str, task: str, episode: str, **metrics: float) -> EpisodeScore:
    return EpisodeScore(
        path=f"{episode}.jsonl",
        label=label,
        task_id=task,
        trial=0,
        end_reason="recommended",
        outcome="item",
        item_id="i1",
        reward=1.0,
        constraint_score=1.0,
        policy_score=1.0,
        complexity="simple",
        reveal="volunteer",
        episode_id=episode,
        metrics=dict(metrics),
    )


def _render(scores: list[EpisodeScore], judgements: dict[str, Any]) -> Page:
    source = render_report(aggregate(scores), scores, judgements, title="t", sources=["x"])
    return Page(source)


def test_dialogue_metrics_appear_when_episodes_carry_them():
    scores = [
        _score("a", "t1", "e1", sr=1.0, srrr=0.5, rdl=0.8, utterances=6.0),
        _score("a", "t2", "e2", sr=0.0, srrr=0.25, rdl=1.2, utterances=10.0),
    ]
    page = _render(scores, {})
    assert "dialogue" in page.sections
    assert page.row("Dialogue metrics", "a", "srrr") == ["a", "srrr", "37.5%", "12.5%", "2"]


def test_no_dialogue_section_without_dialogue_metrics():
    assert "dialogue" not in _render([_score("a", "t1", "e1")], {}).sections


class _Judged:
    """A JudgeScore as contract C defines it."""

    def __init__(self, mean: float, failures: int = 0) -> None:
        self.mean, self.spread, self.failures, self.model = mean, 0.0, failures, "m"
        self.samples = [mean]


def test_judge_scores_are_averaged_per_aspect_with_unscored_samples_counted():
    scores = [_score("a", "t1", "e1"), _score("a", "t2", "e2")]
    judgements = {
        "e1": {"fluency": _Judged(4.0), "overall_sat": _Judged(math.nan, failures=3)},
        "e2": {"fluency": _Judged(2.0), "overall_sat": _Judged(5.0)},
    }
    page = _render(scores, judgements)
    assert "judge" in page.sections
    assert page.row("Judge scores", "a", "fluency") == ["a", "fluency", "3", "1", "2", "0", "m"]
    assert page.row("Judge scores", "a", "overall_sat") == [
        *("a", "overall_sat", "5", "0", "1", "3", "m")
    ]


def test_judgements_come_from_the_judge_store_beside_the_logs(monkeypatch, tmp_path):
    seen: list[Path] = []

    def read(logdir: Path) -> Any:
        seen.append(logdir)
        return types.SimpleNamespace(scores={"e1": {"fluency": _Judged(3.0)}}, skipped=[])

    store = types.ModuleType("taurec.evaluator.judge.store")
    store.read_judgements = read  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "taurec.evaluator.judge.store", store)
    assert load_judgements([tmp_path])["e1"]["fluency"].mean == 3.0
    assert seen == [tmp_path]


def test_a_judge_file_on_disk_reaches_the_report(logs, tmp_path):
    logs.run({"ta": 1, "tb": 1, "tc": 1}, trials=1)
    episode = {"fluency": {"mean": 4.0, "spread": 0.0, "samples": [4.0], "failures": 0}}
    doc = {
        "format": "taurec-judge",
        "format_version": 1,
        "model": "m",
        "settings": {},
        "episodes": {"agentA-ta-0": {name: {**v, "model": "m"} for name, v in episode.items()}},
        "calls": {},
    }
    (logs.out / "judge").mkdir()
    signed = sign(doc, load_log_key(create=True))  # as `evaluator judge` writes it
    (logs.out / "judge" / "m.judge.json").write_bytes(orjson.dumps(signed))
    _, page = _report(tmp_path, logs.out, extra=("--suite", logs.spec))
    assert "judge" in page.sections


def test_no_logs_is_a_one_line_error_with_exit_2(tmp_path):
    (tmp_path / "empty").mkdir()
    result = runner.invoke(app, ["report", str(tmp_path / "empty"), "-o", str(tmp_path / "r.html")])
    assert result.exit_code == 2
    assert result.stderr.strip().count("\n") == 0 and "no episode logs" in result.stderr
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize(
    ("target", "why"),
    [("folder", "is a folder"), ("missing/r.html", "no folder")],
)
def test_an_unwritable_output_is_a_one_line_error_with_exit_2(logs, tmp_path, target, why):
    logs.run({"ta": 1, "tb": 1, "tc": 1}, trials=1)
    (tmp_path / "folder").mkdir()
    result = runner.invoke(app, ["report", str(logs.out), "-o", str(tmp_path / target)])
    assert result.exit_code == 2
    assert result.stderr.strip().count("\n") == 0 and why in result.stderr


def test_a_missing_log_path_is_a_one_line_error_with_exit_2(tmp_path):
    result = runner.invoke(app, ["report", str(tmp_path / "nope"), "-o", str(tmp_path / "r.html")])
    assert result.exit_code == 2 and result.stderr.strip().count("\n") == 0


@dataclass
class _Fault:
    """A SimulatorFault as contract B defines it."""

    kind: str
    seq: int
    detail: str


def test_simulator_faults_are_counted_per_simulator():
    scores = [_score("a", "t1", "e1"), _score("a", "t2", "e2"), _score("a", "t3", "e3")]
    for s, faults in zip(scores, ([_Fault("stated_hidden", 3, "x")], [], []), strict=True):
        s.simulator = "llm-user"  # type: ignore[attr-defined]
        s.simulator_faults = faults  # type: ignore[attr-defined]
    page = _render(scores, {})
    assert "simulator-faults" in page.sections
    assert page.row("Fault rate by simulator", "llm-user")[1:3] == ["3", "1"]
    assert page.row("Faults by kind", "llm-user") == ["llm-user", "stated_hidden", "1"]


def test_no_simulator_fault_section_without_faults():
    assert "simulator-faults" not in _render([_score("a", "t1", "e1")], {}).sections


def test_failed_episodes_are_listed_from_the_episode_rows(monkeypatch):
    def rows(scores: list[EpisodeScore]) -> list[dict[str, Any]]:
        return [
            {
                "label": s.label,
                "task": s.task_id,
                "trial": s.trial,
                "failed_policies": ["p1"],
                "result": "pass" if s.passed else "fail",
            }
            for s in scores
        ]

    module = types.ModuleType("taurec.evaluator.episodes.rows")
    module.episode_rows = rows  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "taurec.evaluator.episodes.rows", module)
    failed = _score("a", "t2", "e2")
    failed.reward = 0.0
    page = _render([_score("a", "t1", "e1"), failed], {})
    assert "failed-episodes" in page.sections
    assert [r[:3] for r in page.tables["Failed episodes"]] == [["a", "t2", "0"]]
    assert page.row("Failed episodes", "a")[6] == "p1"


def test_backticked_words_in_a_section_intro_are_set_as_code() -> None:
    from taurec.evaluator.report.page import prose

    assert prose("run `evaluator explain <LOG>` now") == (
        "run <code>evaluator explain &lt;LOG&gt;</code> now"
    )
