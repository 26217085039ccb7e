"""How Streamable HTTP is exposed (`HttpSettings`): where the server listens, who may call
it, and how big a request may be. A typed object passed to the HTTP server, never read
from globals; see docs/server.md (HTTP security)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator, model_validator

from taurec.server.defaults import (
    AUTH_TOKEN_ENV,
    KEEP_ALIVE_SECONDS,
    MAX_CONNECTIONS,
    MAX_HEADER_BYTES,
    MAX_REQUEST_BYTES,
)
from taurec.server.hosts import LOOPBACK_NAMES, WILDCARD_HOSTS, is_host_name, is_loopback
from taurec.server.http_rate import RateLimits
from taurec.server.http_sessions import SessionLimits


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
