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


#: τ-Rec v1.0's own source (MIT), for differential tests: importable from this folder.
TAU_REC_SRC = TAU_REC.parent / "tau-rec-v1.0-src"


def tau_rec_source() -> Path | None:
    """Put τ-Rec's source on sys.path and return its folder; None when it or the release
    is absent, or its evaluator cannot be imported (rank-bm25 missing)."""
    import sys

    if not (TAU_REC_SRC / "tau_rec").is_dir() or not TAU_REC.is_dir():
        return None
    if str(TAU_REC_SRC) not in sys.path:
        sys.path.insert(0, str(TAU_REC_SRC))
    try:
        import tau_rec.evaluator.evaluator  # noqa: F401
    except ImportError:
        return None
    return TAU_REC_SRC


TAU_REC_SKIP = (
    f"τ-Rec v1.0's source and release are not at {TAU_REC_SRC} and {TAU_REC} (or its "
    "evaluator does not import): the differential test against τ-Rec's own evaluator needs them"
)
