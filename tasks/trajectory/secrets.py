"""Secrets never written or printed: what `scrub` takes out of a text before a log, a run
register, a viewer bundle or an error message keeps it.

Two kinds of text are replaced:

- the value of every environment variable whose name says it holds a credential (it
  contains KEY, TOKEN, SECRET, PASSWORD, PASSWD, CREDENTIAL or AUTH: OPENAI_API_KEY and
  every other variable litellm reads a key from, AWS_SECRET_ACCESS_KEY, TAUREC_LOG_KEY,
  TAUREC_AUTH_TOKEN, ...) and whose value is at least MIN_SECRET_CHARS long, wherever it
  appears, by `<redacted $NAME>`;
- text shaped like a key, whoever's it is: the prefixes providers give their keys
  (`sk-...`, `AKIA...`, `AIza...`, `ghp_...`, `hf_...`, `xoxb-...`, ...), JSON web tokens,
  private-key blocks, the credential of an `Authorization: Bearer ...` header, and the
  value of an assignment such as `api_key="..."` or `password: ...`, by `<redacted>`.

The environment is read at each call (a process may set a key after it starts). A text
is scrubbed where it enters a record (an end record's detail and traceback, a model call's
error, a register's end) and again where one is shown or printed, for records an older
version wrote.
"""

from __future__ import annotations

import logging
import os
import re
import traceback
from collections.abc import Mapping
from typing import Any, Final

#: An environment value shorter than this is no secret worth hiding (and too common).
MIN_SECRET_CHARS: Final = 8
REDACTED: Final = "<redacted>"

_SECRET_NAME: Final = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH", re.I)
_SHAPED: Final = re.compile(
    "|".join(
        (
            r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)",
            r"(?<![A-Za-z0-9])sk-[A-Za-z0-9_\-]{16,}",  # OpenAI, Anthropic (sk-ant-), ...
            r"(?<![A-Za-z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Z])",  # AWS access key ids
            r"(?<![A-Za-z0-9])AIza[0-9A-Za-z_\-]{30,}",  # Google
            r"(?<![A-Za-z0-9])ya29\.[0-9A-Za-z_\-]{20,}",  # Google OAuth
            r"(?<![A-Za-z0-9])(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{20,})",
            r"(?<![A-Za-z0-9])glpat-[A-Za-z0-9_\-]{20,}",  # GitLab
            r"(?<![A-Za-z0-9])xox[abposr]-[A-Za-z0-9\-]{10,}",  # Slack
            r"(?<![A-Za-z0-9])(?:hf|gsk|r8|pplx|xai|fw)_[A-Za-z0-9]{20,}",  # HF, Groq, ...
            r"(?<![A-Za-z0-9])(?:pplx|xai)-[A-Za-z0-9]{20,}",  # Perplexity, xAI
            r"(?<![A-Za-z0-9_\-])eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
        )
    ),
    re.S,
)
#: `Bearer <credential>` (a header echoed in an error) and `api_key = "<value>"`: the word
#: stays, the credential goes.
_ASSIGNED: Final = re.compile(
    r"(?i)((?<![A-Za-z])(?:bearer|basic)\s+|"
    r"(?<![A-Za-z])(?:api[_\-]?key|apikey|secret(?:[_\-]?key)?|password|passwd|"
    r"access[_\-]?key|auth[_\-]?token|access[_\-]?token|token)[\"']?\s*[:=]\s*[\"']?)"
    r"([A-Za-z0-9._~+/\-]{8,}=*)"
)


def secret_values(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """Value -> variable name, for the credentials `environ` (default: os.environ) holds."""
    env = os.environ if environ is None else environ
    return {
        value: name
        for name, value in env.items()
        if _SECRET_NAME.search(name) and len(value.strip()) >= MIN_SECRET_CHARS
    }


class Scrubber:
    """`scrub` with the environment read once (for many texts: a document's strings)."""

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        values = secret_values(environ)
        self._names = values
        # longest first, so a key that contains another is replaced whole
        alternatives = sorted(values, key=len, reverse=True)
        self._values = re.compile("|".join(map(re.escape, alternatives))) if values else None

    def text(self, text: str) -> str:
        """`text` without the credentials and anything shaped like a key."""
        if not text:
            return text
        if self._values is not None:
            text = self._values.sub(lambda m: f"<redacted ${self._names[m.group(0)]}>", text)
        text = _SHAPED.sub(REDACTED, text)
        return _ASSIGNED.sub(lambda m: m.group(1) + REDACTED, text)

    def tree(self, value: Any) -> Any:
        """`value` (JSON-like: dicts, lists, strings, ...) with every string scrubbed."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {k: self.tree(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.tree(v) for v in value]
        return value


def scrub(text: str, environ: Mapping[str, str] | None = None) -> str:
    """`text` without the environment's credentials and anything shaped like a key (see
    the module docstring)."""
    return Scrubber(environ).text(text) if text else text


def scrub_optional(text: str | None, environ: Mapping[str, str] | None = None) -> str | None:
    """`scrub` of a text that may be absent."""
    return None if text is None else scrub(text, environ)


def scrub_log_records() -> None:
    """From now on, every log record this process makes is scrubbed as it is made: its
    message, and its traceback, which is formatted then (any handler prints the text)."""
    make = logging.getLogRecordFactory()
    if getattr(make, "scrubs", False):
        return

    def scrubbed(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = make(*args, **kwargs)
        scrubber = Scrubber()
        try:
            record.msg, record.args = scrubber.text(record.getMessage()), None
        except (TypeError, ValueError):  # a bad format string: logging reports it later
            return record
        if record.exc_info:
            text = "".join(traceback.format_exception(*record.exc_info)).rstrip("\n")
            record.exc_text, record.exc_info = scrubber.text(text), None
        return record

    scrubbed.scrubs = True  # type: ignore[attr-defined]
    logging.setLogRecordFactory(scrubbed)
