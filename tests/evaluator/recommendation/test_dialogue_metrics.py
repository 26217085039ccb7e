"""SR, SRRR, RDL and utterances from dialogue acts: UserSimCRS's offline checks."""

from __future__ import annotations

from taurec.evaluator.recommendation.dialogue_metrics import (
    AGENT,
    USER,
    Utterance,
    dialogue_metrics,
    mean_metrics,
)

REC = Utterance(AGENT, ("recommend",))
ACC = Utterance(USER, ("accept",))
REJ = Utterance(USER, ("reject",))
ASK = Utterance(AGENT, ("elicit",))
TELL = Utterance(USER, ("disclose",))


def test_rec_then_acc_succeeds():
    assert dialogue_metrics([REC, ACC])["sr"] == 1.0


def test_rec_acc_rej_fails_because_the_last_verdict_in_a_round_decides():
    assert dialogue_metrics([REC, ACC, REJ])["sr"] == 0.0


def test_rec_rej_acc_succeeds():
    assert dialogue_metrics([REC, REJ, ACC])["sr"] == 1.0


def test_one_accepted_round_of_two_gives_srrr_one_half():
    assert dialogue_metrics([REC, ACC, REC, REJ])["srrr"] == 0.5


def test_no_recommendation_gives_srrr_zero():
    assert dialogue_metrics([ASK, TELL, ASK, TELL])["srrr"] == 0.0


def test_rdl_counts_acceptances_over_utterances_of_both_sides():
    assert dialogue_metrics([REC, ACC, ASK, ACC])["rdl"] == 0.5


def test_the_stretch_before_the_first_recommendation_is_no_round():
    m = dialogue_metrics([ASK, TELL, REC, ACC])
    assert m["srrr"] == 1.0  # UserSimCRS would count two rounds and give 0.5


def test_an_accept_before_any_recommendation_accepts_no_round():
    assert dialogue_metrics([ACC, ASK, TELL])["sr"] == 0.0


def test_within_one_utterance_the_later_verdict_wins():
    both = Utterance(USER, ("accept", "reject"))
    assert dialogue_metrics([REC, both])["sr"] == 0.0


def test_utterances_counts_every_message():
    assert dialogue_metrics([TELL, ASK, TELL, REC, ACC])["utterances"] == 5.0


def test_the_mean_over_dialogues_makes_sr_a_success_rate():
    means = mean_metrics([dialogue_metrics([REC, ACC]), dialogue_metrics([REC, REJ])])
    assert means["sr"] == 0.5 and means["utterances"] == 2.0


def test_the_mean_of_no_dialogues_is_none():
    assert mean_metrics([])["sr"] is None
