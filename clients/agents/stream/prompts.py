"""BIEL's prompts for the LLM stream agent (pipeline/core/unified_agent.py), built from
what the stream tools show.

Every prompt holds the episode's products (id, price, description: BIEL's
`_build_llm_context`), the conversation so far and, when the agent carries earlier
episodes, their record under a header set by the stream's setting (BIEL's
`_build_feedback_context`): `raw` (each episode's questions and answers, the title
recommended, the feedback) or `summary` (the summary the model wrote after each
episode). The prompts:

- decision: ask (`QUESTION: ...`) or recommend (`RECOMMEND: <product id>`);
- forced: the recommendation once the question budget is spent;
- question: planning episodes ask every question of the budget (no way to recommend),
  with BIEL's greedy or POMDP strategy section;
- confidence: a pick with BIEL's seven confidence lines (planning picks, --confidence);
- summary: what the model writes after an episode in `summary` mode.

Each prompt's temperature is BIEL's (TEMPERATURE). The customer is named by its number
in the stream ("customer 2" is #2).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from taurec.clients.agents.stream.play import Dialogue

#: BIEL's temperature per prompt (the decision prompt's is that of the decision method
#: BIEL's agent runs; the question prompt's is the agent's default).
TEMPERATURE: Final = {
    "decision": 0.4,
    "forced": 0.2,
    "question": 0.7,
    "confidence": 0.2,
    "summary": 0.3,
}
STRATEGIES: Final = {
    "greedy": """=== GREEDY STRATEGY ===
INTERNAL REASONING:
1. List all possible products the customer might like
2. Ask the question that ELIMINATES THE MOST products

Your question should maximize immediate information gain.""",
    "pomdp": """=== POMDP PLANNING STRATEGY ===
Think like a planner solving a POMDP:
1. Maintain a belief state over customer preferences
2. Compute expected value of information (EVI) for each question
3. Choose the question with highest EVI

Consider future question value, not just immediate gain.""",
}
#: The confidence lines, in BIEL's order, and the Confidence field each one fills.
CONFIDENCE_LINES: Final = {
    "CONFIDENCE_FAVORITE": (
        "favorite",
        "<probability 0.0-1.0 that this is the user's #1 favorite>",
    ),
    "CONFIDENCE_TOP5": ("top5", "<probability 0.0-1.0 that this is in the user's top 5>"),
    "PREDICTED_REGRET": (
        "predicted_regret",
        "<your single most likely prediction for the regret value, 0.0-100.0>",
    ),
    **{
        f"CONFIDENCE_REGRET_WITHIN_{k}": (
            f"within_{k}",
            f"<probability 0.0-1.0 that the actual regret is within {k} of your prediction>",
        )
        for k in (5, 10, 20, 30)
    },
}


@dataclass(frozen=True)
class EpisodeRecord:
    """What the agent keeps of one finished episode."""

    episode: int
    customer: str  # the customer's number in the stream
    category: str
    dialogue: tuple[tuple[str, str], ...]
    item_id: str
    title: str
    feedback: str | None
    summary: str | None = None  # `summary` mode: the model's own


def customer_number(view: dict[str, Any]) -> str:
    """The number in the customer's label: "customer 2" gives "2"."""
    return str(view.get("customer") or "unknown").rsplit(" ", 1)[-1]


def _price(item: dict[str, Any]) -> str:
    price = item.get("price")
    return f"${float(price):.2f}" if price is not None else "not listed"


def products_and_conversation(view: dict[str, Any], dialogue: Dialogue) -> str:
    """The products (id, price, description or else title) and this episode's Q/A."""
    lines = [f"Available {view['category']} products:"]
    for item in view["items"]:
        lines.append(f"Product ID {item['id']}: Price: {_price(item)}")
        lines.append(f"   Description: {item.get('description') or item['title']}")
        lines.append("")
    lines += ["", "Conversation so far:"]
    for n, (question, answer) in enumerate(dialogue, 1):
        lines += [f"Q{n}: {question}", f"A{n}: {answer}"]
    if not dialogue:
        lines.append("No questions asked yet.")
    return "\n".join(lines)


def _header(setting: str, records: Sequence[EpisodeRecord]) -> str:
    if setting == "variable_category":
        return f"=== WHAT YOU'VE LEARNED ABOUT CUSTOMER #{records[0].customer} ==="
    if setting == "variable_persona":
        return f"=== QUESTIONING STRATEGIES FOR {records[0].category.upper()} ==="
    return "=== PREVIOUS EPISODES ==="


def earlier_episodes(mode: str, setting: str, records: Sequence[EpisodeRecord]) -> str:
    """The record of earlier episodes under its header; "" in `none` mode or before any."""
    if mode == "none" or not records:
        return ""
    lines = [_header(setting, records), ""]
    for r in records:
        lines.append(f"Episode {r.episode} [{r.category}]:")
        if mode == "summary":
            lines.append(f"  {r.summary or ''}")
        else:
            for n, (question, answer) in enumerate(r.dialogue, 1):
                lines += [f"  Q{n}: {question}", f"  A{n}: {answer}"]
            lines.append(f"  Recommended: {r.title}")
            if r.feedback:
                lines.append(f"  Customer Feedback: {r.feedback}")
        lines.append("")
    return "\n".join(lines)


def _session(view: dict[str, Any]) -> str:
    return (
        f"SESSION: Customer #{customer_number(view)} | Episode {view['episode']} | "
        f"Category: {view['category']}"
    )


def _join(*sections: str) -> str:
    return "\n\n".join(s for s in sections if s)


