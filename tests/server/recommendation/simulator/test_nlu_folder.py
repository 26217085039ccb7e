"""The simulated user's reading over a catalog folder: its saved title index, same answers."""

from __future__ import annotations

from support.catalog_pairs import messages_naming_titles

from taurec.catalog.records import ItemRecords
from taurec.server.recommendation.simulator.agent_nlu import AgentNLU
from taurec.server.recommendation.simulator.nlu import MessageReader


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
