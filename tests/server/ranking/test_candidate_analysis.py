"""candidates_analyze: hierarchy paths whole, flat genres as flat groups, price bands."""

from pathlib import Path
from typing import Any

import orjson
import pytest
from support.amazon23 import write_category
from support.ranking import small_data

from taurec.catalog.amazon import read_amazon
from taurec.catalog.interaction_sources import load_interactions
from taurec.catalog.interactions import CategoryShape, ItemInfo
from taurec.server.ranking.candidate_analysis import (
    PRICE_UNKNOWN,
    analyze_candidates,
    price_band,
    price_of,
)
from taurec.server.ranking.tools import RankingData, candidates_analyze
from taurec.tasks.ranking.task import RankingTask

ROCK = ["CDs & Vinyl", "Rock", "Classic Rock"]


def _item(n: int, categories: list[str], price: str | None = None) -> ItemInfo:
    attributes = {"Price": price} if price is not None else {}
    return ItemInfo(
        id=f"i{n}", title=f"Item title {n}", categories=categories, attributes=attributes
    )


def _groups(text: str, section: str) -> dict[str, list[int]]:
    """{group: item numbers} of one section of the analysis."""
    out: dict[str, list[int]] = {}
    current = None
    lines = text.split(section + "\n", 1)[1].split("\nCandidate Analysis by")[0].splitlines()
    for line in lines:
        if line.startswith("- "):
            current = line[2:].removesuffix(":")
            out[current] = []
        else:
            assert current is not None and line.startswith("  – Item ")
            out[current].append(int(line.removeprefix("  – Item ").split(":")[0]))
    return out


def test_amazon_data_holds_category_paths_and_other_sources_flat_labels(tmp_path: Path):
    files = write_category(tmp_path)
    assert load_interactions(files.source()).category_shape is CategoryShape.PATH
    assert small_data().category_shape is CategoryShape.LABELS
    # a copy keeps it
    assert small_data().without_records_from(0).category_shape is CategoryShape.LABELS


def test_a_hierarchy_path_is_shown_whole_not_cut_to_two_levels():
    items = [_item(1, ROCK), _item(2, ["CDs & Vinyl", "Pop"])]
    text = analyze_candidates(items, CategoryShape.PATH)
    assert _groups(text, "Candidate Analysis by Category:") == {
        "CDs & Vinyl > Pop": [2],
        "CDs & Vinyl > Rock > Classic Rock": [1],
    }


def test_flat_genres_are_flat_groups_listing_the_item_under_each():
    items = [_item(1, ["Comedy", "Drama"]), _item(2, ["Drama"]), _item(3, [])]
    text = analyze_candidates(items, CategoryShape.LABELS)
    assert " > " not in text
    assert _groups(text, "Candidate Analysis by Category:") == {
        "Comedy": [1],
        "Drama": [1, 2],
        "Uncategorised": [3],
    }


def test_titles_keep_the_papers_line_format_and_length():
    item = ItemInfo(id="x", title="A" * 40, categories=["Drama"])
    assert analyze_candidates([item], CategoryShape.LABELS) == (
        "Candidate Analysis by Category:\n- Drama:\n  – Item 1: [" + "A" * 30 + "...]"
    )


@pytest.mark.parametrize(
    ("price", "band"),
    [
        ("$0.00", "Under $10"),
        ("$9.99", "Under $10"),
        ("$10.00", "$10–$25"),
        ("$24.99", "$10–$25"),
        ("$25.00", "$25–$50"),
        ("$50.00", "$50–$100"),
        ("$99.99", "$50–$100"),
        ("$100.00", "$100 and over"),
        ("$1,234.50", "$100 and over"),
        ("", PRICE_UNKNOWN),
        ("call for price", PRICE_UNKNOWN),
        ("$-3.00", PRICE_UNKNOWN),
    ],
)
def test_price_bands_have_inclusive_lower_bounds_and_an_unknown_band(price: str, band: str):
    assert price_band(price_of(_item(1, [], price))) == band


def test_the_price_section_follows_the_categories_in_band_order():
    items = [
        _item(1, ROCK, "$120.00"),
        _item(2, ROCK),
        _item(3, ROCK, "$4.50"),
        _item(4, ROCK, "$12"),
    ]
    text = analyze_candidates(items, CategoryShape.PATH)
    assert text.startswith("Candidate Analysis by Category:\n")
    assert text.index("Candidate Analysis by Category:") < text.index(
        "Candidate Analysis by Price:"
    )
    assert list(_groups(text, "Candidate Analysis by Price:").items()) == [
        ("Under $10", [3]),
        ("$10–$25", [4]),
        ("$100 and over", [1]),
        (PRICE_UNKNOWN, [2]),
    ]


def test_no_price_section_when_no_candidate_has_a_price():
    items = [_item(1, ["Comedy"]), _item(2, ["Drama"], "n/a")]
    assert "by Price" not in analyze_candidates(items, CategoryShape.LABELS)


def _jsonl(path: Path, docs: list[dict[str, Any]]) -> Path:
    path.write_bytes(b"".join(orjson.dumps(d) + b"\n" for d in docs))
    return path


def test_the_tool_over_amazon_data_groups_by_full_path_and_by_price(tmp_path: Path):
    meta: list[dict[str, Any]] = [
        {"parent_asin": "A1", "title": "Abbey Road", "categories": ROCK, "price": 19.99},
        {"parent_asin": "A2", "title": "Kind of Blue", "categories": ["CDs & Vinyl", "Jazz"]},
        {"parent_asin": "A3", "title": "Ok Computer", "categories": ROCK, "price": 8.0},
    ]
    reviews = [
        {"user_id": "u1", "parent_asin": a, "rating": 5, "timestamp": t * 1000}
        for a, t in (("A1", 100), ("A2", 200), ("A3", 300))
    ]
    data = read_amazon(_jsonl(tmp_path / "r.jsonl", reviews), _jsonl(tmp_path / "m.jsonl", meta))
    task = RankingTask(
        id="t",
        user_id="u1",
        target_time=50,
        history=[],
        candidates=["A1", "A2", "A3"],
        positive="A1",
    )
    text = candidates_analyze(RankingData(data, 50), task)
    assert _groups(text, "Candidate Analysis by Category:") == {
        "CDs & Vinyl > Jazz": [2],
        "CDs & Vinyl > Rock > Classic Rock": [1, 3],
    }
    assert _groups(text, "Candidate Analysis by Price:") == {
        "Under $10": [3],
        "$10–$25": [1],
        PRICE_UNKNOWN: [2],
    }
