"""SR, SRRR, RDL, utterances and turn pairs from dialogue acts: UserSimCRS's offline
checks, and each rule of a round (docs/usersimcrs.md) on a hand-made dialogue."""

from __future__ import annotations

from taurec.evaluator.recommendation.dialogue_metrics import (
    AGENT,
    USER,
    Act,
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


def test_within_one_utterance_an_acceptance_wins_over_a_rejection():
    both = Utterance(USER, ("accept", "reject"))
    assert dialogue_metrics([REC, both])["sr"] == 1.0


def _rec(*items: str) -> Utterance:
    return Utterance(AGENT, ("recommend",), tuple(Act("recommend", (i,)) for i in items))


def _user(*acts: tuple[str, str]) -> Utterance:
    return Utterance(USER, tuple(i for i, _ in acts), tuple(Act(i, (item,)) for i, item in acts))


def test_accepting_one_title_and_rejecting_the_other_accepts_the_round():
    # IARD dialogue 8365's shape: two titles pitched, one taken, one turned down
    m = dialogue_metrics([_rec("a", "b"), _user(("accept", "a"), ("reject", "b"))])
    assert m["sr"] == 1.0 and m["srrr"] == 1.0


def test_rejecting_the_accepted_title_later_in_the_round_retracts_it():
    m = dialogue_metrics([_rec("a", "b"), _user(("accept", "a")), _user(("reject", "a"))])
    assert m["sr"] == 0.0


def test_rejecting_another_title_later_leaves_the_acceptance_standing():
    m = dialogue_metrics([_rec("a", "b"), _user(("accept", "a")), _user(("reject", "b"))])
    assert m["sr"] == 1.0


def test_accepting_a_title_of_an_earlier_round_accepts_the_round_it_falls_in():
    """As UserSimCRS's code counts it (IARD #3089, #7120: the user takes back a title
    recommended two rounds before)."""
    m = dialogue_metrics([_rec("a"), _user(("reject", "a")), _rec("b"), _user(("accept", "a"))])
    assert m["sr"] == 1.0 and m["srrr"] == 0.5


def test_the_reading_of_one_round_only_accepts_no_title_of_an_earlier_round():
    dialogue = [_rec("a"), _user(("reject", "a")), _rec("b"), _user(("accept", "a"))]
    m = dialogue_metrics(dialogue, earlier_titles=False)
    assert m["sr"] == 0.0 and m["srrr"] == 0.0


def test_a_title_never_recommended_is_accepted_in_no_round():
    m = dialogue_metrics([_rec("a"), _user(("accept", "z"))])
    assert m["sr"] == 0.0


def test_a_reaction_reaccepting_the_committed_title_is_not_a_second_acceptance():
    reaction = _user(("accept", "a"))._replace(reaction_to="a")
    m = dialogue_metrics([_rec("a"), _user(("accept", "a")), reaction])
    assert m["rdl"] == 1 / 3 and m["srrr"] == 1.0


def test_a_reaction_that_first_accepts_the_committed_title_counts():
    asked = Utterance(USER, ("inquire",), (Act("inquire", ("a",)),))
    reaction = _user(("accept", "a"))._replace(reaction_to="a")
    assert dialogue_metrics([_rec("a"), asked, reaction])["rdl"] == 1 / 3


def test_srrr_usersimcrs_counts_the_opening_stretch_as_a_round():
    m = dialogue_metrics([ASK, TELL, REC, ACC])
    assert m["srrr"] == 1.0 and m["srrr_usersimcrs"] == 0.5


def test_srrr_usersimcrs_lets_the_last_verdict_of_a_round_decide():
    m = dialogue_metrics([_rec("a", "b"), _user(("accept", "a")), _user(("reject", "b"))])
    assert m["srrr"] == 1.0 and m["srrr_usersimcrs"] == 0.0


def test_a_dialogue_without_recommendations_is_one_round_for_usersimcrs():
    assert dialogue_metrics([TELL, ASK, ACC])["srrr_usersimcrs"] == 1.0


def test_turn_pairs_count_speaker_changes_halved_as_dialoguekit_does():
    # user, agent, user, user, agent: three changes
    assert dialogue_metrics([TELL, ASK, TELL, TELL, REC])["turn_pairs"] == 1.5


def test_utterances_counts_every_message():
    assert dialogue_metrics([TELL, ASK, TELL, REC, ACC])["utterances"] == 5.0


def test_the_mean_over_dialogues_makes_sr_a_success_rate():
    means = mean_metrics([dialogue_metrics([REC, ACC]), dialogue_metrics([REC, REJ])])
    assert means["sr"] == 0.5 and means["utterances"] == 2.0 and means["avg_turns"] == 0.5


def test_the_mean_of_no_dialogues_is_none():
    assert mean_metrics([])["sr"] is None
