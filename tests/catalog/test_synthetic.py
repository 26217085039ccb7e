"""The synthetic generator: seeded, prefix-stable, valid items with realistic joints."""

from __future__ import annotations

import statistics
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from taurec.catalog.builders.distributions import FIRST_RELEASE, LAST_RELEASE
from taurec.catalog.builders.synthetic import BLOCK_SIZE, generate_items, id_width
from taurec.catalog.builders.titles import Titler
from taurec.catalog.builders.vocabulary import GENRES, TITLE_BLOCKLIST
from taurec.catalog.io import read_catalog_file
from taurec.catalog.item import ContentRating, Item
from taurec.catalog.services import SERVICE_ALIASES
from taurec.catalog.store import Catalog, builtin_path
from taurec.clients.cli.catalog import app

BUILTIN_SEED = 73
FAMILY_RATINGS = {ContentRating.G, ContentRating.PG}


@pytest.fixture(scope="module")
def sample() -> list[Item]:
    """Enough items for distribution checks to be stable (seeded, so never flaky)."""
    return generate_items(4000, seed=11)


def test_same_n_and_seed_give_identical_items() -> None:
    assert generate_items(50, seed=3) == generate_items(50, seed=3)


def test_different_seeds_give_different_items() -> None:
    assert [i.title for i in generate_items(20, 1)] != [i.title for i in generate_items(20, 2)]


def test_first_k_items_equal_a_k_item_run_across_a_block_boundary() -> None:
    k = BLOCK_SIZE + 10
    assert generate_items(k + 500, seed=5)[:k] == generate_items(k, seed=5)


def test_ids_are_zero_padded_to_six_digits_or_to_fit_n() -> None:
    assert [i.id for i in generate_items(3)] == ["syn_000001", "syn_000002", "syn_000003"]
    assert id_width(999_999) == 6
    assert id_width(1_000_000) == 7


def test_negative_seed_is_rejected() -> None:
    with pytest.raises(ValueError, match="seed"):
        generate_items(1, seed=-1)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(min_value=1, max_value=40), seed=st.integers(min_value=0, max_value=2**32))
def test_every_generated_item_validates_as_an_item(n: int, seed: int) -> None:
    for item in generate_items(n, seed):
        assert Item.model_validate(item.model_dump()) == item


def test_services_are_canonical_names(sample: list[Item]) -> None:
    used = {s for item in sample for s in item.streaming_services}
    assert used <= set(SERVICE_ALIASES)


def test_services_per_title_range_from_zero_to_three(sample: list[Item]) -> None:
    counts = Counter(len(item.streaming_services) for item in sample)
    assert set(counts) == {0, 1, 2, 3}


def test_every_title_has_one_to_three_known_distinct_genres(sample: list[Item]) -> None:
    for item in sample:
        assert 1 <= len(item.genres) <= 3
        assert len(set(item.genres)) == len(item.genres)
        assert set(item.genres) <= set(GENRES)


def test_titles_are_unique_and_avoid_the_blocklist(sample: list[Item]) -> None:
    titles = [item.title for item in sample]
    assert len(set(titles)) == len(titles)
    assert not {t.casefold() for t in titles} & TITLE_BLOCKLIST


def test_release_dates_fall_in_the_window_and_skew_recent(sample: list[Item]) -> None:
    dates = [item.release_date for item in sample]
    assert min(dates) >= FIRST_RELEASE
    assert max(dates) <= LAST_RELEASE
    assert statistics.median(d.year for d in dates) >= 2000


def test_ratings_are_centred_near_6_3(sample: list[Item]) -> None:
    ratings = [item.rating for item in sample]
    assert statistics.mean(ratings) == pytest.approx(6.3, abs=0.15)
    assert statistics.pstdev(ratings) == pytest.approx(0.9, abs=0.15)


def test_vote_counts_are_heavy_tailed(sample: list[Item]) -> None:
    votes = sorted(item.vote_count for item in sample)
    assert votes[-1] > 20 * statistics.median(votes)


