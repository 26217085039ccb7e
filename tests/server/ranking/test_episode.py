"""A ranking episode and the Python environment over it: budget, submission, end."""

from support.ranking import small_data, small_tasks

from taurec.server.ranking.env import RankingEnv
from taurec.server.ranking.episode import RankingEpisode
from taurec.server.ranking.tools import RankingData

TASK = small_tasks()[0]
RD = RankingData(small_data(), min(t.target_time for t in small_tasks()))


def test_the_opening_lists_the_history_and_numbered_candidates():
    text = RankingEpisode(RD, TASK).opening()
    assert text.startswith("Given a user's interaction history and a list of 20 candidate items")
    assert (
        f"20. [{TASK.candidates[19]}] " in text and TASK.positive not in text.split("Candidates")[0]
    )


def test_the_eleventh_tool_call_ends_the_episode_invalid():
    episode = RankingEpisode(RD, TASK)
    for _ in range(10):
        assert not episode.call("get_user_profile", {}).done
    step = episode.call("get_user_profile", {})
    assert step.done and step.outcome is not None and step.outcome.reward == -1.0
    assert "past the budget of 10" in step.text


def test_a_submission_ends_the_episode_and_later_calls_are_refused():
    episode = RankingEpisode(RD, TASK)
    step = episode.call(
        "submit_ranking",
        {"ranking": [TASK.positive, *[c for c in TASK.candidates if c != TASK.positive][:9]]},
    )
    assert step.done and step.outcome is not None and step.outcome.reward == 1.0
    assert episode.call("get_user_profile", {}).is_error


def test_a_foreign_id_is_an_invalid_answer_naming_the_field():
    episode = RankingEpisode(RD, TASK)
    step = episode.call("submit_ranking", {"ranking": ["nope", *TASK.candidates[:9]]})
    assert step.outcome is not None and step.outcome.reward == -1.0
    assert "ranking: 'nope' is not one of the task's candidates" in step.text


def test_env_reset_step_rewards_only_at_the_end():
    env = RankingEnv(RD)
    observation = env.reset(TASK)
    assert observation.startswith("Given a user's interaction history")
    step = env.step({"name": "get_similar_users", "arguments": {}})
    assert not step.done and step.reward is None
    ranking = [TASK.positive, *[c for c in TASK.candidates if c != TASK.positive][:9]]
    step = env.step({"name": "submit_ranking", "arguments": {"ranking": ranking}})
    assert step.done and step.reward == 1.1
    assert [s["name"] for s in env.trajectory] == ["get_similar_users", "submit_ranking"]
