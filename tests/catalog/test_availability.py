from __future__ import annotations

import pytest

from taurec.catalog.availability import UnknownItem


@pytest.fixture
def cat(make_item, make_catalog):
    return make_catalog(
        make_item("m", streaming_services=["Prime Video", "Netflix"]),
        make_item("nowhere", streaming_services=[]),
        make_item("odd", streaming_services=["Local Cable Plus"]),
    )


def test_item_on_a_user_service_is_available(cat):
    result = cat.availability("m", ["Netflix"])
    assert result.available
    assert result.matched == ["Netflix"]


def test_item_on_none_of_the_user_services_is_unavailable(cat):
    result = cat.availability("m", ["Hulu", "Disney+"])
    assert not result.available
    assert result.matched == []


def test_aliases_match_and_are_reported_canonically(cat):
    result = cat.availability("m", ["amazon prime", "NETFLIX "])
    assert result.matched == ["Amazon Prime Video", "Netflix"]


def test_item_services_are_canonical(cat):
    assert cat.availability("m", []).item_services == ["Amazon Prime Video", "Netflix"]


def test_no_user_services_means_unavailable(cat):
    assert not cat.availability("m", []).available


def test_item_streaming_nowhere_is_unavailable(cat):
    assert not cat.availability("nowhere", ["Netflix"]).available


def test_unknown_user_services_are_reported(cat):
    assert cat.availability("m", ["Netflix", "Blockbuster"]).unknown_services == ["Blockbuster"]


def test_unknown_services_still_compare_case_and_space_insensitively(cat):
    result = cat.availability("odd", ["local  cable plus"])
    assert result.available
    assert result.matched == ["Local Cable Plus"]


def test_a_service_named_twice_matches_once(cat):
    assert cat.availability("m", ["Netflix", "netflix"]).matched == ["Netflix"]


def test_unknown_item_id_raises_unknown_item_naming_it(cat):
    with pytest.raises(UnknownItem, match="unknown item id 'ghost'") as err:
        cat.availability("ghost", ["Netflix"])
    assert isinstance(err.value, KeyError)
    assert err.value.item_id == "ghost"
