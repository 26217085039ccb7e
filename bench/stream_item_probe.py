"""What asking about items gives away: the regret of a probe that asks the customer
about the items of each choice set, three at a time, and scores each item's part of the
answer with a word list; it reasons about no taste and learns nothing.

    python bench/stream_item_probe.py                    # the built-in suite, both customers
    python bench/stream_item_probe.py --suite my-streams --seeds 3

In each episode it asks "What about A, B and C?" for the items in shown order, until the
items or the question budget run out, splits each answer into the items' parts (the
customer names them "the first one", "the second one", ...; a single item's answer is
all its own), counts each part's warm words minus its cold words (16 words in all), and
recommends the item with the highest count (ties: the first shown). Played with the
rule-based customer as it is by default (it knows its tastes and the category, as BIEL's
customer: asked about an item, it does not know it) and with `customer_knows: items` (it
describes a named item's attributes against its tastes), beside random's expected regret
and popularity's. A customer that does not give items away leaves the probe near
random; the issue's bar is a regret of at least 30 on the built-in streams.
"""

from __future__ import annotations

import argparse
import asyncio
import re
from statistics import fmean
from typing import Any, Final

from rich.console import Console
from rich.table import Table

from taurec.clients.agents.stream.baselines import PopularityStreamPolicy
from taurec.clients.agents.stream.play import Action, Dialogue, play_local
from taurec.evaluator.stream.metrics import score_choice
from taurec.tasks.stream.protocol import CustomerKnows, StreamProtocol
from taurec.tasks.stream.task import StreamTask
from taurec.tasks.suite import load_suite

WARM: Final = ("love", "enjoy", "like", "suits", "fair", "easy", "well reviewed", "fan")
COLD: Final = ("avoid", "off", "long", "short", "old", "recent", "subtitles", "more than")
ORDINALS: Final = ("first", "second", "third")
PER_QUESTION: Final = 3


def warmth(text: str) -> int:
    words = text.lower()
    return sum(len(re.findall(rf"\b{w}\b", words)) for w in WARM) - sum(
        len(re.findall(rf"\b{w}\b", words)) for w in COLD
    )


def parts(answer: str, n: int) -> list[str]:
    """The answer's part about each of the `n` items asked about."""
    if n == 1:
        return [answer]
    found = re.split(r"The (first|second|third) one:", answer)
    by = dict(zip(found[1::2], found[2::2], strict=False))
    return [by.get(ORDINALS[k], "") for k in range(n)]


class WordListProbe:
    label = "word-list probe"

    def __init__(self) -> None:
        self.asked: list[list[str]] = []

    async def act(self, view: dict[str, Any], dialogue: Dialogue) -> Action:
        ids = [str(i["id"]) for i in view["items"]]
        if not dialogue:
            self.asked = []
        left = int(view.get("questions_left", 0))
        start = len(self.asked) * PER_QUESTION
        if left > 0 and start < len(ids):
            batch = ids[start : start + PER_QUESTION]
            self.asked.append(batch)
            names = batch[0] if len(batch) == 1 else ", ".join(batch[:-1]) + " and " + batch[-1]
            return "ask", f"What about {names}?"
        scores = {i: 0 for i in ids}
        for batch, (_, answer) in zip(self.asked, dialogue, strict=False):
            for item, part in zip(batch, parts(answer, len(batch)), strict=True):
                scores[item] = warmth(part)
        best = max(scores.values())
        return "recommend", next(i for i in ids if scores[i] == best)

    def observe(self, view: dict[str, Any], item_id: str, feedback: str | None) -> None:
        return None


async def regret(
    tasks: list[StreamTask], make: Any, protocol: StreamProtocol, seed: int
) -> tuple[float, float, float]:
    """(mean regret, top-1 share, questions per episode) over every episode."""
    regrets, top1, questions = [], [], []
    for n, task in enumerate(tasks):
        session = await play_local(task, make(), seed=seed * 10_007 + n, protocol=protocol)
        for k in range(len(task.episodes)):
            out = score_choice(k + 1, session.played(k).utilities, session.chosen[k], 0)
            regrets.append(out.regret)
            top1.append(out.top(1))
            questions.append(session.asked[k])
    return fmean(regrets), fmean(top1), fmean(questions)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", default="stream:builtin")
    parser.add_argument("--seeds", type=int, default=1, help="customer seeds to average over")
    args = parser.parse_args()
    tasks = [t for t in load_suite(args.suite).tasks if isinstance(t, StreamTask)]
    random_regret = fmean(e.best - fmean(e.utilities.values()) for t in tasks for e in t.episodes)
    table = Table("customer knows", "agent", "regret", "top-1", "questions per episode")
    table.add_row("-", "random (expected)", f"{random_regret:.1f}", "-", "0.00")
    for knows in CustomerKnows:
        protocol = StreamProtocol(customer_knows=knows)
        for name, make in (
            ("word-list probe", WordListProbe),
            ("popularity", PopularityStreamPolicy),
        ):
            runs = [asyncio.run(regret(tasks, make, protocol, s)) for s in range(args.seeds)]
            r, top, q = (fmean(x[i] for x in runs) for i in range(3))
            default = " (default)" if knows is CustomerKnows.TASTES else ""
            table.add_row(
                f"{knows.value}{default}", name, f"{r:.1f}", f"{100 * top:.1f}%", f"{q:.2f}"
            )
    Console(width=120).print(f"{args.suite}: {len(tasks)} streams, {args.seeds} seed(s)")
    Console(width=120).print(table)


if __name__ == "__main__":
    main()
