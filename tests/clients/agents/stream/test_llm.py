"""The LLM stream agent follows BIEL's protocol (models mocked): its prompts per context
mode and setting, the forced recommendation, planning episodes with hidden interim picks,
stated confidences, BIEL's temperatures, and the provider errors it stops on."""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass, field
from typing import Any

import pytest
from support.streams import make_stream

from taurec.clients.agents.base import AgentInfraError, ProviderRefused
from taurec.clients.agents.stream.llm import LLMStreamPolicy, StreamLLMOptions
from taurec.clients.agents.stream.llm_client import LLMClient
from taurec.clients.agents.stream.play import LocalStreamPort, play_stream
from taurec.tasks.stream.session import StreamSession
from taurec.tasks.stream.task import StreamSetting, StreamTask

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
import litellm

CONFIDENCE = (
    "CONFIDENCE_FAVORITE: 0.4\nCONFIDENCE_TOP5: 0.8\nPREDICTED_REGRET: 12.5\n"
    "CONFIDENCE_REGRET_WITHIN_5: 0.3\nCONFIDENCE_REGRET_WITHIN_10: 0.5\n"
    "CONFIDENCE_REGRET_WITHIN_20: 0.7\nCONFIDENCE_REGRET_WITHIN_30: 0.9"
)


@dataclass
class Model:
    """A scripted model behind litellm's mock_response. `script` holds (marker, reply):
    a prompt is answered by the first marker it holds ("" matches any prompt); a marker
    with several replies gives them in turn, its last one repeating."""

    script: list[tuple[str, str]]
    calls: list[tuple[str, float]] = field(default_factory=list)  # (prompt, temperature)

    async def __call__(self, **kwargs: Any) -> Any:
        prompt = kwargs["messages"][-1]["content"]
        self.calls.append((prompt, kwargs["temperature"]))
        marker = next(m for m, _ in self.script if m in prompt)
        mine = [n for n, (m, _) in enumerate(self.script) if m == marker]
        text = self.script.pop(mine[0])[1] if len(mine) > 1 else self.script[mine[0]][1]
        return await litellm.acompletion(
            model="openai/mock", messages=kwargs["messages"], mock_response=text
        )

    def prompts(self, marker: str) -> list[str]:
        return [p for p, _ in self.calls if marker in p]


def play(
    task: StreamTask, model: Model, options: StreamLLMOptions | None = None, **kw: Any
) -> StreamSession:
    session = StreamSession(task, seed=0)
    policy = LLMStreamPolicy("openai/mock", options=options, completion=model, **kw)
    view = session.view().model_dump(mode="json")
    asyncio.run(play_stream(LocalStreamPort(session), view, policy))
    return session


DECISION, FORCED = "=== CRITICAL: OUTPUT FORMAT ===", "You have gathered sufficient information"
QUESTION_ONLY, CONFIDENT = "Your question:", "CONFIDENCE_FAVORITE:"
SUMMARY = "Write only the summary"


def test_it_asks_then_recommends_the_item_it_names_at_biels_temperature() -> None:
    task = make_stream(episodes=1)
    target = task.episodes[0].item_ids[5]
    model = Model([("", "QUESTION: Do you like comedy?"), ("", f"RECOMMEND: {target}")])
    session = play(task, model)
    assert session.chosen == [target] and session.asked == [1]
    first, second = (p for p, _ in model.calls)
    assert "SESSION: Customer #1 | Episode 1 |" in first and "No questions asked yet." in first
    assert f"Product ID {target}: Price:" in first
    assert "Q1: Do you like comedy?\nA1: " in second
    assert {t for _, t in model.calls} == {0.4}


def test_an_id_outside_the_set_is_sent_as_written_and_counts_as_a_question() -> None:
    task = make_stream(episodes=1)
    target = task.episodes[0].item_ids[2]
    model = Model([("", "RECOMMEND: 99999"), ("", f"RECOMMEND: {target}")])
    session = play(task, model)
    assert session.chosen == [target] and session.asked == [1]
    assert "Q1: RECOMMEND: 99999" in model.calls[1][0]


def test_at_the_budget_the_forced_prompt_decides_and_a_parse_failure_gives_the_first_item() -> None:
    task = make_stream(episodes=1).model_copy(update={"question_budget": 1})
    model = Model([(DECISION, "QUESTION: Anything?"), (FORCED, "I cannot decide.")])
    session = play(task, model)
    assert session.chosen == [task.episodes[0].item_ids[0]]
    assert model.calls[-1][1] == 0.2 and FORCED in model.calls[-1][0]


def test_the_forced_prompt_reads_the_id_after_recommend() -> None:
    task = make_stream(episodes=1).model_copy(update={"question_budget": 0})
    target = task.episodes[0].item_ids[7]
    session = play(task, Model([(FORCED, f"**RECOMMEND:** Product ID {target}")]))
    assert session.chosen == [target]


def test_a_decision_that_is_neither_question_nor_recommendation_gives_the_first_item() -> None:
    task = make_stream(episodes=1)
    model = Model([("", "Hmm.")])
    session = play(task, model)
    assert session.chosen == [task.episodes[0].item_ids[0]] and len(model.calls) == 1


