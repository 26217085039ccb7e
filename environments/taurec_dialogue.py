"""`vf-eval taurec-dialogue`: taurec's τ-Rec dialogues (a simulated user, the
catalog's tools, one recommendation), as a verifiers environment.
verifiers imports the module an environment id names (dashes as underscores) and calls
its `load_environment`; see taurec.clients.frameworks.verifiers_env."""

from __future__ import annotations

from typing import Any

from taurec.clients.frameworks.verifiers_env import load_environment as load
from taurec.clients.frameworks.verifiers_rollout import TaurecVerifiersEnv


def load_environment(suite: str | None = None, **kwargs: Any) -> TaurecVerifiersEnv:
    return load("dialogue", suite, **kwargs)
