"""The simulated users a server can play, by name (`ServerSettings.simulator`), and the
reader of agent messages' dialogue acts. Adding a simulator is one entry in
`SIMULATORS`."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from taurec.catalog.store import Catalog
from taurec.server.recommendation.episodes import SimulatorFactory
from taurec.server.recommendation.simulator import DEFAULT_PATIENCE, RuleBasedUser, UserSimulator
from taurec.server.recommendation.simulator.agent_nlu import AgentActReader, AgentNLU
from taurec.server.recommendation.simulator.nlu import MessageReader
from taurec.server.settings import ServerSettings

if TYPE_CHECKING:
    from taurec.server.recommendation.simulator.transitions import TransitionMatrices
from taurec.tasks.recommendation.task import RecommendationTask


def rule_users(
    catalog: Catalog, patience: int | None, reader: MessageReader | None = None
) -> SimulatorFactory:
    """The deterministic rule-based user (the default). One NLU index serves every episode:
    building it reads every title, and reading with it is pure."""
    reader = reader or MessageReader(catalog.items)
    patience = patience or DEFAULT_PATIENCE

    def make(task: RecommendationTask, catalog: Catalog, seed: int) -> UserSimulator:
        return RuleBasedUser(task, catalog, seed, patience=patience, reader=reader)

    return make


def _rule_simulator(
    catalog: Catalog, settings: ServerSettings, reader: MessageReader
) -> tuple[SimulatorFactory, dict[str, Any]]:
    patience = settings.patience or DEFAULT_PATIENCE
    return rule_users(catalog, patience, reader), {"patience": patience}


def _transitions(settings: ServerSettings, record: dict[str, Any]) -> TransitionMatrices | None:
    """The transition matrices of the agenda users' sampled case, from
    `settings.agenda_dialogues` (None without them); their source goes in `record`."""
    if settings.agenda_dialogues is None:
        return None
    from taurec.server.recommendation.simulator.transitions import transition_matrices
    from taurec.tasks.dialogues.reading import read_annotated_dialogues

    dialogues = read_annotated_dialogues(settings.agenda_dialogues)
    transitions = transition_matrices(dialogues)
    record["transitions"] = {
        "source": str(settings.agenda_dialogues),
        "dialogues": len(dialogues),
        "transitions": transitions.transitions,
    }
    return transitions


def _simulator_nlu(
    catalog: Catalog, settings: ServerSettings, reader: MessageReader
) -> AgentActReader | None:
    """The agenda users' own reading of agent messages: the LLM NLU with --nlu-model
    (as UserSimCRS's users read with an LLM), else their deterministic one (None)."""
    return agent_nlu(catalog, settings, reader) if settings.nlu_model is not None else None


def _agenda_simulator(
    catalog: Catalog, settings: ServerSettings, reader: MessageReader
) -> tuple[SimulatorFactory, dict[str, Any]]:
    from taurec.server.recommendation.simulator.agenda_user import AGENDA_PATIENCE, agenda_users

    patience = settings.patience or AGENDA_PATIENCE
    record: dict[str, Any] = {"patience": patience}
    transitions = _transitions(settings, record)
    return agenda_users(
        catalog, patience, reader, transitions, _simulator_nlu(catalog, settings, reader)
    ), record


def _abus_simulator(
    catalog: Catalog, settings: ServerSettings, reader: MessageReader
) -> tuple[SimulatorFactory, dict[str, Any]]:
    from taurec.server.recommendation.simulator.abus import abus_users
    from taurec.server.recommendation.simulator.intent_schema import IntentSchema

    schema = IntentSchema.load(settings.abus_schema)
    record: dict[str, Any] = {"schema": schema.name, "slot_values": settings.abus_slot_values}
    transitions = _transitions(settings, record)
    nlu = _simulator_nlu(catalog, settings, reader)
    users = abus_users(
        catalog, reader, transitions, schema, nlu, slot_values=settings.abus_slot_values
    )
    return users, record


def _llm_simulator(
    catalog: Catalog, settings: ServerSettings, reader: MessageReader
) -> tuple[SimulatorFactory, dict[str, Any]]:
    return llm_users(catalog, settings)


#: settings.simulator -> (catalog, settings, shared title reader) -> (factory, header record)
SIMULATORS: dict[
    str,
    Callable[[Catalog, ServerSettings, MessageReader], tuple[SimulatorFactory, dict[str, Any]]],
] = {
    "rule": _rule_simulator,
    "abus": _abus_simulator,
    "agenda-requests": _agenda_simulator,
    "llm": _llm_simulator,
    "llm-sp": lambda catalog, settings, reader: _deciding_llm(catalog, settings, "single"),
    "llm-dp": lambda catalog, settings, reader: _deciding_llm(catalog, settings, "dual"),
}


def _mocked(model: str, catalog: Catalog | None, reader: MessageReader | None) -> dict[str, Any]:
    """The LLMUserSettings fields that answer `model` "mock" offline (llm_mock.py): its
    titles read over `catalog` (None: it needs none)."""
    from taurec.server.recommendation.simulator.llm_mock import MockModel, acts_line, is_mock

    if not is_mock(model):
        return {}
    if catalog is None:  # nothing cached: the mock answers at once, and a change to it shows
        return {"completion": MockModel(lambda text: []), "cache_dir": None}
    titles = reader or MessageReader(catalog.items)
    nlu = AgentNLU(catalog, titles)

    def title_of(item_id: str) -> str | None:
        item = catalog.get(item_id)
        return None if item is None else item.title

    return {
        "completion": MockModel(
            lambda text: [ref.title for ref in titles.titles(text)],
            lambda text: acts_line(nlu.acts(text), title_of),
        ),
        "cache_dir": None,
    }


def llm_users(
    catalog: Catalog, settings: ServerSettings
) -> tuple[SimulatorFactory, dict[str, Any]]:
    """The LLM-simulated user (imported on use: it pulls in litellm) and its settings
    record for log headers."""
    from taurec.server.recommendation.simulator.llm_user import LLMUserSettings
    from taurec.server.recommendation.simulator.llm_user import llm_users as make_llm_users

    assert settings.simulator_model is not None
    llm = LLMUserSettings(
        model=settings.simulator_model,
        patience=settings.patience,
        **_mocked(settings.simulator_model, catalog, None),
    )
    return make_llm_users(catalog, llm), llm.record()


def _deciding_llm(
    catalog: Catalog, settings: ServerSettings, variant: str
) -> tuple[SimulatorFactory, dict[str, Any]]:
    """UserSimCRS's LLM users (imported on use: they pull in litellm), deciding alone."""
    from taurec.server.recommendation.simulator.llm_client import LLMUserSettings
    from taurec.server.recommendation.simulator.llm_sp_dp import TEMPERATURE, deciding_llm_users

    assert settings.simulator_model is not None
    llm = LLMUserSettings(
        model=settings.simulator_model,
        variant=variant,
        temperature=TEMPERATURE,
        acts="classifier",
        **_mocked(settings.simulator_model, catalog, None),
    )
    return deciding_llm_users(catalog, llm), llm.record()


def worded(
    make_user: SimulatorFactory, record: dict[str, Any], settings: ServerSettings
) -> tuple[SimulatorFactory, dict[str, Any]]:
    """The simulator's users with their words from `settings.nlg_model` (an LLM NLG)."""
    from taurec.server.recommendation.simulator.llm_client import LLMUserSettings
    from taurec.server.recommendation.simulator.llm_nlg import llm_worded

    assert settings.nlg_model is not None
    llm = LLMUserSettings(
        model=settings.nlg_model, temperature=0.7, **_mocked(settings.nlg_model, None, None)
    )
    return llm_worded(make_user, llm), {**record, "nlg": llm.record()}


def agent_nlu(
    catalog: Catalog, settings: ServerSettings, reader: MessageReader | None
) -> AgentActReader:
    """The reader of agent messages' acts: the deterministic NLU, or the LLM NLU."""
    if settings.nlu_model is None:
        return AgentNLU(catalog, reader)
    from taurec.server.recommendation.simulator.llm_acts import LLMAgentNLU
    from taurec.server.recommendation.simulator.llm_user import LLMUserSettings

    titles = reader or MessageReader(catalog.items)
    llm = LLMUserSettings(
        model=settings.nlu_model, temperature=0.0, **_mocked(settings.nlu_model, catalog, titles)
    )
    return LLMAgentNLU(catalog, llm, titles)
