"""The TMDB pipeline, against invented responses in tests/fixtures/tmdb served by MockTransport."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from typer.testing import CliRunner

from taurec.catalog.builders.tmdb import (
    TmdbBuild,
    TmdbSettings,
    build_catalog,
    certification_rating,
    region_certification,
    region_services,
)
from taurec.catalog.builders.tmdb_client import (
    API_KEY_ENV,
    READ_TOKEN_ENV,
    RetryPolicy,
    TmdbClient,
    TmdbCredentials,
    TmdbError,
)
from taurec.catalog.io import read_catalog_file, write_catalog_file
from taurec.catalog.item import ContentRating
from taurec.clients.cli.catalog import app

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "tmdb"
KEY = TmdbCredentials(api_key="test-key")


def fixture(name: str) -> dict[str, Any]:
    return orjson.loads((FIXTURES / name).read_bytes())


class FakeTmdb:
    """Serves the fixture files like TMDB would, and records every request it gets."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if request.url.params.get("api_key") != "test-key" and not request.headers.get(
            "Authorization"
        ):
            return httpx.Response(401, json={"status_code": 7, "status_message": "Invalid key"})
        path = request.url.path.removeprefix("/3")
        if path == "/discover/movie":
            name = f"discover_page_{request.url.params['page']}.json"
        else:
            name = f"movie_{path.rsplit('/', 1)[-1]}.json"
        if not (FIXTURES / name).is_file():
            return httpx.Response(404, json={"status_code": 34, "status_message": "Not found"})
        return httpx.Response(200, content=(FIXTURES / name).read_bytes())


def refuse_all(request: httpx.Request) -> httpx.Response:
    raise AssertionError(f"unexpected request {request.url}")


ClientFactory = Callable[..., TmdbClient]


@pytest.fixture
def make_client(tmp_path: Path) -> ClientFactory:
    def make(
        handler: Callable[[httpx.Request], httpx.Response],
        credentials: TmdbCredentials | None = KEY,
        sleeps: list[float] | None = None,
    ) -> TmdbClient:
        return TmdbClient(
            tmp_path / "cache",
            credentials=credentials,
            transport=httpx.MockTransport(handler),
            sleep=(sleeps.append if sleeps is not None else lambda _s: None),
        )

    return make


def run(client: TmdbClient, tmp_path: Path) -> TmdbBuild:
    settings = TmdbSettings(
        start=date(2024, 1, 1),
        snapshot_date=date(2025, 6, 30),
        pages=3,
        cache_dir=tmp_path / "cache",
    )
    with client:
        return build_catalog(settings, client=client)


def test_pipeline_discovers_enriches_and_normalises(
    make_client: ClientFactory, tmp_path: Path
) -> None:
    build = run(make_client(FakeTmdb()), tmp_path)
    assert [i.id for i in build.items] == [
        "tmdb_910001",
        "tmdb_910002",
        "tmdb_910003",
        "tmdb_910004",
    ]
    first = build.items[0]
    assert first.title == "The Cartographer's Daughter"
    assert first.release_date == date(2024, 3, 8)
    assert (first.runtime, first.rating, first.vote_count) == (118, 7.412, 1834)
    assert first.genres == ["Drama", "Romance"]
    assert first.cast == [
        "Imke Vasterling",
        "Lulu Fenwright",
        "Corbin Ashgrove",
        "Dov Pellarin",
        "Ines Marrowby",
    ]
    assert first.director == "Ansel Quorvale"
    assert first.streaming_services == ["Netflix"]
    assert first.content_rating is ContentRating.PG_13
    assert first.keywords == ["cartography", "grief", "flood"]
    assert first.sponsored is False


def test_pipeline_takes_certification_and_providers_from_the_region(
    make_client: ClientFactory, tmp_path: Path
) -> None:
    by_id = {i.id: i for i in run(make_client(FakeTmdb()), tmp_path).items}
    horror = by_id["tmdb_910004"]
    assert horror.content_rating is ContentRating.NC_17
    assert horror.streaming_services == []  # streams only in FR
    assert horror.original_language == "fr"


