"""The server's defaults that `taurec serve` and `taurec run` show in their options,
importable without pydantic or the MCP SDK (a command's --help loads its module only).
`ServerSettings` and `HttpSettings` take their defaults from here."""

from __future__ import annotations

from typing import Final

#: The environment variable `taurec serve` and `taurec run` read the bearer token from.
AUTH_TOKEN_ENV: Final = "TAUREC_AUTH_TOKEN"

# ServerSettings
MAX_OPEN_PER_CLIENT: Final = 100
IDLE_TIMEOUT_SECONDS: Final = 1800.0
MAX_MESSAGE_CHARS: Final = 4000
MAX_TOOL_CALLS_PER_EPISODE: Final = 200
#: Bytes of model-call records (events and new prompt-store entries) one episode's
#: client may add; past it the rest are not logged.
MAX_MODEL_CALL_BYTES_PER_EPISODE: Final = 8 * 1024 * 1024
#: Bytes one stream's log may reach before its next call ends it (an honest stream of the
#: built-in suite logs under 200 kB, a current_episode answer about 14 kB; a plan of 120
#: streams stays under 500 MB).
MAX_STREAM_LOG_BYTES: Final = 4 * 1024 * 1024

# HttpSettings
MAX_REQUEST_BYTES: Final = 1024 * 1024
MAX_CONNECTIONS: Final = 1000
KEEP_ALIVE_SECONDS: Final = 30
MAX_HEADER_BYTES: Final = 16 * 1024
#: Stateful MCP sessions (opened with `initialize`) held at once, and per client.
MAX_SESSIONS: Final = 10_000
MAX_SESSIONS_PER_CLIENT: Final = 100
#: A stateful session with no request for this long is closed (the SDK's default: 1800).
SESSION_IDLE_SECONDS: Final = 300.0
#: Requests one client may send a second, and at once (its token bucket; http_rate.py).
REQUESTS_PER_SECOND: Final = 1500.0
REQUEST_BURST: Final = 500
