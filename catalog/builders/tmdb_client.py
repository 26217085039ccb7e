"""A small TMDB v3 client that caches every raw response on disk.

A response is cached under a key made of the endpoint and its parameters (never the
credentials), so a rerun reads the cache, makes no request, and needs no API key.
Only successful responses and 404s are cached; 429 and 5xx are retried with
exponential backoff (honouring Retry-After), other errors stop the build.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import orjson

API_BASE = "https://api.themoviedb.org/3"
API_KEY_ENV = "TMDB_API_KEY"
READ_TOKEN_ENV = "TMDB_READ_TOKEN"
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


class TmdbError(RuntimeError):
    """TMDB could not be reached or refused us; the message says what to do about it."""


class NotFound(TmdbError):
    """TMDB answered 404 for this resource (e.g. a movie removed after discovery)."""


@dataclass(frozen=True)
class TmdbCredentials:
    """A v3 API key (sent as ?api_key=) or a v4 read access token (sent as a bearer)."""

    api_key: str | None = None
    read_token: str | None = None

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> TmdbCredentials | None:
        """Credentials from TMDB_READ_TOKEN or TMDB_API_KEY; None when neither is set."""
        env = os.environ if env is None else env
        token, key = env.get(READ_TOKEN_ENV, "").strip(), env.get(API_KEY_ENV, "").strip()
        if not token and not key:
            return None
        return cls(api_key=key or None, read_token=token or None)


@dataclass(frozen=True)
class RetryPolicy:
    """How hard to retry 429/5xx and transport errors before giving up."""

    attempts: int = 6
    backoff: float = 1.0  # seconds before the first retry; doubles each time
    max_wait: float = 60.0
    timeout: float = 20.0  # per request, seconds


def cache_key(endpoint: str, params: Mapping[str, Any]) -> str:
    """A file name for (endpoint, params): readable prefix + hash of the exact request."""
    canonical = orjson.dumps(
        {"endpoint": endpoint, "params": {k: str(v) for k, v in params.items()}},
        option=orjson.OPT_SORT_KEYS,
    )
    slug = re.sub(r"[^0-9a-zA-Z]+", "_", endpoint).strip("_")
    return f"{slug}-{hashlib.sha256(canonical).hexdigest()[:16]}"


class TmdbClient:
    """GET TMDB endpoints through an on-disk cache; counts requests and cache hits."""

    def __init__(
        self,
        cache_dir: str | Path,
        *,
        credentials: TmdbCredentials | None = None,
        transport: httpx.BaseTransport | None = None,
        base_url: str = API_BASE,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.cache_dir = Path(cache_dir)
        self.credentials = credentials
        self.retry = retry or RetryPolicy()
        self._sleep = sleep
        self._http = httpx.Client(
            base_url=base_url, transport=transport, timeout=self.retry.timeout
        )
        self.requests = 0
        self.cache_hits = 0

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> TmdbClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def get(self, endpoint: str, params: Mapping[str, Any]) -> dict[str, Any]:
        """The decoded JSON object for `endpoint`; raises NotFound on 404, TmdbError else."""
        key = cache_key(endpoint, params)
        ok_path = self.cache_dir / f"{key}.json"
        missing_path = self.cache_dir / f"{key}.404.json"
        if ok_path.is_file():
            self.cache_hits += 1
            return _decode(ok_path.read_bytes(), endpoint)
        if missing_path.is_file():
            self.cache_hits += 1
            raise NotFound(f"{endpoint}: not found on TMDB (cached 404)")
        status, body = self._fetch(endpoint, params)
        if status == 404:
            _write_atomic(missing_path, body)
            raise NotFound(f"{endpoint}: not found on TMDB")
        doc = _decode(body, endpoint)
        _write_atomic(ok_path, body)
        return doc

    def _fetch(self, endpoint: str, params: Mapping[str, Any]) -> tuple[int, bytes]:
        creds = self.credentials
        if creds is None:
            raise TmdbError(
                f"{endpoint} is not cached and no TMDB credentials are set; "
                f"set {API_KEY_ENV} (v3 API key) or {READ_TOKEN_ENV} (v4 read access token)"
            )
        query = {k: str(v) for k, v in params.items()}
        headers = {"Accept": "application/json"}
        if creds.read_token:
            headers["Authorization"] = f"Bearer {creds.read_token}"
        elif creds.api_key:
            query["api_key"] = creds.api_key
        wait = self.retry.backoff
        problem = ""
        for attempt in range(1, self.retry.attempts + 1):
            self.requests += 1
            try:
                response = self._http.get(endpoint, params=query, headers=headers)
            except httpx.TransportError as exc:
                problem = f"{type(exc).__name__}: {exc}"
                retry_after = None
            else:
                status = response.status_code
                if status == 200 or status == 404:
                    return status, response.content
                if status in (401, 403):
                    raise TmdbError(
                        f"{endpoint}: TMDB refused the credentials (HTTP {status}); "
                        f"check {API_KEY_ENV} / {READ_TOKEN_ENV}"
                    )
                if status not in RETRY_STATUSES:
                    raise TmdbError(f"{endpoint}: HTTP {status}: {response.text[:200]}")
                problem = f"HTTP {status}"
                retry_after = _retry_after(response)
            if attempt == self.retry.attempts:
                break
            self._sleep(min(self.retry.max_wait, retry_after if retry_after is not None else wait))
            wait *= 2
        raise TmdbError(f"{endpoint}: gave up after {self.retry.attempts} attempts ({problem})")


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("Retry-After", "")
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


def _decode(body: bytes, endpoint: str) -> dict[str, Any]:
    try:
        doc = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise TmdbError(f"{endpoint}: response is not JSON ({exc})") from None
    if not isinstance(doc, dict):
        raise TmdbError(f"{endpoint}: expected a JSON object, got {type(doc).__name__}")
    return doc


def _write_atomic(path: Path, body: bytes) -> None:
    # A crash mid-write must not leave a truncated cache entry that later reads as data.
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(body)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