def test_meta_records_the_snapshot_date_and_the_window(
    make_client: ClientFactory, tmp_path: Path
) -> None:
    meta = run(make_client(FakeTmdb()), tmp_path).meta
    assert (meta.source, meta.snapshot_date) == ("tmdb", date(2025, 6, 30))
    assert meta.model_extra == {
        "region": "US",
        "window_start": "2024-01-01",
        "pages": 3,
        "min_votes": 50,
        "dropped": {
            "duplicate in discover results": 1,
            "missing runtime": 1,
            "not found on TMDB": 1,
        },
    }


def test_discover_sends_the_window_floor_and_popularity_order(
    make_client: ClientFactory, tmp_path: Path
) -> None:
    fake = FakeTmdb()
    run(make_client(fake), tmp_path)
    discover = [r for r in fake.requests if r.url.path.endswith("/discover/movie")]
    assert [r.url.params["page"] for r in discover] == ["1", "2"]  # total_pages is 2
    params = discover[0].url.params
    assert params["primary_release_date.gte"] == "2024-01-01"
    assert params["primary_release_date.lte"] == "2025-06-30"
    assert params["sort_by"] == "popularity.desc"
    assert params["vote_count.gte"] == "50"


def test_enrich_appends_credits_keywords_release_dates_and_providers(
    make_client: ClientFactory, tmp_path: Path
) -> None:
    fake = FakeTmdb()
    run(make_client(fake), tmp_path)
    movie = next(r for r in fake.requests if r.url.path.endswith("/movie/910001"))
    assert (
        movie.url.params["append_to_response"] == "credits,keywords,release_dates,watch/providers"
    )


def test_rerun_from_cache_makes_no_requests_needs_no_key_and_writes_identical_bytes(
    make_client: ClientFactory, tmp_path: Path
) -> None:
    first = run(make_client(FakeTmdb()), tmp_path)
    again = run(make_client(refuse_all, credentials=None), tmp_path)
    assert again.requests == 0
    assert again.cache_hits == first.requests
    a = write_catalog_file(tmp_path / "a.json", first.meta, first.items)
    b = write_catalog_file(tmp_path / "b.json", again.meta, again.items)
    assert a.read_bytes() == b.read_bytes()


def test_record_missing_runtime_is_dropped_and_reported(
    make_client: ClientFactory, tmp_path: Path
) -> None:
    build = run(make_client(FakeTmdb()), tmp_path)
    assert build.dropped["missing runtime"] == ["tmdb_910005"]
    assert "tmdb_910005" not in {i.id for i in build.items}


def test_movie_gone_from_tmdb_is_dropped_and_reported(
    make_client: ClientFactory, tmp_path: Path
) -> None:
    build = run(make_client(FakeTmdb()), tmp_path)
    assert build.dropped["not found on TMDB"] == ["tmdb_910006"]


def test_title_on_two_discover_pages_is_kept_once(
    make_client: ClientFactory, tmp_path: Path
) -> None:
    build = run(make_client(FakeTmdb()), tmp_path)
    assert [i.id for i in build.items].count("tmdb_910002") == 1
    assert build.dropped["duplicate in discover results"] == ["tmdb_910002"]


def test_provider_aliases_become_canonical_services() -> None:
    assert region_services(fixture("movie_910002.json"), "US") == ["HBO Max", "Paramount+"]
    assert region_services(fixture("movie_910003.json"), "US") == [
        "Disney+",
        "Amazon Prime Video",
    ]


def test_only_flatrate_providers_count_and_aliases_of_one_service_merge() -> None:
    # 910001 streams on "Netflix" and "Netflix Standard with Ads", and rents on Amazon Video
    assert region_services(fixture("movie_910001.json"), "US") == ["Netflix"]


@pytest.mark.parametrize(
    ("certification", "rating"),
    [
        ("G", ContentRating.G),
        ("PG", ContentRating.PG),
        ("PG-13", ContentRating.PG_13),
        ("pg13", ContentRating.PG_13),
        ("R", ContentRating.R),
        ("NC-17", ContentRating.NC_17),
        ("NR", ContentRating.NR),
        ("Unrated", ContentRating.NR),
        ("TV-MA", ContentRating.R),
        ("TV-14", ContentRating.PG_13),
        ("", ContentRating.NR),
        ("15", ContentRating.NR),
    ],
)
def test_certification_maps_to_content_rating_and_unknown_to_nr(
    certification: str, rating: ContentRating
) -> None:
    assert certification_rating(certification) is rating