def test_animation_is_mostly_family_rated_and_shorter(sample: list[Item]) -> None:
    animation = [i for i in sample if "Animation" in i.genres]
    family_rated = sum(i.content_rating in FAMILY_RATINGS for i in animation)
    assert family_rated / len(animation) > 0.7
    assert statistics.mean(i.runtime for i in animation) < 100


def test_animation_comes_with_family_far_more_often_than_other_titles(sample: list[Item]) -> None:
    def family_share(items: list[Item]) -> float:
        return sum("Family" in i.genres for i in items) / len(items)

    animation = [i for i in sample if "Animation" in i.genres]
    others = [i for i in sample if "Animation" not in i.genres]
    assert family_share(animation) > 4 * family_share(others)


def test_horror_is_rated_r_more_often_than_the_catalog(sample: list[Item]) -> None:
    def r_share(items: list[Item]) -> float:
        return sum(i.content_rating is ContentRating.R for i in items) / len(items)

    horror = [i for i in sample if "Horror" in i.genres]
    assert r_share(horror) > r_share(sample) + 0.1


def test_history_and_war_run_longer_than_comedy(sample: list[Item]) -> None:
    def mean_runtime(genre: str) -> float:
        return statistics.mean(i.runtime for i in sample if i.genres[0] == genre)

    assert min(mean_runtime("History"), mean_runtime("War")) > mean_runtime("Comedy") + 20


def test_about_five_percent_are_sponsored(sample: list[Item]) -> None:
    assert 0.03 < sum(i.sponsored for i in sample) / len(sample) < 0.07


def test_most_titles_are_english_but_not_all(sample: list[Item]) -> None:
    english = sum(i.original_language == "en" for i in sample) / len(sample)
    assert 0.65 < english < 0.9


def test_some_directors_recur(sample: list[Item]) -> None:
    per_director = Counter(i.director for i in sample)
    assert sum(count >= 5 for count in per_director.values()) >= 10


def test_cli_recreates_the_builtin_snapshot_byte_for_byte(tmp_path: Path) -> None:
    out = tmp_path / "builtin.json"
    result = CliRunner().invoke(
        app, ["generate", "--n", "300", "--seed", str(BUILTIN_SEED), "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == builtin_path().read_bytes()


def test_cli_writes_json_lines_that_read_back(tmp_path: Path) -> None:
    out = tmp_path / "small.jsonl"
    result = CliRunner().invoke(app, ["generate", "--n", "25", "--seed", "4", "--out", str(out)])
    assert result.exit_code == 0, result.output
    meta, items = read_catalog_file(out)
    assert (meta.source, meta.seed, meta.name) == ("synthetic", 4, "small")
    assert items == generate_items(25, seed=4)


def test_builtin_snapshot_has_the_variety_tasks_need() -> None:
    items = Catalog.load("builtin").items
    genres = Counter(g for i in items for g in i.genres)
    ratings = Counter(i.content_rating for i in items)
    assert all(genres[g] >= 10 for g in GENRES if g != "Western")
    assert ratings[ContentRating.R] >= 80
    assert ratings[ContentRating.NC_17] >= 1 and ratings[ContentRating.NR] >= 10
    assert sum("Family" in i.genres and i.content_rating in FAMILY_RATINGS for i in items) >= 10
    assert sum(not i.streaming_services for i in items) >= 20
    assert (
        sum(i.sponsored and i.genres[0] in {"Drama", "Comedy", "Action", "Thriller"} for i in items)
        >= 3
    )
    assert sum(n >= 4 for n in Counter(i.director for i in items).values()) >= 3
    runtimes = [i.runtime for i in items]
    assert min(runtimes) <= 80 and max(runtimes) >= 175


def test_a_repeated_title_gets_a_fresh_title_rather_than_a_sequel() -> None:
    titler = Titler()
    dice = list(range(1, 21))
    first = titler.title("dark", dice, "Maren")
    second = titler.title("dark", dice, "Maren")
    assert second != first
    assert not second.endswith(" II")
