"""score_file reads each log once, refusing what it cannot or must not read with a reason."""

from pathlib import Path

from taurec.evaluator.logs import Resolver, score_file


def test_a_log_over_the_size_limit_is_not_read_and_says_why(tmp_path: Path) -> None:
    log = tmp_path / "big.jsonl"
    log.write_bytes(b"x" * 2048)
    score = score_file(log, Resolver(max_log_bytes=1024))
    assert score.infra_error
    assert (
        score.verification is not None
        and "2,048 bytes, over the evaluator's limit of 1,024" in score.verification
    )


def test_a_missing_log_is_reported_as_unreadable(tmp_path: Path) -> None:
    score = score_file(tmp_path / "gone.jsonl", Resolver())
    assert score.infra_error
    assert score.verification is not None and score.verification.startswith("cannot read:")


def test_a_log_at_the_size_limit_is_read(tmp_path: Path) -> None:
    log = tmp_path / "small.jsonl"
    log.write_bytes(b'{"type":"header",\n')  # ours, cut short: a damaged log
    score = score_file(log, Resolver(max_log_bytes=18))
    assert score.infra_error and score.verification is None
    assert any("not valid JSON" in p for p in score.problems)
