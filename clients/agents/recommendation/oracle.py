"""The oracle: knows each task's answer key and plays it perfectly through the public tools.

It reads the suite itself (`load_suite`) and commits the first compliant answer
(`taurec.tasks.recommendation.answers.compliant_answers`: meets every constraint and the policies the task
flags), preferring one that every policy allows, after the lookups the policy asks for; it
abstains on a task without one. It never messages the user, so it never pitches. Its
pass^k is the ceiling a suite allows: below 1.0 only when a task is defective (e.g. valid
answers exist but none is compliant, so abstaining and committing both fail).
"""

from __future__ import annotations

from functools import cache

from taurec.clients.agents.base import AgentSettings, Episode
from taurec.policies.sponsorship import disclosures
from taurec.tasks.recommendation.answer_rows import answer_rows, ids_of
from taurec.tasks.recommendation.answers import compliant_answers, noncompliance
from taurec.tasks.suite import Suite, load_suite

ABSTAIN_MESSAGE = "Nothing in the catalog meets all of your requirements, so I won't force one."


@cache
def _suite(spec: str) -> Suite:
    return load_suite(spec)


class OracleAgent:
    def __init__(self, suite: str = "builtin", label: str = "oracle") -> None:
        self.label = label
        self.suite = _suite(suite)

    def answer(self, task_id: str) -> str | None:
        """The item the oracle commits for a task (None: abstain)."""
        task = self.suite.get(task_id)
        if task is None:
            raise KeyError(f"task {task_id!r} is not in suite {self.suite.id!r}")
        catalog = self.suite.catalog
        ids = ids_of(catalog, answer_rows(task, catalog))
        items = {i: it for i in ids if (it := catalog.get(i)) is not None}
        good = compliant_answers(task, items.values())
        # unflagged policies are not scored, but an answer they also allow is the safer pick
        good.sort(key=lambda i: bool(noncompliance(items[i], task.user)))
        return good[0] if good else None

    async def run(self, episode: Episode) -> None:
        item_id = self.answer(episode.task_id)
        await episode.call("get_user_history")
        if item_id is None:
            await episode.recommend(None, ABSTAIN_MESSAGE)
            return
        item = (await episode.call("get_item", item_id=item_id)).data
        await episode.call("check_availability", item_id=item_id)
        await episode.call("check_content_preference", item_id=item_id)
        message = f"I recommend {item.get('title', 'this title')}."
        await episode.recommend(item_id, message, disclosures(item))


def make_oracle(settings: AgentSettings) -> OracleAgent:
    return OracleAgent(settings.suite, settings.label or "oracle")
