"""The evaluator's defaults, importable without the scoring stack (the CLI's options
name them, and `evaluator --help` must not load numpy, scipy or the catalog)."""

from __future__ import annotations

from typing import Final

#: the rules profile that judges episodes unless told otherwise (see recommendation/rules.py)
DEFAULT_RULES: Final = "taurec"
#: the largest log read; a bigger one is reported, not parsed
MAX_LOG_BYTES: Final = 64 * 1024 * 1024
