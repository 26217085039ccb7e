"""LLM-written user profiles: written once per (task, prompt) through litellm (mocked),
cached in the suite folder, returned by get_user_profile, built from the past only."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from support.ranking import small_data, small_tasks, write_ranking_suite

from taurec.catalog.errors import DataError
from taurec.server.ranking.profiles import (
    DETERMINISTIC,
    PROFILES_FILE,
    Profiles,
    load_profiles,
    profile_prompt,
    read_entries,
    suite_folder,
    write_profiles,
)
from taurec.server.ranking.tools import RankingData, get_user_profile
from taurec.tasks.suite import load_suite, packaged_suites_dir

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
import litellm

TASKS = list(small_tasks()[:4])
MODEL = "openai/gpt-4o-mini"


class FakeLLM:
    """litellm.completion with litellm's own mock reply: one profile per call, counted."""

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def __call__(self, **kwargs: Any) -> Any:
        self.prompts.append(kwargs["messages"][0]["content"])
        reply = f"Profile {len(self.prompts)}: likes what they watched."
        return litellm.completion(**kwargs, mock_response=reply)


def test_a_run_writes_one_profile_per_task_with_its_model_and_prompt_hash(tmp_path: Path):
    llm = FakeLLM()
    summary = write_profiles(tmp_path, TASKS, small_data(), MODEL, llm)
    assert (summary.written, summary.cached) == (len(TASKS), 0)
    entries = read_entries(tmp_path / PROFILES_FILE)
    assert [e.task_id for e in entries] == [t.id for t in TASKS]
    assert {e.model for e in entries} == {MODEL}
    assert entries[0].profile == "Profile 1: likes what they watched."


def test_a_rerun_makes_no_calls(tmp_path: Path):
    write_profiles(tmp_path, TASKS, small_data(), MODEL, FakeLLM())
    again = FakeLLM()
    summary = write_profiles(tmp_path, TASKS, small_data(), MODEL, again)
    assert again.prompts == [] and (summary.written, summary.cached) == (0, len(TASKS))


def test_an_interrupted_run_resumes_after_the_last_whole_line(tmp_path: Path):
    write_profiles(tmp_path, TASKS[:2], small_data(), MODEL, FakeLLM())
    with (tmp_path / PROFILES_FILE).open("ab") as f:
        f.write(b'{"task_id": "torn')  # killed mid-line
    llm = FakeLLM()
    write_profiles(tmp_path, TASKS, small_data(), MODEL, llm)
    assert len(llm.prompts) == len(TASKS) - 2
    assert [e.task_id for e in read_entries(tmp_path / PROFILES_FILE)] == [t.id for t in TASKS]


def test_another_models_file_is_kept_unless_replaced(tmp_path: Path):
    write_profiles(tmp_path, TASKS[:1], small_data(), MODEL, FakeLLM())
    with pytest.raises(DataError, match="pass --replace"):
        write_profiles(
            tmp_path, TASKS[:1], small_data(), "anthropic/claude-3-haiku-20240307", FakeLLM()
        )
    write_profiles(
        tmp_path,
        TASKS[:1],
        small_data(),
        "anthropic/claude-3-haiku-20240307",
        FakeLLM(),
        replace=True,
    )
    assert {e.model for e in read_entries(tmp_path / PROFILES_FILE)} == {
        "anthropic/claude-3-haiku-20240307"
    }


def test_the_tool_returns_the_cached_profile_and_the_header_says_so(tmp_path: Path):
    write_profiles(tmp_path, TASKS[:1], small_data(), MODEL, FakeLLM())
    rd = RankingData(small_data(), min(t.target_time for t in TASKS))
    deterministic = get_user_profile(rd, TASKS[0])
    profiles = load_profiles(tmp_path, TASKS, rd.data)
    # the field RankingData gains for them (ignored by mypy until then)
    rd.profiles = profiles  # type: ignore[attr-defined,unused-ignore]
    assert get_user_profile(rd, TASKS[0]) == "Profile 1: likes what they watched."
    assert profiles.settings(TASKS[0].id)["user_profile_model"] == MODEL
    # a task the file has no profile for keeps the summary, and says so
    assert get_user_profile(rd, TASKS[1]).startswith("User profile, from ")
    assert profiles.settings(TASKS[1].id) == DETERMINISTIC
    assert deterministic.startswith("User profile, from ")


def test_a_profile_written_over_other_data_is_not_used(tmp_path: Path):
    task = TASKS[0]
    write_profiles(tmp_path, [task], small_data(), MODEL, FakeLLM())
    shrunk = small_data().without_records_from(task.target_time - 86_400 * 3)
    if profile_prompt(shrunk, task.user_id, task.target_time) == profile_prompt(
        small_data(), task.user_id, task.target_time
    ):
        pytest.skip("the user had no records in the three days before the target")
    assert load_profiles(tmp_path, [task], shrunk).text(task.id) is None


def test_the_prompt_holds_nothing_at_or_after_the_target_time():
    data = small_data()
    for task in small_tasks():
        cut = data.without_records_from(task.target_time)
        assert profile_prompt(data, task.user_id, task.target_time) == profile_prompt(
            cut, task.user_id, task.target_time
        )


def test_the_prompt_would_show_a_later_record():
    """The check above can fail: a prompt for a later time shows more."""
    task, data = TASKS[0], small_data()
    later = task.target_time + 86_400 * 365
    assert profile_prompt(data, task.user_id, later) != profile_prompt(
        data, task.user_id, task.target_time
    )


def test_the_prompt_names_no_candidate():
    data = small_data()
    for task in small_tasks():
        prompt = profile_prompt(data, task.user_id, task.target_time)
        for cid in task.candidates:
            assert f"| {data.items[data.item_of(cid)].title} |" not in prompt


def test_no_file_means_no_profiles(tmp_path: Path):
    assert load_profiles(tmp_path, TASKS, small_data()) == Profiles()


def test_the_suite_folder_of_the_builtin_suite_and_of_a_path(tmp_path: Path):
    assert suite_folder(load_suite("ranking:builtin")) == packaged_suites_dir() / "ranking"
    folder = write_ranking_suite(tmp_path / "s", n=2)
    assert suite_folder(load_suite(str(folder))) == folder
    assert suite_folder(load_suite(str(folder / "suite.json"))) == folder
