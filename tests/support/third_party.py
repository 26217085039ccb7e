"""Where the τ-Rec release lies for compatibility tests (never copied into the project)."""

from __future__ import annotations

from pathlib import Path

TAU_REC = Path(__file__).resolve().parents[2].parent / "shared" / "third_party" / "tau-rec-v1.0"


def release_item(item_id: str, **fields: object) -> dict[str, object]:
    """An invented item in the release's shape: our fields minus original_language and
    keywords."""
    return {
        "id": item_id,
        "title": f"Made-up film {item_id}",
        "release_date": "2020-01-01",
        "runtime": 95,
        "genres": ["Drama"],
        "overview": "",
        "cast": [],
        "director": None,
        "rating": 6.5,
        "vote_count": 10,
        "streaming_services": ["Netflix"],
        "sponsored": False,
        "content_rating": "PG",
        **fields,
    }
