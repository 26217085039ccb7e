"""Suite-wide test setup."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator

import pytest
from hypothesis import settings
from support.catalog_pairs import json_and_folder

from taurec.catalog.builders.synthetic import generate_items, synthetic_meta
from taurec.catalog.store import Catalog
from taurec.tasks.trajectory.signing import KEY_ENV, KEY_FILE_ENV

#: fixtures shared across folders (write_suite, make_task_doc, ...)
pytest_plugins = ["support.task_suites"]

# No per-example time limit: on a loaded machine a slow example is not a failure.
settings.register_profile("taurec", deadline=None)
settings.load_profile("taurec")


@pytest.fixture(autouse=True, scope="session")
def _log_key_in_a_temporary_file(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Servers started by tests (in process or as subprocesses, which inherit the
    environment) sign logs with a key generated under the test's temporary folder, never
    the user's own key file."""
    saved = {name: os.environ.get(name) for name in (KEY_ENV, KEY_FILE_ENV)}
    os.environ.pop(KEY_ENV, None)
    os.environ[KEY_FILE_ENV] = str(tmp_path_factory.mktemp("log-key") / "log.key")
    yield
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Files with slow tests first, then the others, those with more tests first: run in
    parallel, the longest start at once instead of finishing last on one worker while the
    others idle (tests do not depend on order). pyproject.toml turns off xdist's own
    reordering (by number of tests alone), which would put the slow files anywhere."""
    slow_files = {item.path for item in items if item.get_closest_marker("slow")}
    tests_in = Counter(item.path for item in items)

    def order(item: pytest.Item) -> tuple[bool, int]:
        slow = item.path in slow_files
        return not slow, 0 if slow else -tests_in[item.path]

    items.sort(key=order)


# --- one catalog as a JSON file and as a folder (tests/support/catalog_pairs.py) -----------


@pytest.fixture(scope="module")
def builtin_pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Catalog, Catalog]:
    """The built-in catalog loaded from JSON, and opened from a folder written from it."""
    return json_and_folder(tmp_path_factory.mktemp("builtin"), Catalog.load("builtin"))


@pytest.fixture(scope="module")
def generated_pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Catalog, Catalog]:
    """A generated 5,000-item catalog, the same two ways."""
    cat = Catalog.from_items(generate_items(5000, seed=5), synthetic_meta(5000, 5))
    return json_and_folder(tmp_path_factory.mktemp("generated"), cat)


@pytest.fixture(params=["builtin", "generated"])
def pair(request: pytest.FixtureRequest) -> tuple[Catalog, Catalog]:
    """Each of the two pairs above in turn."""
    return request.getfixturevalue(f"{request.param}_pair")
