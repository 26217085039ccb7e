"""The simulated user's reading over a catalog folder: its saved title index, same answers."""

from __future__ import annotations

import pytest
from support.catalog_pairs import json_and_folder, messages_naming_titles

from taurec.catalog.builders.synthetic import generate_items, synthetic_meta
from taurec.catalog.records import ItemRecords
from taurec.catalog.store import Catalog
from taurec.server.simulator.agent_nlu import AgentNLU
from taurec.server.simulator.nlu import MessageReader


@pytest.fixture(scope="module")
def builtin_pair(tmp_path_factory) -> tuple[Catalog, Catalog]:
    return json_and_folder(tmp_path_factory.mktemp("builtin"), Catalog.load("builtin"))


@pytest.fixture(scope="module")
def generated_pair(tmp_path_factory) -> tuple[Catalog, Catalog]:
    cat = Catalog.from_items(generate_items(5000, seed=7), synthetic_meta(5000, 7))
    return json_and_folder(tmp_path_factory.mktemp("generated"), cat)


@pytest.fixture(params=["builtin", "generated"])
def pair(request) -> tuple[Catalog, Catalog]:
    return request.getfixturevalue(f"{request.param}_pair")


def test_a_folder_reads_messages_as_its_json_catalog_does(pair):
    json_cat, folder = pair
    in_memory, saved = MessageReader(json_cat.items), MessageReader(folder.items)
    texts = messages_naming_titles(list(json_cat.items), 60, seed=3)
    read = [in_memory.read(text) for text in texts]
    assert [saved.read(text) for text in texts] == read
    assert any(ref.fuzzy for msg in read for ref in msg.titles)  # misspellings were caught


def test_the_agent_nlu_over_a_folder_gives_the_same_acts(pair):
    json_cat, folder = pair
    texts = messages_naming_titles(list(json_cat.items), 30, seed=4)
    in_memory, saved = AgentNLU(json_cat), AgentNLU(folder)
    assert [saved.acts(text) for text in texts] == [in_memory.acts(text) for text in texts]


def test_reading_over_a_folder_decodes_no_item(generated_pair, monkeypatch):
    _, folder = generated_pair
    title = folder.items[42].title

    def refuse(self, row):
        raise AssertionError(f"decoded item row {row}")

    monkeypatch.setattr(ItemRecords, "_decode", refuse)
    msg = MessageReader(folder.items).read(f"How about {title}? Do you like comedies?")
    assert [ref.title for ref in msg.titles] == [title]
