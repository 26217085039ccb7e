"""Fixtures over the shared five-item catalog and episode builder (tests/support)."""

from __future__ import annotations

import pytest
from support.episodes import Episode, context, make_task, small_catalog

from taurec.catalog.store import Catalog
from taurec.policies.checks import CheckContext
from taurec.tasks.recommendation.task import RecommendationTask
from taurec.tasks.trajectory.format import Trajectory


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return small_catalog()


@pytest.fixture
def ep() -> Episode:
    return Episode()


@pytest.fixture
def task_factory():
    return make_task


@pytest.fixture
def ctx_for(catalog: Catalog):
    def build(task: RecommendationTask, trajectory: Trajectory) -> CheckContext:
        return context(task, trajectory, catalog)

    return build
