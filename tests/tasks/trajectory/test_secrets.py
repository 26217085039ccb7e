"""Secrets out of every text taurec keeps or prints: the environment's credentials by
value, and anything shaped like a key, by shape."""

from __future__ import annotations

import logging

import pytest

from taurec.tasks.trajectory.secrets import REDACTED, Scrubber, scrub, scrub_log_records

FAKE = "sk-proj-FAKEfakeFAKE0123456789abcdefABCDEF"


def test_the_value_of_a_credential_variable_is_replaced_naming_the_variable() -> None:
    env = {"OPENAI_API_KEY": "not-shaped-like-a-key-1234", "HOME": "/root"}
    text = scrub("401: bad key not-shaped-like-a-key-1234 (home /root)", env)
    assert text == "401: bad key <redacted $OPENAI_API_KEY> (home /root)"


@pytest.mark.parametrize(
    "name",
    [
        "ANTHROPIC_API_KEY",
        "AWS_SECRET_ACCESS_KEY",
        "HF_TOKEN",
        "WATSONX_APIKEY",
        "DB_PASSWORD",
        "AZURE_AD_TOKEN",
        "TAUREC_LOG_KEY",
        "VERTEX_CREDENTIALS",
    ],
)
def test_every_variable_named_for_a_credential_counts(name: str) -> None:
    assert scrub("x=abcdefgh12", {name: "abcdefgh12"}) == f"x=<redacted ${name}>"


def test_a_short_value_is_left_alone() -> None:
    assert scrub("flag 1234567 set", {"SOME_TOKEN": "1234567"}) == "flag 1234567 set"


@pytest.mark.parametrize(
    "key",
    [
        FAKE,
        "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123",
        "AKIAABCDEFGHIJKLMNOP",
        "AIzaSyA1234567890abcdefghijklmnopqrstu",
        "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        "hf_abcdefghijklmnopqrstuvwxyz0123",
        "xoxb-1234567890-abcdefghij",
        "gsk_abcdefghijklmnopqrstuvwxyz0123",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abcdefghijklmno",
    ],
)
def test_text_shaped_like_a_key_is_replaced_whoever_it_belongs_to(key: str) -> None:
    assert scrub(f"error: {key} was refused", {}) == f"error: {REDACTED} was refused"


def test_credentials_in_headers_and_assignments_lose_their_value_only() -> None:
    text = scrub('Authorization: Bearer abc.DEF-123_456 and api_key="s3cr3t-value"', {})
    assert text == f'Authorization: Bearer {REDACTED} and api_key="{REDACTED}"'
    assert scrub("password: hunter2hunter2", {}) == f"password: {REDACTED}"


def test_ordinary_text_and_digests_are_kept() -> None:
    text = (
        "max_tokens=1000 prompt_tokens: 123456789 episode 0123456789abcdef0123456789abcdef "
        "sha256 " + "ab" * 32 + " the bearer token is wrong; task-id sk-1"
    )
    assert scrub(text, {}) == text


def test_a_private_key_block_goes_whole() -> None:
    block = "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nabc\n-----END RSA PRIVATE KEY-----"
    assert scrub(f"key:\n{block}\ndone", {}) == f"key:\n{REDACTED}\ndone"


def test_a_tree_scrubs_every_string_and_keeps_its_shape() -> None:
    doc = {"a": [FAKE, 1, None, {"b": f"x {FAKE}"}], "n": 2.5}
    assert Scrubber({}).tree(doc) == {"a": [REDACTED, 1, None, {"b": f"x {REDACTED}"}], "n": 2.5}


def test_log_records_are_scrubbed_with_their_tracebacks(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "plain-secret-value-42")
    saved = logging.getLogRecordFactory()
    try:
        scrub_log_records()
        try:
            raise RuntimeError("auth failed for plain-secret-value-42")
        except RuntimeError:
            logging.getLogger("t").exception("calling with %s", FAKE)
    finally:
        logging.setLogRecordFactory(saved)
    text = caplog.text
    assert "plain-secret-value-42" not in text and FAKE not in text
    assert "<redacted $OPENAI_API_KEY>" in text and "RuntimeError" in text
