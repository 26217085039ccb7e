"""Where the τ-Rec release lies for compatibility tests (never copied into the project)."""

from __future__ import annotations

from pathlib import Path

TAU_REC = Path(__file__).resolve().parents[2].parent / "shared" / "third_party" / "tau-rec-v1.0"
