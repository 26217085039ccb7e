"""The `mock` model on streams: `taurec run --suite stream:... --agent llm --model mock`
(or `--agent oracle --model mock`).

It tries the whole path (litellm, the prompts, the replies' readers, planning picks,
stated confidences, usage, logs, scoring) without a key or a network: every call still
goes through litellm, which answers with the reply written here (`mock_response`). The
reply depends only on the prompt: a question when none was asked yet, else the first
product; the oracle names index 0; planning and confidence prompts state a fixed
confidence. It is a smoke test of the harness, not a baseline.
"""

from __future__ import annotations

import re
from typing import Final

_FIRST_PRODUCT = re.compile(r"Product ID (\S+?):")
MOCK_CONFIDENCE: Final = (
    "CONFIDENCE_FAVORITE: 0.3\nCONFIDENCE_TOP5: 0.6\nPREDICTED_REGRET: 15\n"
    "CONFIDENCE_REGRET_WITHIN_5: 0.2\nCONFIDENCE_REGRET_WITHIN_10: 0.4\n"
    "CONFIDENCE_REGRET_WITHIN_20: 0.7\nCONFIDENCE_REGRET_WITHIN_30: 0.9"
)
MOCK_SUMMARY: Final = "The customer answered one question; the first product was recommended."


def mock_stream_reply(prompt: str) -> str:
    """The stand-in model's reply to one of the stream prompts."""
    if "RECOMMEND: <array_index" in prompt:  # the oracle's prompt
        return "RECOMMEND: 0"
    if "Write only the summary" in prompt:
        return MOCK_SUMMARY
    first = m.group(1) if (m := _FIRST_PRODUCT.search(prompt)) else "0"
    if "CONFIDENCE_FAVORITE:" in prompt:
        return f"RECOMMEND: {first}\n{MOCK_CONFIDENCE}"
    asked = len(re.findall(r"^Q\d+: ", prompt, re.M))
    if prompt.rstrip().endswith("Your question:"):
        return f"QUESTION: What else matters to you (question {asked + 1})?"
    if "No questions asked yet." in prompt and "RECOMMEND: [product ID]" in prompt:
        return "QUESTION: What matters most to you in this product?"
    return f"RECOMMEND: {first}"
