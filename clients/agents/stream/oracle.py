"""BIEL's oracle baseline (experiments/baseline_oracle.py): an LLM that knows the customer.

Each episode it reads the customer's persona description (from the suite's task, as the
ceiling reads the utilities) and every product of the choice set (index, id, title,
price, store, description, the item's attributes), asks nothing, and replies
`RECOMMEND: <0-based index>` at temperature 0.1 (BIEL's). A reply that names no index
in range gives a random item, seeded by the run's seed, task, trial and episode (BIEL:
an unseeded random one). It learns nothing from feedback.
"""

from __future__ import annotations

import hashlib
from typing import Any, Final

from taurec.clients.agents.stream.baselines import played_episode
from taurec.clients.agents.stream.llm_client import LLMClient
from taurec.clients.agents.stream.play import Action, Dialogue
from taurec.clients.agents.stream.replies import read_oracle
from taurec.tasks.stream.task import StreamTask

ORACLE_TEMPERATURE: Final = 0.1
#: The item attributes listed under "Key Attributes", with their labels.
ATTRIBUTES: Final = (
    ("categories", "Categories"),
    ("year", "Year"),
    ("runtime", "Runtime"),
    ("rating", "Rating (0-10)"),
    ("language", "Language"),
    ("keywords", "Keywords"),
)


def _product(index: int, item: dict[str, Any]) -> list[str]:
    price = item.get("price")
    lines = [
        f"Product {index}:",
        f"  ID: {item['id']}",
        f"  Title: {item['title']}",
        f"  Price: {f'${float(price):.2f}' if price is not None else 'not listed'}",
        f"  Store: {item.get('maker') or 'Unknown'}",
        f"  Description: {item.get('description') or item['title']}",
    ]
    attributes = []
    for key, name in ATTRIBUTES:
        value = item.get(key)
        if value not in (None, "", []):
            shown = ", ".join(map(str, value)) if isinstance(value, list) else value
            attributes.append(f"    {name}: {shown}")
    if attributes:
        lines += ["  Key Attributes:", *attributes]
    return [*lines, ""]


def oracle_prompt(persona: str, category: str, items: list[dict[str, Any]]) -> str:
    """BIEL's oracle prompt: the persona, the category and every product, by index."""
    products = "\n".join(line for n, item in enumerate(items) for line in _product(n, item))
    last = len(items) - 1
    return f"""You are an oracle recommendation agent with perfect knowledge of a customer's \
preferences.

Customer Persona:
{persona}

Product Category: {category}

Available Products:
{products}

Task:
Given the customer's complete persona description, choose the single best product that \
would most satisfy their preferences and needs. You have perfect knowledge of what this \
customer would want.

Output format (MUST be exactly one line, no extra text):
RECOMMEND: <array_index_0_to_{last}>

IMPORTANT: Return the PRODUCT INDEX (0, 1, 2, etc.), NOT the product ID number.

Rules:
- Choose the product that best matches the customer's persona
- Consider all aspects of their preferences, lifestyle, and needs
- Return the array index (0-based), not the product ID
- No explanations, just the recommendation index
- You must recommend exactly one product"""


class LLMOracleStreamPolicy:
    """BIEL's full-information oracle over one stream of `task`."""

    def __init__(
        self, task: StreamTask, client: LLMClient, seed_key: str, label: str = "oracle"
    ) -> None:
        self.label = label
        self.task = task
        self.client = client
        self._seed_key = seed_key  # run seed, task and trial

    def prompt(self, view: dict[str, Any]) -> str:
        spec = played_episode(self.task, view)
        persona = self.task.persona_index[spec.persona_id]
        return oracle_prompt(persona.description, str(view["category"]), list(view["items"]))

    async def act(self, view: dict[str, Any], dialogue: Dialogue) -> Action:
        items = view["items"]
        index = read_oracle(
            await self.client.reply(self.prompt(view), ORACLE_TEMPERATURE), len(items)
        )
        if index is None:
            key = f"{self._seed_key}:{view['episode']}".encode()
            index = int.from_bytes(hashlib.sha256(key).digest()[:8], "big") % len(items)
        return "recommend", str(items[index]["id"])

    def observe(self, view: dict[str, Any], item_id: str, feedback: str | None) -> None:
        return None