def test_a_reply_with_a_question_mark_counts_as_a_question_as_biel_reads_it() -> None:
    task = make_stream(episodes=1)
    target = task.episodes[0].item_ids[1]
    model = Model([("", "Do you like long films?"), ("", f"RECOMMEND: {target}")])
    session = play(task, model)
    assert session.asked == [1] and "Q1: Do you like long films?" in model.calls[1][0]


def two_episodes(setting: StreamSetting = StreamSetting.VARIABLE_CATEGORY) -> StreamTask:
    return make_stream(setting, episodes=2)


def first_then_recommend(task: StreamTask, summary: str = "SUMMARY-TEXT") -> Model:
    return Model(
        [
            (SUMMARY, summary),
            ("No questions asked yet.", "QUESTION: Which genre do you enjoy?"),
            ("", f"RECOMMEND: {task.episodes[0].item_ids[0]}"),
        ]
    )


def second_episode_prompt(model: Model) -> str:
    return model.prompts("Episode 2 |")[0]


def test_raw_context_carries_the_earlier_questions_title_and_feedback() -> None:
    task = two_episodes()
    model = first_then_recommend(task)
    session = play(task, model, StreamLLMOptions(context="raw"))
    prompt = second_episode_prompt(model)
    title = task.item_index[session.chosen[0]].title
    assert "=== WHAT YOU'VE LEARNED ABOUT CUSTOMER #1 ===" in prompt
    assert f"Episode 1 [{task.episodes[0].category_name}]:" in prompt
    assert "  Q1: Which genre do you enjoy?" in prompt and f"  Recommended: {title}" in prompt
    assert "  Customer Feedback: Recommendation feedback: Chosen score:" in prompt
    assert not model.prompts(SUMMARY)


def test_summary_context_carries_the_models_summary_and_not_the_record() -> None:
    task = two_episodes()
    model = first_then_recommend(task)
    play(task, model, StreamLLMOptions(context="summary"))
    prompt = second_episode_prompt(model)
    assert "  SUMMARY-TEXT" in prompt
    assert "Which genre do you enjoy?" not in prompt
    assert "Customer Feedback" not in prompt and "Recommended:" not in prompt
    (summary,) = model.prompts(SUMMARY)
    assert "You just completed Episode 1 in the" in summary and "Customer 1." in summary
    assert "Q1: Which genre do you enjoy?" in summary and "Customer Feedback: Recomm" in summary
    assert "the SAME customer (#1) across DIFFERENT categories" in summary
    assert [t for p, t in model.calls if SUMMARY in p] == [0.3]


def test_the_summary_is_written_once_per_episode_a_later_prompt_reads() -> None:
    task = make_stream(episodes=3)
    model = first_then_recommend(task)
    play(task, model, StreamLLMOptions(context="summary"))
    summaries = model.prompts(SUMMARY)
    assert [s.split(" in the ")[0] for s in summaries] == [
        "You just completed Episode 1",
        "You just completed Episode 2",
    ]


def test_no_context_carries_neither_record_nor_summary() -> None:
    task = two_episodes()
    model = first_then_recommend(task)
    play(task, model, StreamLLMOptions(context="none"))
    prompt = second_episode_prompt(model)
    assert "Episode 1 [" not in prompt and "Customer Feedback" not in prompt
    assert "WHAT YOU'VE LEARNED" not in prompt and not model.prompts(SUMMARY)


@pytest.mark.parametrize(
    ("setting", "header"),
    [
        (StreamSetting.VARIABLE_PERSONA, "=== QUESTIONING STRATEGIES FOR "),
        (StreamSetting.VARIABLE_SETTINGS, "=== PREVIOUS EPISODES ==="),
    ],
)
def test_the_header_of_earlier_episodes_follows_the_setting(
    setting: StreamSetting, header: str
) -> None:
    task = two_episodes(setting)
    model = first_then_recommend(task)
    play(task, model)
    assert header in second_episode_prompt(model)


def planning_task(episodes: int = 2, budget: int = 3) -> StreamTask:
    return make_stream(episodes=episodes).model_copy(update={"question_budget": budget})


def planner(task: StreamTask) -> Model:
    return Model(
        [
            (QUESTION_ONLY, "QUESTION: What do you like"),
            (CONFIDENT, f"RECOMMEND: {task.episodes[0].item_ids[1]}\n{CONFIDENCE}"),
            (DECISION, f"RECOMMEND: {task.episodes[-1].item_ids[0]}"),
        ]
    )


