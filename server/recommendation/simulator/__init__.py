"""Simulated users: the rule-based (agenda) user, and the interface every simulator meets."""

from taurec.server.recommendation.simulator.base import UserReply, UserSimulator
from taurec.server.recommendation.simulator.phrasing import describe, describe_all
from taurec.server.recommendation.simulator.rule_user import (
    DEFAULT_PATIENCE,
    RuleBasedUser,
    make_rule_user,
)

__all__ = [
    "DEFAULT_PATIENCE",
    "RuleBasedUser",
    "UserReply",
    "UserSimulator",
    "describe",
    "describe_all",
    "make_rule_user",
]
