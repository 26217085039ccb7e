"""Kind registries: registration, lookup, clear errors, and the kinds each layer knows."""

import pytest

from taurec.clients.agents.registry import AGENT_KINDS
from taurec.evaluator.kinds import EVALUATOR_KINDS
from taurec.server.kinds import SERVER_KINDS
from taurec.tasks.kinds import TASK_KINDS, KindRegistry, UnknownKind
from taurec.tasks.recommendation.task import RecommendationTask


def test_registered_entry_is_found_by_its_kind():
    registry: KindRegistry[int] = KindRegistry("test layer", ())
    registry.register("alpha")(1)
    assert registry.get("alpha") == 1
    assert registry.names() == ("alpha",)


def test_unknown_kind_names_the_layer_and_the_known_kinds():
    registry: KindRegistry[int] = KindRegistry("test layer", ())
    registry.register("alpha")(1)
    with pytest.raises(
        UnknownKind, match=r"unknown task kind 'beta' for the test layer; expected one of alpha"
    ):
        registry.get("beta")


def test_registering_another_entry_under_a_taken_kind_is_refused():
    registry: KindRegistry[int] = KindRegistry("test layer", ())
    registry.register("alpha")(1)
    with pytest.raises(ValueError, match="registered twice"):
        registry.register("alpha")(2)


def test_modules_listed_by_a_registry_are_imported_on_first_lookup():
    registry: KindRegistry[object] = KindRegistry(
        "test layer", ("taurec.tasks.recommendation.task",)
    )
    with pytest.raises(UnknownKind):
        registry.get("nothing")  # loading the module registers nothing here, and says so


def test_recommendation_kind_is_registered_in_every_layer():
    assert TASK_KINDS.get("recommendation").model is RecommendationTask
    for registry in (TASK_KINDS, SERVER_KINDS, EVALUATOR_KINDS, AGENT_KINDS):
        assert "recommendation" in registry.names()