def test_region_certification_prefers_the_theatrical_release() -> None:
    # US has a blank premiere, an "NR" digital release and an "R" theatrical release
    assert region_certification(fixture("movie_910002.json"), "US") == "R"
    assert region_certification(fixture("movie_910002.json"), "GB") == "15"
    assert region_certification(fixture("movie_910002.json"), "DE") == ""


def test_missing_credentials_error_names_both_variables(make_client: ClientFactory) -> None:
    assert TmdbCredentials.from_env({}) is None
    with pytest.raises(TmdbError, match=f"{API_KEY_ENV}.*{READ_TOKEN_ENV}"):
        make_client(refuse_all, credentials=None).get("/discover/movie", {"page": "1"})


def test_read_token_is_sent_as_a_bearer_header(make_client: ClientFactory) -> None:
    fake = FakeTmdb()
    creds = TmdbCredentials.from_env({READ_TOKEN_ENV: "tok"})
    make_client(fake, credentials=creds).get("/discover/movie", {"page": "1"})
    assert fake.requests[0].headers["Authorization"] == "Bearer tok"
    assert "api_key" not in fake.requests[0].url.params


def test_429_is_retried_after_the_servers_retry_after(make_client: ClientFactory) -> None:
    fake = FakeTmdb()
    calls: list[int] = []

    def limited(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        if len(calls) == 1:
            return httpx.Response(429, headers={"Retry-After": "3"})
        return fake(request)

    sleeps: list[float] = []
    client = make_client(limited, sleeps=sleeps)
    assert client.get("/discover/movie", {"page": "1"})["page"] == 1
    assert (sleeps, client.requests) == ([3.0], 2)


def test_server_errors_back_off_exponentially_then_give_up(tmp_path: Path) -> None:
    sleeps: list[float] = []
    client = TmdbClient(
        tmp_path,
        credentials=KEY,
        transport=httpx.MockTransport(lambda _r: httpx.Response(503)),
        retry=RetryPolicy(attempts=4, backoff=0.5),
        sleep=sleeps.append,
    )
    with pytest.raises(TmdbError, match="gave up after 4 attempts"):
        client.get("/discover/movie", {"page": "1"})
    assert sleeps == [0.5, 1.0, 2.0]


def test_rejected_credentials_fail_at_once_without_retry(make_client: ClientFactory) -> None:
    fake = FakeTmdb()
    client = make_client(fake, credentials=TmdbCredentials(api_key="wrong"))
    with pytest.raises(TmdbError, match="refused the credentials"):
        client.get("/discover/movie", {"page": "1"})
    assert len(fake.requests) == 1


def test_cli_without_credentials_or_cache_exits_2_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(API_KEY_ENV, raising=False)
    monkeypatch.delenv(READ_TOKEN_ENV, raising=False)
    args = ["build-tmdb", "--start", "2024-01-01", "--end", "2025-06-30"]
    args += ["--cache", str(tmp_path / "cache"), "--out", str(tmp_path / "out.json")]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and API_KEY_ENV in result.stderr
    assert not (tmp_path / "out.json").exists()


def test_cli_builds_from_a_warm_cache_without_credentials(
    make_client: ClientFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run(make_client(FakeTmdb()), tmp_path)  # warms tmp_path/cache
    monkeypatch.delenv(API_KEY_ENV, raising=False)
    monkeypatch.delenv(READ_TOKEN_ENV, raising=False)
    args = ["build-tmdb", "--start", "2024-01-01", "--end", "2025-06-30", "--pages", "3"]
    args += ["--cache", str(tmp_path / "cache"), "--out", str(tmp_path / "out.json")]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    meta, items = read_catalog_file(tmp_path / "out.json")
    assert len(items) == 4 and meta.name == "out"
    assert "dropped 1 record(s): missing runtime" in result.stderr
