"""How the shipped catalog is named where a catalog is asked for (`--catalog`, a suite's
`catalog`, `taurec catalog info`). Importable without the catalog stack, so the commands'
options can name it without loading that."""

from __future__ import annotations

from typing import Final

#: The catalog shipped with the package (`catalog/data/builtin.json`).
BUILTIN: Final = "builtin"
