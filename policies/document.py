"""The policy document agents read: policies/policy.md, shipped with the package."""

from __future__ import annotations

import re
from functools import lru_cache
from importlib.resources import files

from taurec.tasks.recommendation.task import PolicyName

POLICY_RESOURCE = "policy.md"


@lru_cache(maxsize=1)
def policy_text() -> str:
    return (files("taurec.policies") / POLICY_RESOURCE).read_text(encoding="utf-8")


def policy_sections() -> dict[PolicyName, str]:
    """Each policy's section of the document, keyed by the policy it defines."""
    text = policy_text()
    out: dict[PolicyName, str] = {}
    for match in re.finditer(r"^## \d+\. [^\n]*\(`(\w+)`\)\n(.*?)(?=^## |\Z)", text, re.M | re.S):
        out[PolicyName(match.group(1))] = match.group(2).strip()
    return out