def test_a_planning_episode_asks_the_whole_budget_with_an_interim_pick_after_each() -> None:
    task = planning_task()
    model = planner(task)
    session = play(task, model, StreamLLMOptions(planning="greedy"))
    assert session.asked[0] == 3
    picks = session.picks[0]
    assert [p.final for p in picks] == [False, False, False, True]
    assert [p.questions for p in picks] == [1, 2, 3, 3]
    stated = picks[0].confidence
    assert stated is not None and stated.model_dump() == {
        "favorite": 0.4, "top5": 0.8, "predicted_regret": 12.5,
        "within_5": 0.3, "within_10": 0.5, "within_20": 0.7, "within_30": 0.9,
    }  # fmt: skip
    questions = [p for p in model.prompts(QUESTION_ONLY) if "Episode 1 |" in p]
    assert len(questions) == 3 and all("=== GREEDY STRATEGY ===" in p for p in questions)
    assert {t for p, t in model.calls if QUESTION_ONLY in p} == {0.7}
    assert {t for p, t in model.calls if CONFIDENT in p} == {0.2}


def test_an_episode_between_planning_episodes_is_ordinary() -> None:
    task = planning_task()
    model = planner(task)
    session = play(task, model, StreamLLMOptions(planning="greedy"))
    assert session.asked[1] == 0 and [p.final for p in session.picks[1]] == [True]
    assert session.picks[1][0].confidence is None
    assert not [p for p in model.calls if "Episode 2 |" in p[0] and QUESTION_ONLY in p[0]]


@pytest.mark.parametrize(
    ("planning", "section"),
    [("pomdp", "=== POMDP PLANNING STRATEGY ==="), ("no_strat", None)],
)
def test_the_strategy_section_follows_the_planning_mode(planning: str, section: str | None) -> None:
    task = planning_task(episodes=1, budget=1)
    model = planner(task)
    play(task, model, StreamLLMOptions(planning=planning))
    (question,) = model.prompts(QUESTION_ONLY)
    assert (section in question) if section else ("STRATEGY" not in question)


def test_planning_episodes_are_the_first_and_every_intervalth() -> None:
    options = StreamLLMOptions(planning="no_strat", planning_interval=2)
    assert [options.plans(n) for n in range(1, 7)] == [True, True, False, True, False, True]
    assert not StreamLLMOptions().plans(1)


def test_with_confidence_the_final_pick_states_it() -> None:
    task = make_stream(episodes=1)
    chosen = task.episodes[0].item_ids[4]
    model = Model(
        [
            (DECISION, f"RECOMMEND: {task.episodes[0].item_ids[2]}"),
            (CONFIDENT, f"RECOMMEND: 4\n{CONFIDENCE}"),
        ]
    )
    session = play(task, model, StreamLLMOptions(confidence=True))
    assert session.chosen == [chosen]  # the confidence prompt's pick (BIEL's 0-based index)
    (pick,) = session.picks[0]
    assert pick.confidence is not None and pick.confidence.favorite == 0.4


def test_a_temperature_the_user_sets_replaces_biels() -> None:
    task = make_stream(episodes=1).model_copy(update={"question_budget": 1})
    model = Model([(DECISION, "QUESTION: Anything?"), (FORCED, "RECOMMEND: x")])
    play(task, model, temperature=0.9)
    assert [t for _, t in model.calls] == [0.9, 0.9]


class Usage:
    def __init__(self) -> None:
        self.tokens: list[tuple[int, int]] = []
        self.logged: list[dict[str, Any]] = []

    def add_usage(
        self, prompt_tokens: int, completion_tokens: int, cost_usd: float | None = None
    ) -> None:  # the signature of Episode.add_usage
        self.tokens.append((prompt_tokens, completion_tokens))

    def log_model_call(self, **fields: Any) -> None:  # as Episode.log_model_call
        self.logged.append(fields)


def test_the_mock_model_answers_through_litellm_and_its_usage_is_reported() -> None:
    episode = Usage()
    client = LLMClient("mock", episode)  # type: ignore[arg-type]
    prompt = "Product ID a1: Price: not listed\nNo questions asked yet.\nRECOMMEND: [product ID]"
    assert asyncio.run(client.reply(prompt, 0.4)).startswith("QUESTION:")
    assert episode.tokens and episode.tokens[0][0] > 0
    (call,) = episode.logged  # the call itself goes to the log: prompt in, reply out
    assert call["model"] == "mock" and call["messages"] == [{"role": "user", "content": prompt}]
    assert call["output"]["content"].startswith("QUESTION:")


def test_a_refused_key_is_not_retried_and_stops_the_run() -> None:
    calls: list[int] = []

    async def refusing(**kwargs: Any) -> Any:
        calls.append(1)
        raise litellm.AuthenticationError("invalid api key", llm_provider="openai", model="m")

    client = LLMClient("openai/gpt-4o-mini", completion=refusing)
    with pytest.raises(ProviderRefused, match="AuthenticationError"):
        asyncio.run(client.reply("hi", 0.4))
    assert calls == [1]


def test_a_provider_that_keeps_failing_is_an_infrastructure_error() -> None:
    async def down(**kwargs: Any) -> Any:
        raise litellm.ServiceUnavailableError("down", llm_provider="openai", model="m")

    client = LLMClient("openai/gpt-4o-mini", completion=down, max_retries=0)
    with pytest.raises(AgentInfraError, match="ServiceUnavailableError after 1 attempts"):
        asyncio.run(client.reply("hi", 0.4))
