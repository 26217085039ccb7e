"""Title tokens: folded word by word, with a whole-text shortcut for ASCII text."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from taurec.catalog.tokens import WORD, fold_word, title_tokens


def _word_by_word(text: str) -> tuple[str, ...]:
    return tuple(fold_word(m.group()) for m in WORD.finditer(text))


@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=40))
def test_ascii_text_gives_the_tokens_of_folding_word_by_word(text):
    assert title_tokens(text) == _word_by_word(text)


@given(st.text(max_size=30))
def test_any_text_gives_the_tokens_of_folding_word_by_word(text):
    assert title_tokens(text) == _word_by_word(text)


def test_tokens_drop_case_accents_and_apostrophes():
    assert title_tokens("Amélie's RETURN: part_2") == ("amelies", "return", "part", "2")