def decision_prompt(view: dict[str, Any], dialogue: Dialogue, earlier: str) -> str:
    """Ask or recommend (BIEL's `_llm_decide_action`)."""
    return _join(
        "You are a product recommendation agent. Find the best product for this user "
        "while asking the fewest questions.",
        _session(view),
        "=== AVAILABLE PRODUCTS ===\n" + products_and_conversation(view, dialogue),
        earlier,
        """=== CRITICAL: OUTPUT FORMAT ===
You MUST respond in EXACTLY ONE of these two formats. NO OTHER TEXT ALLOWED.

To ask a question:
QUESTION: [your question]

To recommend a product (use the product ID shown in the list above):
RECOMMEND: [product ID]

Examples:
QUESTION: Do you have a preferred material for this product?
RECOMMEND: 972804""",
        """=== RULES ===
1. Your response MUST start with either "QUESTION:" or "RECOMMEND:"
2. Do NOT add any explanations, reasoning, or extra text before or after
3. Do NOT repeat any questions that were already asked (check conversation history above)
4. Questions must be short, specific, and consumer-friendly
5. Use previous answers to narrow down options intelligently
6. Recommend only when you have sufficient information to make a confident choice
7. Read any prior-episode customer feedback above with care; only output RECOMMEND: \
when you are sure the product fits what you learned there and in this conversation. If \
you are not sure, output QUESTION: instead of guessing.""",
        "Your response:",
    )


def forced_prompt(view: dict[str, Any], dialogue: Dialogue, earlier: str) -> str:
    """The recommendation at the question budget (BIEL's `_force_recommendation`)."""
    return _join(
        f"You are a product recommendation agent for {view['category']} products.",
        _session(view),
        "=== AVAILABLE PRODUCTS ===\n" + products_and_conversation(view, dialogue),
        earlier,
        "=== TASK ===\nYou have gathered sufficient information. Make your final "
        "recommendation now. Read any prior-episode customer feedback above carefully and "
        "choose the product ID that best respects that history and the answers in this "
        "episode.",
        "=== OUTPUT FORMAT ===\nRECOMMEND: [product ID from the list above]\n\n"
        "Example:\nRECOMMEND: 972804",
        "=== RULES ===\n1. Choose the product that best matches the user's preferences\n"
        "2. No questions allowed - you must recommend\n"
        "3. No explanations - only the format above",
        "Your response:",
    )


def question_prompt(
    view: dict[str, Any], dialogue: Dialogue, earlier: str, strategy: str | None
) -> str:
    """A question and nothing else: planning episodes (BIEL's `_ask_question_only`),
    with the strategy section of greedy or pomdp planning."""
    return _join(
        "You are a product recommendation agent.",
        _session(view),
        "=== AVAILABLE PRODUCTS ===\n" + products_and_conversation(view, dialogue),
        earlier,
        STRATEGIES.get(strategy or "", ""),
        "=== OUTPUT FORMAT ===\nQUESTION: [your question]",
        "=== RULES ===\n1. Ask about preferences, not specific products\n"
        "2. Questions must be consumer-friendly\n3. No explanations, just the format",
        "Your question:",
    )


def confidence_prompt(view: dict[str, Any], dialogue: Dialogue, earlier: str) -> str:
    """A pick with stated confidence (BIEL's `_make_recommendation_with_confidence`)."""
    lines = "\n".join(f"{key}: {what}" for key, (_, what) in CONFIDENCE_LINES.items())
    return _join(
        f"You are a product recommendation agent for {view['category']} products.",
        "Context:\n" + products_and_conversation(view, dialogue),
        earlier,
        "Task:\nBased on the information you've gathered so far, make a recommendation and "
        "provide confidence scores about the potential regret. Regret is the score "
        "difference between the best possible product and the one you recommend (0 = "
        "perfect choice).",
        "Output format (MUST be exactly as shown, no extra text):\n"
        f"RECOMMEND: <product ID from the list above>\n{lines}",
        "Rules:\n- Choose the product that best matches the user's expressed preferences.\n"
        "- All probability values must be between 0.0 and 1.0.\n"
        "- All values must be numeric, no explanations.",
    )


def _focus(setting: str, records: Sequence[EpisodeRecord]) -> str:
    if setting == "variable_category":
        mode = (
            f"You are recommending to the SAME customer (#{records[0].customer}) across "
            "DIFFERENT categories."
        )
    elif setting == "variable_persona":
        mode = (
            "You are recommending to DIFFERENT customers in the SAME category "
            f"({records[0].category})."
        )
    else:
        mode = "You are recommending to DIFFERENT customers across DIFFERENT categories."
    return (
        f"{mode}\n\nReflect on what information from this episode would be most helpful "
        "for your next recommendation. Focus on insights that will improve your "
        "performance in future episodes."
    )


def summary_prompt(record: EpisodeRecord, setting: str, records: Sequence[EpisodeRecord]) -> str:
    """The summary of `record` (BIEL's `_generate_episode_summary`); `records` are all the
    finished episodes, `record` among them."""
    qa = "".join(f"Q{n}: {q}\nA{n}: {a}\n" for n, (q, a) in enumerate(record.dialogue, 1))
    return _join(
        f"You just completed Episode {record.episode} in the {record.category} category "
        f"for Customer {record.customer}.",
        f"Episode Details:\n{qa}Selected Product: {record.item_id}\n"
        f"Customer Feedback: {record.feedback or ''}",
        "Your task is to provide the context from this episode that you would want a "
        "future agent to know.",
        _focus(setting, records),
        "Write only the summary, no additional commentary:",
    )
