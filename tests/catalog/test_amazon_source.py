"""The `amazon:` interaction source string: files, then `;`-separated options."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from support.amazon23 import write_category

from taurec.catalog.amazon import AmazonFilter
from taurec.catalog.amazon_source import parse_amazon_source
from taurec.catalog.errors import DataError
from taurec.catalog.interaction_sources import load_interactions


def _utc(y: int, m: int, d: int) -> int:
    return int(datetime(y, m, d, tzinfo=UTC).timestamp())


def test_two_files_without_options_keep_every_review() -> None:
    reviews, meta, keep = parse_amazon_source("r.jsonl,meta_r.jsonl.gz")
    assert (reviews, meta, keep) == (Path("r.jsonl"), Path("meta_r.jsonl.gz"), AmazonFilter())


def test_the_agenticrec_window_is_october_2022_to_october_2023() -> None:
    _, _, keep = parse_amazon_source("r,m;window=agenticrec")
    assert (keep.since, keep.until) == (_utc(2022, 10, 1), _utc(2023, 10, 1))


def test_options_follow_semicolons_so_a_category_may_hold_a_comma() -> None:
    arg = "r,m;since=2022-10-01; until=2023-10-01 ;category=Arts, Crafts & Sewing;category=Pop"
    _, _, keep = parse_amazon_source(arg)
    assert keep.categories == ("Arts, Crafts & Sewing", "Pop")
    assert keep.until == _utc(2023, 10, 1)


def test_min_user_and_kcore_are_whole_numbers() -> None:
    _, _, keep = parse_amazon_source("r,m;min_user=2;kcore=5")
    assert (keep.min_user, keep.kcore) == (2, 5)


@pytest.mark.parametrize(
    ("arg", "expected"),
    [
        ("r.jsonl", "expected two files: amazon:REVIEWS,META"),
        ("r,m;colour=red", "bad amazon option 'colour=red'; expected since=YYYY-MM-DD"),
        ("r,m;since", "bad amazon option 'since'; expected"),
        ("r,m;since=last year", "since='last year' is not a date; expected since=YYYY-MM-DD"),
        ("r,m;window=paper", "window='paper'; expected window=agenticrec"),
        ("r,m;window=agenticrec;since=2022-01-01", "window= and since=/until= both given"),
        ("r,m;since=2023-01-01;until=2022-01-01", "since= is not before until="),
        ("r,m;kcore=0", "kcore='0'; expected kcore=N with N a whole number >= 1"),
        ("r,m;min_user=2;min_user=3", "min_user= given twice; expected it once"),
    ],
)
def test_a_bad_option_is_one_line_naming_what_was_expected(arg: str, expected: str) -> None:
    with pytest.raises(DataError) as caught:
        load_interactions(f"amazon:{arg}")
    assert expected in str(caught.value) and "\n" not in str(caught.value)
    assert str(caught.value).startswith(f"amazon:{arg}: ")


def test_a_path_with_a_comma_is_split_where_both_files_exist(tmp_path: Path) -> None:
    files = write_category(tmp_path / "a,b", users=20)
    reviews, meta, _ = parse_amazon_source(f"{files.reviews},{files.meta};category=Pop")
    assert (reviews, meta) == (files.reviews, files.meta)


def test_a_path_with_a_comma_and_no_such_files_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="cannot tell where the reviews path ends"):
        parse_amazon_source(f"{tmp_path}/a,b/r.jsonl,{tmp_path}/m.jsonl")


def test_the_source_string_reads_the_filtered_files(tmp_path: Path) -> None:
    files = write_category(tmp_path, users=100, gz=True)
    everything = load_interactions(files.source())
    window = load_interactions(files.source("window=agenticrec;category=CDs & Vinyl"))
    assert 0 < len(window) < len(everything)
    assert window.time.min() >= _utc(2022, 10, 1) and window.time.max() < _utc(2023, 10, 1)
    assert all("CDs & Vinyl" in it.categories for it in window.items)
