"""Errors an agent can act on. The MCP layer turns them into tool results with isError.

Messages name the argument and what was expected; they never quote a task's constraints.
"""

from __future__ import annotations

from pydantic import ValidationError


class AgentFacingError(ValueError):
    """A failure caused by the agent's request, explained in words the agent can act on."""


class ArgumentError(AgentFacingError):
    """A bad tool argument: `argument` names it (None when the message names several),
    the message says what was expected."""

    def __init__(self, argument: str | None, message: str) -> None:
        self.argument = argument
        super().__init__(f"argument '{argument}': {message}" if argument else message)


class EpisodeError(AgentFacingError):
    """The episode id is missing, unknown or ended, or no more episodes can start."""


def from_validation_error(exc: ValidationError) -> ArgumentError:
    """The first problem pydantic found, as an ArgumentError naming the argument."""
    first = exc.errors(include_url=False)[0]
    argument = ".".join(str(part) for part in first["loc"]) or None
    message: str = first["msg"]
    if first["type"] == "missing":
        message = "is required but missing"
    elif first["type"] == "extra_forbidden":
        message = "is not an argument of this tool"
    elif message.startswith("Value error, "):  # our own validators already say what was expected
        message = message.removeprefix("Value error, ")
    else:
        message = (
            f"expected {message.removeprefix('Input should be ')}, "
            f"got {short_repr(first.get('input'))}"
        )
    return ArgumentError(argument, message)


def short_repr(value: object, limit: int = 60) -> str:
    """repr() cut to `limit` characters, so an error never echoes a huge argument back."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def agent_error_text(tool: str, message: str) -> str:
    """The text an agent receives when `tool` fails with `message`: the MCP SDK prefixes a
    ToolError's message this way. Logs record this exact text (a test pins the two equal)."""
    return f"Error executing tool {tool}: {message}"
