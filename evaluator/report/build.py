"""`evaluator report`: one self-contained HTML file of plots and tables over scored logs.

The sections are built in the order of SECTIONS; a builder that finds nothing to show
(no ranking runs, no judge scores, ...) leaves its section out. Plotly is imported here
and by the section modules only, so it loads when a report is written and never at
`evaluator --help`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.report.cost import cost_pareto
from taurec.evaluator.report.data import Judgements, ReportData, report_data
from taurec.evaluator.report.episode_sections import failed_episodes, simulator_faults
from taurec.evaluator.report.kind_sections import (
    dialogue_metrics,
    judge_scores,
    ranking_metrics,
)
from taurec.evaluator.report.links import EpisodeLinks
from taurec.evaluator.report.page import Section, render_page
from taurec.evaluator.report.plots import points
from taurec.evaluator.report.sections import (
    failure_modes,
    overview,
    policy_violations,
    reliability_cliff,
    strata,
)
from taurec.evaluator.report.streams import learning_curves

SectionBuilder = Callable[[ReportData], Section | None]

#: the report's sections, in page order
SECTIONS: tuple[SectionBuilder, ...] = (
    overview,
    reliability_cliff,
    cost_pareto,
    strata,
    policy_violations,
    failure_modes,
    dialogue_metrics,
    simulator_faults,
    judge_scores,
    ranking_metrics,
    learning_curves,
    failed_episodes,
)


def build_sections(data: ReportData) -> list[Section]:
    """The sections with something to show; a plot of fewer than two points is left out
    (its table holds the number)."""
    sections = [s for s in (build(data) for build in SECTIONS) if s is not None]
    for s in sections:
        s.figures = [f for f in s.figures if points(f) > 1]
    return sections


def render_report(
    groups: list[dict[str, Any]],
    scores: Sequence[EpisodeScore],
    judgements: Judgements,
    *,
    title: str,
    sources: Sequence[str],
    links: EpisodeLinks | None = None,
) -> str:
    """The report's HTML for the groups `aggregate` made of `scores`; `links`: where each
    failed episode links to (its log or its viewer page), None for no links."""
    data = report_data(groups, scores, judgements, links)
    return render_page(title, sources, build_sections(data))
