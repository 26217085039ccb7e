"""Dialogue acts read by an LLM (litellm): the classification pass over an LLM user's
reply (acts_by "llm-classifier") and the optional LLM NLU of agent messages (acts_by
"llm-nlu"). UserSimCRS's LLM dialogue-act extractor: a prompt with the utterance, the
intents and an example, answered in `intent(slot="v")|intent()` (act_format.py). A
reply not in the format gives no acts."""

from __future__ import annotations

from collections.abc import Sequence

from taurec.catalog.store import Catalog
from taurec.server.recommendation.simulator.act_format import parse_acts
from taurec.server.recommendation.simulator.agent_nlu import proposals_only
from taurec.server.recommendation.simulator.llm_client import LLMClient, LLMUserSettings
from taurec.server.recommendation.simulator.nlu import MessageReader
from taurec.tasks.trajectory.dialogue_acts import AGENT_INTENTS, USER_INTENTS, DialogueAct

#: Few-shot examples per speaker, in the IARD intents of the log (this project's own).
_EXAMPLES = {
    "user": (
        "I have seen Night Train, and I want something from the 90s -> "
        'seen(title="Night Train")|disclose(release_date="1990s")',
        'Harbor Lights sounds perfect, thanks! -> accept(title="Harbor Lights")',
        "Not a horror fan. Who directed it? -> "
        'reject()|disclose(genres="not horror")|inquire(director)',
    ),
    "agent": (
        'Have you seen "Night Train"? Who is your favourite director? -> '
        'recommend(title="Night Train")|elicit(director)',
        'It was directed by Ann Lee. -> answer(director="Ann Lee")',
        "Shall I look for something else? -> inquire()",
    ),
}


def classification_messages(text: str, role: str, intents: Sequence[str]) -> list[dict[str, str]]:
    speaker = "USER (who wants a movie)" if role == "user" else "ASSISTANT (a movie recommender)"
    prompt = (
        f"Give the dialogue acts of this utterance by the {speaker}.\n"
        f"Intents: {', '.join(intents)}.\n"
        "Slots: genres, title, director, cast, keywords, release_date, runtime, rating, "
        "content_rating, streaming_services, original_language, preference.\n"
        'Answer only with acts in the form intent(slot="value",slot)|intent(), values '
        'copied from the utterance; name a movie with title="...".\n'
        "Examples:\n" + "\n".join(_EXAMPLES[role]) + f"\n\nUTTERANCE: {text}\nACTS: "
    )
    return [{"role": "user", "content": prompt}]


class LLMActReader:
    """Classifies utterances with one LLM call each (cached and tallied by LLMClient)."""

    def __init__(self, client: LLMClient, reader: MessageReader) -> None:
        self.client = client
        self.reader = reader
        self.unparsed = 0  # replies not in the act format

    def _titles(self, text: str) -> list[str]:
        return [i for ref in self.reader.titles(text) for i in ref.item_ids]

    def classify(
        self, text: str, role: str, context_items: Sequence[str] = ()
    ) -> list[DialogueAct]:
        intents = USER_INTENTS if role == "user" else AGENT_INTENTS
        raw = self.client.complete(classification_messages(text, role, intents), f"acts:{role}")
        acts = parse_acts(raw, intents, self._titles, context_items)
        if acts is None:
            self.unparsed += 1
            return []
        return acts


class LLMAgentNLU:
    """The optional LLM NLU of agent messages; an `AgentNLU` stand-in."""

    acts_by: str = "llm-nlu"

    def __init__(self, catalog: Catalog, settings: LLMUserSettings, reader: MessageReader) -> None:
        self.classifier = LLMActReader(LLMClient(settings, seed=0, caller="nlu"), reader)

    def acts(self, text: str, open_requests: Sequence[DialogueAct] = ()) -> list[DialogueAct]:
        items = [i for r in open_requests for i in r.items]
        return proposals_only(self.classifier.classify(text, "agent", items), open_requests)
