"""The `mock` model of the LLM users and readers: `--simulator-model mock` (with `llm`,
`llm-sp`, `llm-dp`), `--nlg-model mock` and `--nlu-model mock` try the whole LLM path
(litellm, the prompts, acts, model-call records, the log) with no key and no network. Each
call still goes through litellm, which answers with the text written here
(`mock_response`) instead of asking a provider. It is a smoke test of the path, not a user
worth measuring:

- a deciding user (llm-sp, llm-dp) says what it is looking for until the assistant names a
  catalog title, then takes it ("Sounds good, I'll take X.") and ends; it always goes on
  when asked whether to;
- the rule user's words (llm) say what the private note asks, plainly;
- the act classifier reads the mock's own sentences back (an acceptance, a refusal, a
  question), and an agent's message as the deterministic NLU reads it;
- the NLG says the meaning it is given.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Final

#: The model name that selects the mock (not a provider's model).
MOCK_MODEL: Final = "mock"
#: What litellm is asked for: a provider prefix it knows, answered by `mock_response`.
MOCK_ROUTE: Final = f"openai/{MOCK_MODEL}"

TitlesOf = Callable[[str], list[str]]
#: An agent message's acts in the act format (`intent(slot="v")|...`).
AgentActs = Callable[[str], str]
_TAKES = re.compile(r"I'll take (.+?)\.(?:\s|$)")
_CHARACTERISTICS = re.compile(r"following characteristics: (.*?)\.(?:\s|$)")
_NOTE_TITLE = re.compile(r"[“\"](.+?)[”\"]")


def is_mock(model: str | None) -> bool:
    return model == MOCK_MODEL


class MockModel:
    """litellm's completion answering as the mock (see the module docstring); `titles_of`
    names the catalog titles a text mentions."""

    def __init__(self, titles_of: TitlesOf, agent_acts: AgentActs | None = None) -> None:
        self.titles_of = titles_of
        self.agent_acts = agent_acts

    def __call__(self, **kwargs: Any) -> Any:
        from taurec.server.recommendation.simulator.llm_client import load_litellm

        messages = kwargs["messages"]
        answer = self.text(str(messages[-1].get("content") or ""), messages)
        return load_litellm().completion(**{**kwargs, "model": MOCK_ROUTE}, mock_response=answer)

    def text(self, prompt: str, messages: list[dict[str, Any]]) -> str:
        if prompt.rstrip().endswith("ACTS:"):
            return self._acts(prompt)
        if prompt.rstrip().endswith("CONTINUE:"):
            return "TRUE"
        if "CONTINUE or STOP?" in prompt:
            return "CONTINUE"
        meaning = re.search(r"\(meaning to keep: (.*)\)\nUSER:", prompt, re.S)
        if meaning is not None:
            return meaning.group(1).strip()
        if "Write the USER's next message" in prompt:
            return self._deciding_reply(prompt)
        return self._worded(prompt)

    def _deciding_reply(self, prompt: str) -> str:
        said = [line for line in prompt.splitlines() if line.startswith("ASSISTANT: ")]
        named = self.titles_of(said[-1]) if said else []
        if named:
            return f"Sounds good, I'll take {named[0]}. \\end"
        wanted = _CHARACTERISTICS.search(prompt)
        return f"I'm looking for {wanted.group(1)}." if wanted else "Any good film for tonight?"

    def _worded(self, prompt: str) -> str:
        note = prompt.rsplit("[Private note", 1)[-1]
        title = _NOTE_TITLE.search(note)
        name = title.group(1) if title else "it"
        if "accept it happily" in note or "thank them warmly" in note:
            return f"Sounds good, I'll take {name}."
        if "decline it" in note or "disappointed" in note:
            return f"No thanks, {name} isn't for me."
        if "already seen" in note:
            return f"I've seen {name} already. Something else?"
        if "goodbye and leave" in note:
            return "Thanks, bye! [leave]"
        told = re.search(r"You can now tell them: (.*?)\.(?:\]|\s|$)", note)
        if told is not None:
            return f"I'd like {told.group(1)}."
        return "Hi! I'm looking for a film." if "first message" in note else "Okay."

    def _acts(self, prompt: str) -> str:
        found = re.search(r"UTTERANCE: (.*)\nACTS:", prompt, re.S)
        utterance = found.group(1) if found else ""
        if "by the ASSISTANT" in prompt and self.agent_acts is not None:
            return self.agent_acts(utterance)
        if "by the ASSISTANT" in prompt:
            named = self.titles_of(utterance)
            acts = [f'recommend(title="{t}")' for t in named]
            if not named and "?" in utterance:
                acts.append("elicit()")
            return "|".join(acts) or "other()"
        taken = _TAKES.search(utterance)
        if taken is not None:
            return f'accept(title="{taken.group(1)}")'
        if "isn't for me" in utterance:
            return "reject()"
        if "seen" in utterance:
            return "seen()"
        return "inquire()" if "?" in utterance else "other()"


def acts_line(acts: Any, title_of: Callable[[str], str | None]) -> str:
    """Acts in the act format, the items they are about named by title (`title="..."`)."""
    parts = []
    for a in acts:
        args = [f'title="{t}"' for i in a.items[:1] if (t := title_of(i)) is not None]
        if a.slot:
            args.append(f'{a.slot}="{a.value}"' if a.value else a.slot)
        parts.append(f"{a.intent}({','.join(args)})")
    return "|".join(parts) or "other()"
