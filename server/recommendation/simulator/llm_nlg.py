"""An LLM as the NLG of a deciding simulator (`--nlg-model M` with the rule, abus or
agenda-requests user): the simulator decides every act as before, and an LLM words them,
as UserSimCRS's generative NLG does (a few-shot prompt holding the acts, the titles they
are about and the template wording whose meaning to keep).

The decision never changes: the acts logged, the title accepted and leaving are the
simulator's. A wording that is empty, or that states a hidden constraint (the leak guard),
is replaced by the template wording; `stats()` counts both.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from taurec.catalog.store import Catalog
from taurec.server.recommendation.simulator.act_format import format_acts
from taurec.server.recommendation.simulator.base import UserReply, UserSimulator
from taurec.server.recommendation.simulator.leak_guard import LeakGuard
from taurec.server.recommendation.simulator.llm_client import LLMClient, LLMUserSettings
from taurec.tasks.recommendation.task import RecommendationTask
from taurec.tasks.trajectory.dialogue_acts import DialogueAct

_EXAMPLES = (
    (
        'reject(genres="horror")|disclose(genres="thriller")',
        "",
        "I don't really like horror movies, what about thrillers?",
    ),
    ("accept()", "Night Train", "Night Train sounds perfect, I'll watch that one."),
    ('disclose(release_date=">= 2010")', "", "Something from 2010 or later, please."),
    ("inquire(director)", "Night Train", "Who directed Night Train?"),
    ("stop()", "", "Thanks, that's all for now. Bye!"),
)


def nlg_prompt(acts: str, titles: str, template: str) -> str:
    shots = "\n".join(f"ACTS: {a}\nTITLES: {t or '-'}\nUSER: {u}" for a, t, u in _EXAMPLES)
    return (
        "You write what a USER says to a movie recommender. Express exactly the dialogue "
        "acts given, no more, in one or two natural sentences; name the titles given as "
        "they are written. Answer with the USER's words only.\n\n"
        f"{shots}\n\nACTS: {acts}\nTITLES: {titles or '-'}\n"
        f"(meaning to keep: {template})\nUSER:"
    )


class LLMWorded:
    """Wraps a simulator: same decisions, the words an LLM's."""

    def __init__(
        self,
        inner: UserSimulator,
        task: RecommendationTask,
        catalog: Catalog,
        seed: int,
        settings: LLMUserSettings,
    ) -> None:
        self.inner = inner
        self.kind = inner.kind
        self.acts_by = getattr(inner, "acts_by", "rule")
        self.catalog = catalog
        self.guard = LeakGuard(task)
        self.client = LLMClient(settings, seed)
        self.fallbacks = 0

    @property
    def opening_acts(self) -> tuple[DialogueAct, ...]:
        return tuple(getattr(self.inner, "opening_acts", ()))

    def opening(self) -> str:
        return self._word(self.inner.opening(), self.opening_acts, "opening")

    def respond(self, agent_text: str) -> UserReply:
        return self._reworded(self.inner.respond(agent_text), "reply")

    def react_to_commit(self, item_id: str | None) -> UserReply:
        return self._reworded(self.inner.react_to_commit(item_id), "commit")

    def stats(self) -> dict[str, Any]:
        inner = getattr(self.inner, "stats", None)
        return {
            **(inner() if callable(inner) else {}),
            "nlg": {**self.client.stats.as_dict(), "fallbacks": self.fallbacks},
        }

    def _reworded(self, reply: UserReply, purpose: str) -> UserReply:
        if not reply.acts:  # nothing decided (the user has gone): nothing to word
            return reply
        text = self._word(reply.text, reply.acts, purpose)
        return UserReply(
            text, left=reply.left, accepted=reply.accepted, acts=reply.acts, acts_by=reply.acts_by
        )

    def _word(self, template: str, acts: tuple[DialogueAct, ...], purpose: str) -> str:
        titles = [
            it.title for a in acts for i in a.items if (it := self.catalog.get(i)) is not None
        ]
        prompt = nlg_prompt(format_acts(acts), "; ".join(dict.fromkeys(titles)), template)
        said = self.client.complete([{"role": "user", "content": prompt}], f"nlg:{purpose}")
        said = said.strip().removeprefix("USER:").strip()
        if not said or self.guard.find(said, ignore=tuple(titles)):
            self.fallbacks += 1
            return template
        return said


def llm_worded(
    make_user: Callable[[RecommendationTask, Catalog, int], UserSimulator],
    settings: LLMUserSettings,
) -> Callable[[RecommendationTask, Catalog, int], LLMWorded]:
    """A simulator factory whose users' words come from the LLM of `settings`."""

    def make(task: RecommendationTask, catalog: Catalog, seed: int) -> LLMWorded:
        return LLMWorded(make_user(task, catalog, seed), task, catalog, seed, settings)

    return make
