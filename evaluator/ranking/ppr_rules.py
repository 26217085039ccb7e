"""Whether a PPR export can be answered without looking at the user: the accuracy of
rules that read only how popular or how frequent the two items are.

A pair holds the positive and one negative; its MORE task's answer is the positive, its
LESS task's the negative. A rule that names one item of each pair as the positive is
right on both tasks or on neither, so its accuracy is counted over pairs:

- popularity (each `Popularity` measure given: an item's interactions before the
  pair's time, what the tools report as "N reviews"; the users who took it in the data
  the popularity baseline trains on): the more popular item is the positive, or the less
  popular one;
- frequency: the item found in more of the export's pairs is the positive, or the one
  in fewer (a positive repeated over one task's pairs gives itself away this way).

A tie counts as half right. Mined as AgenticRec mines them (negatives from the items
the policy ranked above the positive), pairs measure their source: a popularity
ranker's negatives are all more popular than their positive, so "the less popular item"
answers every pair. `evaluator export --format ppr` prints these rates for what it
writes (`rule_report`), and `RULE_BAR` (60%) is the highest any may reach in a fair export.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from taurec.tasks.ranking.pair import PairTask

#: The accuracy no popularity or frequency rule may exceed in a fair export.
RULE_BAR: Final = 0.6
#: (source task id, item id) -> the item's interactions before the task's target time
Popularity = Callable[[str, str], float]


def _negative(pair: PairTask) -> str:
    return pair.item_b.id if pair.item_a.id == pair.positive else pair.item_a.id


def _higher(a: float, b: float) -> float:
    return 1.0 if a > b else 0.0 if a < b else 0.5


@dataclass(frozen=True)
class RuleReport:
    pairs: int
    rates: dict[str, float]  # rule -> accuracy over pairs

    @property
    def best(self) -> tuple[str, float]:
        return max(self.rates.items(), key=lambda kv: kv[1])

    @property
    def fair(self) -> bool:
        return self.pairs > 0 and self.best[1] <= RULE_BAR

    def line(self) -> str:
        """One line: each rule's accuracy and whether the export is fair."""
        if not self.pairs:
            return "no pairs to measure rules on"
        rates = ", ".join(f"{name} {100 * rate:.1f}%" for name, rate in self.rates.items())
        name, top = self.best
        verdict = (
            f"none above {100 * RULE_BAR:.0f}%"
            if self.fair
            else f"'{name}' answers {100 * top:.1f}% of them: the pairs measure their source"
        )
        return f"rules on these {self.pairs} pairs: {rates}; {verdict}"


def rule_report(
    pairs: Sequence[PairTask], popularity: Mapping[str, Popularity] | None = None
) -> RuleReport:
    """The accuracy of each rule over `pairs` (one pair per MORE/LESS couple: the MORE
    task of each is used): the frequency rules, and the popularity rules of each measure
    `popularity` names."""
    couples = [p for p in pairs if p.direction == "MORE"] or list(pairs)
    seen = Counter(i for p in couples for i in {p.item_a.id, p.item_b.id})
    freq = [(float(seen[p.positive]), float(seen[_negative(p)])) for p in couples]
    rates = {
        "more frequent": _rate(freq, _higher),
        "less frequent": _rate(freq, lambda a, b: _higher(b, a)),
    }
    by_popularity: dict[str, float] = {}
    for measure, of in (popularity or {}).items():
        pop = [
            (of(p.source_task_id, p.positive), of(p.source_task_id, _negative(p))) for p in couples
        ]
        by_popularity[f"more popular {measure}"] = _rate(pop, _higher)
        by_popularity[f"less popular {measure}"] = _rate(pop, lambda a, b: _higher(b, a))
    return RuleReport(len(couples), {**by_popularity, **rates})


def _rate(values: list[tuple[float, float]], says: Callable[[float, float], float]) -> float:
    return sum(says(a, b) for a, b in values) / len(values) if values else 0.0
