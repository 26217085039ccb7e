"""Telling an outage from an agent's failure (clients/agents/outages.py): a failure of the
model's provider or of the connection to it, however a framework wraps it, is an outage
with its whole chain of causes; the model's own answer, a bad request and the agent's
code are not."""

from __future__ import annotations

import httpx
import openai
import pytest

from taurec.clients.agents.outages import outage_cause

REQUEST = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")


class FrameworkModelError(Exception):
    """What a framework raises around the provider's error (verifiers' ModelError, ...)."""


def _wrapped(inner: BaseException) -> FrameworkModelError:
    try:
        raise inner
    except BaseException as exc:
        try:
            raise FrameworkModelError("the model call failed") from exc
        except FrameworkModelError as outer:
            return outer


def test_a_connection_error_of_the_provider_is_an_outage() -> None:
    cause = outage_cause(openai.APIConnectionError(request=REQUEST))
    assert cause == "APIConnectionError: Connection error."


def test_an_outage_wrapped_by_a_framework_is_told_with_its_chain() -> None:
    cause = outage_cause(_wrapped(httpx.ConnectError("All connection attempts failed")))
    assert cause == (
        "FrameworkModelError: the model call failed <- ConnectError: All connection attempts failed"
    )


def test_a_refused_key_and_a_server_error_are_outages() -> None:
    for status, error in ((401, openai.AuthenticationError), (503, openai.InternalServerError)):
        response = httpx.Response(status, request=REQUEST)
        assert outage_cause(error("refused", response=response, body=None)) is not None


def test_a_bad_request_is_the_agents_not_an_outage() -> None:
    response = httpx.Response(400, request=REQUEST)
    too_long = openai.BadRequestError("context length exceeded", response=response, body=None)
    assert outage_cause(_wrapped(too_long)) is None


@pytest.mark.parametrize(
    "error",
    [ValueError("the model answered nothing readable"), KeyError("tool"), RuntimeError("bug")],
)
def test_the_agents_own_errors_are_not_outages(error: Exception) -> None:
    assert outage_cause(_wrapped(error)) is None


def test_a_refused_connection_inside_an_exception_group_is_an_outage() -> None:
    group = ExceptionGroup("task group", [ConnectionRefusedError("connection refused")])
    assert outage_cause(group) == "ConnectionRefusedError: connection refused"
