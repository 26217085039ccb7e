"""A model's reply as a ranking action: every format, hostile text read as Malformed with a
one-line reason (never an exception), answers mapped to the env's and the reward's input,
and the tool schemas equal to the MCP server's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp import Client
from support.ranking import write_ranking_suite

from taurec.clients.agents.ranking.text_actions import (
    FinalRanking,
    Malformed,
    ToolCall,
    ToolCalls,
    env_steps,
    parse_action,
    ranking_tool_schemas,
    submitted_ranking,
)
from taurec.clients.agents.tool_schema import function_tools
from taurec.server.app import build_server
from taurec.server.settings import ServerSettings
from taurec.tasks.ranking.metrics import INVALID, score_ranking
from taurec.tasks.ranking.rules import MAX_REPLY, SUBMIT, TOOL_ARGUMENTS
from taurec.tasks.suite import load_suite

IDS = [f"i{n}" for n in range(1, 21)]
#: Pieces the fuzzed replies are made of: the formats' tags and the characters they hinge on.
PIECES = [
    *("<tool_call>", "</tool_call>", "\\boxed{[", "]}", "{", "}", '"name"', '"arguments"'),
    *(":", ",", "[", "]", "1", "²", "21", " ", "x", "\x00", "\n", '"get_user_profile"'),
]


def _tagged(name: str, arguments: object) -> str:
    return f"<tool_call>{json.dumps({'name': name, 'arguments': arguments})}</tool_call>"


def _openai(*calls: tuple[str, object]) -> dict:
    return {"tool_calls": [{"function": {"name": n, "arguments": a}} for n, a in calls]}


def test_an_openai_tool_call_is_read_with_its_json_arguments():
    message = _openai(("item_info_search", json.dumps({"item_name": "Dune"})))
    assert parse_action("", IDS, message) == ToolCalls(
        (ToolCall("item_info_search", {"item_name": "Dune"}),)
    )


def test_openai_tool_calls_win_over_text_and_keep_their_order():
    message = _openai(("get_user_profile", "{}"), ("candidates_analyze", None))
    action = parse_action("<answer>\\boxed{[1]}</answer>", IDS, message)
    assert action == ToolCalls(
        (ToolCall("get_user_profile", {}), ToolCall("candidates_analyze", {}))
    )


def test_several_hermes_tool_calls_in_one_text_are_all_read():
    text = (
        "Let me look.\n"
        + _tagged("get_similar_items", {"item_title": "Dune"})
        + "\nand\n"
        + _tagged("get_rating_behavior", {})
        + " then <answer>\\boxed{[1]}</answer>"
    )
    assert parse_action(text, IDS) == ToolCalls(
        (
            ToolCall("get_similar_items", {"item_title": "Dune"}),
            ToolCall("get_rating_behavior", {}),
        )
    )


def test_a_last_tool_call_cut_at_its_closing_tag_is_read_to_the_end():
    text = '<tool_call>{"name": "get_similar_users", "arguments": {}}'
    assert parse_action(text, IDS) == ToolCalls((ToolCall("get_similar_users", {}),))


def test_a_boxed_answer_is_a_final_ranking_of_indices_and_ids():
    action = parse_action("Done. <answer>\\boxed{[3, 1, 20]}</answer>", IDS)
    assert action == FinalRanking((3, 1, 20), ("i3", "i1", "i20"))


def test_the_last_boxed_list_is_the_answer():
    action = parse_action("\\boxed{[1, 2]} no wait \\boxed{[5]}", IDS)
    assert action == FinalRanking((5,), ("i5",))


@pytest.mark.parametrize(
    ("text", "message", "says", "final"),
    [
        (
            "<tool_call>{name: 1}</tool_call>",
            None,
            "tool call 1: <tool_call> body is not JSON",
            False,
        ),
        ("<tool_call>[1, 2]</tool_call>", None, "got list", False),
        ("<tool_call>" + "[" * 100_000 + "</tool_call>", None, "reply is", True),
        ("<tool_call>" + "[" * 20_000 + "</tool_call>", None, "not JSON", False),
        (_tagged("buy_now", {}), None, "unknown tool 'buy_now'", False),
        (_tagged("item_info_search", {"item_name": 7}), None, "needs item_name", False),
        (_tagged("item_info_search", {}), None, "needs item_name", False),
        (_tagged("get_user_profile", "[1]"), None, "must be a JSON object, got list", False),
        ('<tool_call>{"name": 3}</tool_call>', None, "name must be a tool name", False),
        (_tagged("get_user_profile", {}) + _tagged("nope", {}), None, "tool call 2:", False),
        ("", _openai(("get_user_profile", "{bad")), "arguments are not JSON", False),
        ("", {"tool_calls": "get_user_profile"}, "tool_calls: expected a list", False),
        ("", {"tool_calls": [{"name": "x"}]}, 'expected {"function"', False),
        ("", ["not", "a", "dict"], "message: expected an OpenAI message dict", False),
        (_tagged(SUBMIT, {"ranking": [1, 2]}), None, "submit_ranking needs ranking", False),
        ("\\boxed{[1, ², 3]}", None, "'²' is not a candidate index", True),
        ("\\boxed{[1, 21]}", None, "'21' is not a candidate index; expected numbers 1..20", True),
        ("\\boxed{[1, -2]}", None, "is not a candidate index", True),
        ("\\boxed{[٣]}", None, "is not a candidate index", True),
        ("\\boxed{[" + "9" * 50 + "]}", None, "is not a candidate index", True),
        ("I think item 3.", None, "no \\boxed{[...]} answer found", True),
        ("", None, "no \\boxed{[...]} answer found", True),
        ("x" * (MAX_REPLY + 1), None, f"at most {MAX_REPLY} are read", True),
    ],
)
def test_hostile_replies_are_malformed_with_a_one_line_reason(text, message, says, final):
    action = parse_action(text, IDS, message)
    assert isinstance(action, Malformed)
    assert says in action.reason
    assert "\n" not in action.reason and len(action.reason) < 400
    assert action.final is final


def test_a_list_argument_sent_as_json_text_is_read_as_the_list():
    message = _openai((SUBMIT, json.dumps({"ranking": json.dumps(IDS[:10])})))
    assert parse_action("", IDS, message) == ToolCalls((ToolCall(SUBMIT, {"ranking": IDS[:10]}),))


def test_a_reply_of_the_most_hostile_size_is_malformed_not_an_error():
    # the boxed pattern rescans from every opening; MAX_REPLY bounds that work (about a
    # second here: measured, not asserted)
    text = ("\\boxed{[" * MAX_REPLY)[:MAX_REPLY]
    assert isinstance(parse_action(text, IDS), Malformed)
    assert isinstance(parse_action(("<tool_call>{" * MAX_REPLY)[:MAX_REPLY], IDS), Malformed)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(PIECES)).map("".join),
    st.one_of(
        st.none(),
        st.from_type(object),
        st.dictionaries(
            st.just("tool_calls"), st.from_type(object) | st.lists(st.from_type(object))
        ),
    ),
)
def test_any_text_parses_to_an_action_without_raising(text, message):
    action = parse_action(text, IDS, message)
    assert isinstance(action, ToolCalls | FinalRanking | Malformed)
    if isinstance(action, Malformed):
        assert "\n" not in action.reason


@settings(max_examples=200, deadline=None)
@given(st.text(), st.recursive(st.none() | st.booleans() | st.integers() | st.text(),
                               lambda c: st.lists(c) | st.dictionaries(st.text(), c)))  # fmt: skip
def test_any_tool_call_payload_parses_without_raising(text, payload):
    message = {"tool_calls": [{"function": {"name": text, "arguments": payload}}]}
    assert isinstance(parse_action(text, IDS, message), ToolCalls | FinalRanking | Malformed)
    tagged = f"<tool_call>{json.dumps({'name': text, 'arguments': payload})}</tool_call>"
    assert isinstance(parse_action(tagged, IDS), ToolCalls | Malformed)


def test_a_malformed_answer_is_submitted_as_an_empty_ranking_scored_minus_one(tmp_path: Path):
    task = load_suite(str(write_ranking_suite(tmp_path / "suite", n=2))).tasks[0]
    action = parse_action("no answer here", task.candidates)
    assert submitted_ranking(action) == []
    assert env_steps(action, "no answer here") == [
        {"name": SUBMIT, "arguments": {"ranking": [], "reply": "no answer here"}}
    ]
    assert score_ranking(task, submitted_ranking(action), 0).reward == INVALID


def test_a_final_ranking_becomes_one_submit_of_its_ids():
    action = parse_action("<answer>\\boxed{[2, 1]}</answer>", IDS)
    assert submitted_ranking(action) == ["i2", "i1"]
    assert env_steps(action) == [{"name": SUBMIT, "arguments": {"ranking": ["i2", "i1"]}}]


def test_tool_calls_become_one_step_each_and_a_malformed_turn_none():
    calls = parse_action(_tagged("get_user_profile", {}) + _tagged("candidates_analyze", {}), IDS)
    assert env_steps(calls) == [
        {"name": "get_user_profile", "arguments": {}},
        {"name": "candidates_analyze", "arguments": {}},
    ]
    assert submitted_ranking(calls) is None
    refused = parse_action(_tagged("nope", {}), IDS)
    assert env_steps(refused) == [] and submitted_ranking(refused) is None


async def test_the_schemas_are_the_seven_tools_the_server_offers(tmp_path: Path):
    suite = str(write_ranking_suite(tmp_path / "suite", n=2))
    server = build_server(ServerSettings(suite=suite, log_dir=tmp_path / "logs", run_label="r"))
    async with Client(server) as client:
        offered = function_tools((await client.list_tools()).tools)
    seven = [tool for tool in offered if tool["function"]["name"] in TOOL_ARGUMENTS]
    assert [t["function"]["name"] for t in seven] == list(TOOL_ARGUMENTS)
    assert ranking_tool_schemas() == seven
    assert {t["function"]["name"] for t in offered} - set(TOOL_ARGUMENTS) == {SUBMIT}
