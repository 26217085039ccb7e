from __future__ import annotations

import pytest

from taurec.catalog.services import canonical_service, known_service, service_key


@pytest.mark.parametrize(
    ("alias", "canonical"),
    [
        ("Prime Video", "Amazon Prime Video"),
        ("Amazon Prime Video", "Amazon Prime Video"),
        ("amazon prime", "Amazon Prime Video"),
        ("HBO Max", "HBO Max"),
        ("Max", "HBO Max"),
        ("Disney Plus", "Disney+"),
        ("apple tv plus", "Apple TV+"),
    ],
)
def test_aliases_map_to_one_canonical_name(alias, canonical):
    assert canonical_service(alias) == canonical


@pytest.mark.parametrize(
    "spelling", ["prime video", "PRIME VIDEO", "  Prime   Video ", "Prime-Video"]
)
def test_case_spacing_and_punctuation_do_not_matter(spelling):
    assert canonical_service(spelling) == "Amazon Prime Video"


def test_plus_sign_reads_as_plus_not_as_punctuation():
    assert service_key("Vudu+") == service_key("vudu plus")
    assert service_key("Vudu+") != service_key("Vudu")


def test_unknown_service_is_kept_trimmed():
    assert canonical_service("  Local   Cable ") == "Local Cable"


def test_unknown_services_compare_case_and_space_insensitively():
    assert service_key("Local Cable") == service_key("local  CABLE")


def test_aliases_share_a_comparison_key():
    assert service_key("Max") == service_key("HBO Max")
    assert service_key("Max") != service_key("Netflix")


def test_known_service_recognises_aliases_only():
    assert known_service("hbo max")
    assert known_service("max")
    assert not known_service("Blockbuster")
