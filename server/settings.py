"""Server settings: one typed object, passed to `build_server`, never read from globals."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

SimulatorKind = Literal["rule", "llm"]


class ServerSettings(BaseModel):
    """What the MCP server serves, and where it writes episode logs."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    suite: str = Field(
        default="builtin",
        min_length=1,
        description="'builtin', a suite folder, or tau-rec:PATH (see taurec.tasks.suite).",
    )
    catalog: str | None = Field(
        default=None, description="A catalog file to use instead of the suite's own catalog."
    )
    simulator: SimulatorKind = Field(
        default="rule",
        description="The simulated user: 'rule' (deterministic) or 'llm' (needs simulator_model).",
    )
    simulator_model: str | None = Field(
        default=None,
        min_length=1,
        description="The LLM user's model: any litellm model string, e.g. 'openai/gpt-4o-mini'.",
    )
    log_dir: Path = Field(default=Path("logs"), description="Episode logs go under this folder.")
    run_label: str | None = Field(
        default=None,
        min_length=1,
        max_length=100,
        pattern=r"^[A-Za-z0-9_.@+-]+$",
        description="Names the run: its log subfolder and every header's run_id. "
        "Default: run-<UTC time>-<random>.",
    )
    agent_label: str = Field(
        default="agent",
        min_length=1,
        max_length=200,
        description="The header's agent label when start_episode does not give one.",
    )
    task: str | None = Field(
        default=None,
        min_length=1,
        description="Bound mode: serve only this task's episode; episode ids become optional.",
    )
    trial: int = Field(default=0, ge=0, description="Bound mode: the trial to serve.")
    seed: int | None = Field(
        default=None,
        description="Bound mode: the episode seed (default: derived from task, trial).",
    )
    patience: int | None = Field(
        default=None,
        ge=1,
        le=200,
        description="The rule-based user's patience: fruitless turns before it leaves "
        "(default: the simulator's own). The turn budget stays each task's protocol.max_turns.",
    )
    max_open_episodes: int = Field(
        default=10_000,
        ge=1,
        description="Episodes that may be open at once; start_episode refuses beyond this.",
    )
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = Field(
        default="WARNING", description="Server log level (logs go to stderr)."
    )

    @model_validator(mode="after")
    def _llm_user_needs_a_model(self) -> ServerSettings:
        if self.simulator == "llm" and self.simulator_model is None:
            raise ValueError("simulator 'llm' needs simulator_model (a litellm model string)")
        if self.simulator == "rule" and self.simulator_model is not None:
            raise ValueError("simulator_model applies to simulator 'llm' only")
        return self

    @model_validator(mode="after")
    def _bound_fields_need_a_task(self) -> ServerSettings:
        if self.task is None and (self.trial != 0 or self.seed is not None):
            raise ValueError("trial and seed apply to bound mode; give task as well")
        return self

    @property
    def bound(self) -> bool:
        return self.task is not None
