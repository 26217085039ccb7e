"""Server settings: typed objects passed to `build_server` and `run_server`, never read
from globals. `ServerSettings` say what is served (on any transport); `HttpSettings` say
how Streamable HTTP is exposed."""

from __future__ import annotations

from pathlib import Path
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator, model_validator

from taurec.server.defaults import (
    AUTH_TOKEN_ENV,
    IDLE_TIMEOUT_SECONDS,
    KEEP_ALIVE_SECONDS,
    MAX_CONNECTIONS,
    MAX_HEADER_BYTES,
    MAX_MESSAGE_CHARS,
    MAX_MODEL_CALL_BYTES_PER_EPISODE,
    MAX_OPEN_PER_CLIENT,
    MAX_REQUEST_BYTES,
    MAX_TOOL_CALLS_PER_EPISODE,
)
from taurec.server.hosts import LOOPBACK_NAMES, WILDCARD_HOSTS, is_host_name, is_loopback
from taurec.server.http_rate import RateLimits
from taurec.server.http_sessions import SessionLimits
from taurec.tasks.runs.plan import LABEL_PATTERN
from taurec.tasks.stream.protocol import StreamProtocol

SimulatorKind = Literal["rule", "abus", "agenda-requests", "llm", "llm-sp", "llm-dp"]
#: The simulators that call an LLM (they need simulator_model).
LLM_SIMULATORS: Final = frozenset({"llm", "llm-sp", "llm-dp"})


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
        description="The simulated user: 'rule' (deterministic), 'abus' (UserSimCRS's "
        "agenda-based user, deterministic), 'agenda-requests' (an agenda user that asks about "
        "titles before taking them, deterministic), 'llm-sp' and 'llm-dp' (UserSimCRS's "
        "single- and dual-prompt LLM users: the LLM decides) or 'llm' (the rule-based user "
        "decides, an LLM words it); the LLM users need simulator_model.",
    )
    simulator_model: str | None = Field(
        default=None,
        min_length=1,
        description="The LLM user's model: any litellm model string, e.g. 'openai/gpt-4o-mini'.",
    )
    nlu_model: str | None = Field(
        default=None,
        min_length=1,
        description="Read the acts of agent messages with this LLM (a litellm model string; "
        "acts_by 'llm-nlu') instead of the deterministic NLU (acts_by 'nlu').",
    )
    agenda_dialogues: Path | None = Field(
        default=None,
        description="Simulators 'abus' and 'agenda-requests': annotated dialogues (episode "
        "logs, annotated-dialogue JSONL, DialogueKit JSON such as UserSimCRS's IARD file) to "
        "build the transition matrices of the 'other' case from; without them that case "
        "falls back to the agenda.",
    )
    nlg_model: str | None = Field(
        default=None,
        min_length=1,
        description="Simulators 'rule', 'abus' and 'agenda-requests': word their replies with "
        "this LLM (a litellm model string); what they decide is unchanged.",
    )
    abus_schema: Path | None = Field(
        default=None,
        description="Simulator 'abus': its intent schema, a YAML file (default: the IARD one, "
        "taurec/server/recommendation/simulator/schemas/iard.yaml).",
    )
    abus_slot_values: Literal["history", "catalog"] = Field(
        default="history",
        description="Simulator 'abus', asked about a slot its need holds no constraint for: "
        "'history', a value its rated history likes, else don't know; 'catalog', as "
        "UserSimCRS's user does, a catalog value its preference model likes (up to 10 tries).",
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
        pattern=LABEL_PATTERN,
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
    report_acceptance: bool = Field(
        default=False,
        description="A harness's server: send_message results carry `accepted`, the item "
        "the simulated user accepted in its reply (its own act, whatever its words), so a "
        "harness that commits for a text-only contestant (--agent crs) commits on the "
        "user's decision. An agent's server leaves it off: agents read the user's words.",
    )
    max_open_per_client: int = Field(
        default=MAX_OPEN_PER_CLIENT,
        ge=1,
        description="Episodes one client may have open at once (a client: its run plan, "
        "else over HTTP a bearer token the server knows, else its address; 'open' over "
        "stdio); start_episode refuses beyond this, while other clients go on starting theirs.",
    )
    idle_timeout_seconds: float = Field(
        default=IDLE_TIMEOUT_SECONDS,
        gt=0,
        le=7 * 24 * 3600,
        description="An open episode that gets no call for this long is ended (agent_error, "
        "'idle timeout') by a periodic sweep, so abandoned episodes do not hold the limits.",
    )
    max_message_chars: int = Field(
        default=MAX_MESSAGE_CHARS,
        ge=1,
        le=100_000,
        description="Longest text argument of an episode tool (send_message text, recommend "
        "message, search query, ids, filter strings), and longest aside (_meta "
        "'taurec/aside'), in characters; a longer one is refused with an error and changes "
        "nothing.",
    )
    max_tool_calls_per_episode: int = Field(
        default=MAX_TOOL_CALLS_PER_EPISODE,
        ge=1,
        le=100_000,
        description="Tool calls one episode accepts (send_message included, abort_episode "
        "not); the next call ends the episode as agent_error.",
    )
    max_model_call_bytes_per_episode: int = Field(
        default=MAX_MODEL_CALL_BYTES_PER_EPISODE,
        ge=0,
        description="Bytes of the agent's model-call records (_meta 'taurec/model_calls') one "
        "episode logs, events and prompt store together; past it one note says so.",
    )
    max_query_chars: int = Field(
        default=500,
        ge=1,
        le=100_000,
        description="Longest search_catalog query, in characters (a search's work grows with "
        "its words); a longer one is refused like an over-long text argument.",
    )
    catalog_workers: int | None = Field(
        default=None,
        ge=1,
        le=1024,
        description="Threads that run catalog searches and filters off the event loop "
        "(default: the cores this process may use).",
    )
    catalog_workers_per_client: int | None = Field(
        default=None,
        ge=1,
        le=1024,
        description="Of those threads, how many one client's calls may hold at once; its "
        "further calls wait for one of its own (default: half, at least one).",
    )
    catalog_call_seconds: float = Field(
        default=5.0,
        gt=0,
        le=3600,
        description="Time budget of one search or filter call, its wait for a thread "
        "included; past it the call ends with an error (its result, if it comes, dropped).",
    )
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = Field(
        default="WARNING", description="Server log level (logs go to stderr)."
    )
    plans: tuple[Path, ...] = Field(
        default=(),
        description="Sealed mode: plan files (taurec plan new), one per contestant. Each "
        "plan's token decides its label, and each planned episode can be played once.",
    )
    stream_protocol: StreamProtocol = Field(
        default_factory=StreamProtocol,
        description="Stream suites: feedback (task, none, shuffled), rules (biel, taurec) "
        "and whether episodes are played in a shuffled order; recorded in each log header.",
    )

    @model_validator(mode="after")
    def _llm_user_needs_a_model(self) -> ServerSettings:
        if self.simulator in LLM_SIMULATORS and self.simulator_model is None:
            raise ValueError(
                f"simulator {self.simulator!r} needs simulator_model (a litellm model string)"
            )
        if self.simulator not in LLM_SIMULATORS and self.simulator_model is not None:
            raise ValueError(
                "simulator_model applies to simulators 'llm', 'llm-sp' and 'llm-dp' only"
            )
        return self

    @model_validator(mode="after")
    def _dialogues_are_the_agenda_users(self) -> ServerSettings:
        if self.agenda_dialogues is not None and self.simulator not in ("abus", "agenda-requests"):
            raise ValueError("agenda_dialogues applies to simulators 'abus' and 'agenda-requests'")
        if self.abus_schema is not None and self.simulator != "abus":
            raise ValueError("abus_schema applies to simulator 'abus' only")
        if self.abus_slot_values != "history" and self.simulator != "abus":
            raise ValueError("abus_slot_values applies to simulator 'abus' only")
        if self.nlg_model is not None and self.simulator in LLM_SIMULATORS:
            raise ValueError("nlg_model applies to simulators 'rule', 'abus' and 'agenda-requests'")
        return self

    @model_validator(mode="after")
    def _bound_fields_need_a_task(self) -> ServerSettings:
        if self.task is None and (self.trial != 0 or self.seed is not None):
            raise ValueError("trial and seed apply to bound mode; give task as well")
        return self

    @model_validator(mode="after")
    def _plans_are_not_bound(self) -> ServerSettings:
        if self.plans and self.task is not None:
            raise ValueError("a sealed server (plans) serves its plans' episodes; drop task")
        return self

    @property
    def bound(self) -> bool:
        return self.task is not None

    @property
    def sealed(self) -> bool:
        return bool(self.plans)


class HttpSettings(BaseModel):
    """How `taurec serve --transport http` is exposed: where it listens, who may call it,
    and how big a request may be. See docs/server.md (HTTP security)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    host: str = Field(default="127.0.0.1", description="The address to bind.")
    port: int = Field(default=8000, ge=1, le=65535, description="The port to bind.")
    auth_token: SecretStr | None = Field(
        default=None,
        description="When set, every request must carry 'Authorization: Bearer <token>'.",
    )
    allow_remote: bool = Field(
        default=False,
        description="Serve a non-loopback host without auth_token (refused otherwise).",
    )
    allowed_hosts: tuple[str, ...] = Field(
        default=(),
        description="Extra names clients may use in the Host and Origin headers (e.g. this "
        "machine's DNS name, or a reverse proxy's), besides the bound host.",
    )
    max_request_bytes: int = Field(
        default=MAX_REQUEST_BYTES,
        ge=1024,
        le=64 * 1024 * 1024,
        description="Largest request body accepted, in bytes; a larger one gets 413.",
    )
    max_connections: int = Field(
        default=MAX_CONNECTIONS,
        ge=1,
        le=100_000,
        description="Concurrent connections and requests (uvicorn limit_concurrency); beyond "
        "this new requests get 503.",
    )
    keep_alive_seconds: int = Field(
        default=KEEP_ALIVE_SECONDS,
        ge=1,
        le=600,
        description="How long an idle keep-alive connection stays open (uvicorn "
        "timeout_keep_alive). Longer than clients' own idle expiry (httpx: 5 s), so a "
        "client never sends on a connection the server is closing at that moment.",
    )
    max_header_bytes: int = Field(
        default=MAX_HEADER_BYTES,
        ge=4 * 1024,
        le=1024 * 1024,
        description="Most bytes of an unfinished request line and headers held while they "
        "arrive (h11's max incomplete event size); beyond this the connection is refused.",
    )
    backlog: int = Field(
        default=2048, ge=1, le=65_535, description="Pending connections the socket queues."
    )
    shutdown_grace_seconds: int = Field(
        default=30,
        gt=0,
        le=3600,
        description="On SIGTERM/SIGINT, how long in-flight requests may take to finish.",
    )
    sessions: SessionLimits = Field(
        default_factory=SessionLimits,
        description="Stateful MCP sessions: how many in all and per client, and how long idle.",
    )
    rate: RateLimits = Field(
        default_factory=RateLimits,
        description="Requests per client: a steady rate a second and a burst; beyond: 429.",
    )

    @field_validator("auth_token")
    @classmethod
    def _token_is_a_usable_secret(cls, token: SecretStr | None) -> SecretStr | None:
        if token is None:
            return None
        value = token.get_secret_value()
        if len(value) < 16 or not all("!" <= ch <= "~" for ch in value):
            raise ValueError(
                f"the auth token must be at least 16 visible ASCII characters without spaces "
                f"(got {len(value)} characters); make one with: "
                "python -c 'import secrets; print(secrets.token_urlsafe(32))'"
            )
        return token

    @field_validator("allowed_hosts")
    @classmethod
    def _hosts_are_names(cls, hosts: tuple[str, ...]) -> tuple[str, ...]:
        names = []
        for host in hosts:
            name = host.strip().strip("[]").lower()
            if not is_host_name(name):
                raise ValueError(
                    f"allowed host {host!r} is not a host name or an IP address "
                    "(expected e.g. 'bench.example.org' or '192.168.1.5', without port)"
                )
            names.append(name)
        return tuple(names)

    @model_validator(mode="after")
    def _remote_needs_a_token(self) -> HttpSettings:
        if not is_loopback(self.host) and self.auth_token is None and not self.allow_remote:
            raise ValueError(
                f"host {self.host!r} is not a loopback address, so anyone who can reach it could "
                f"play episodes and write logs; give an auth token (--auth-token or "
                f"{AUTH_TOKEN_ENV}), or --allow-remote to serve it without one"
            )
        return self

    @property
    def token(self) -> str | None:
        return None if self.auth_token is None else self.auth_token.get_secret_value()

    @property
    def host_names(self) -> frozenset[str]:
        """The names accepted in the Host and Origin headers (lower case, IPv6 without
        brackets): the bound host (loopback names too when it is loopback or a wildcard)
        and `allowed_hosts`."""
        bound = self.host.strip().strip("[]").lower()
        names = set(self.allowed_hosts)
        if bound in WILDCARD_HOSTS or is_loopback(bound):
            names |= LOOPBACK_NAMES
        if bound not in WILDCARD_HOSTS:
            names.add(bound)
        return frozenset(names)

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/mcp"
