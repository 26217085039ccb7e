"""Kind registries: registration, lookup, clear errors, and the kinds each layer knows."""

import threading

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


def test_two_threads_first_lookups_both_find_what_the_modules_register(tmp_path, monkeypatch):
    (tmp_path / "race_registry.py").write_text(
        "from taurec.tasks.kinds import KindRegistry\n"
        "REGISTRY = KindRegistry('race layer', ('race_entries',))\n"
    )
    (tmp_path / "race_entries.py").write_text(
        "import time\nimport race_registry\n"
        "time.sleep(0.3)  # a slow import: the other thread looks up meanwhile\n"
        "race_registry.REGISTRY.register('slow')(1)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    import race_registry

    found: list[object] = []

    def look_up() -> None:
        try:
            found.append(race_registry.REGISTRY.get("slow"))
        except UnknownKind as exc:
            found.append(exc)

    threads = [threading.Thread(target=look_up) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert found == [1, 1]
