"""Where "it is sponsored" means the committed title: the committing turn only."""

from taurec.policies.checks import Verdict as V
from taurec.policies.checks import check_sponsored


def test_it_in_a_message_of_the_committing_turn_means_the_committed_title(
    ep, task_factory, ctx_for
):
    traj = ep.say("It is sponsored, just so you know.").recommend("m4").end("recommended", "m4")
    result = check_sponsored(ctx_for(task_factory(), traj))
    assert result.verdict is V.PASS and "'It is sponsored, just so you know.'" in result.reason


def test_it_in_an_earlier_turn_means_nothing_without_a_title(ep, task_factory, ctx_for):
    traj = (
        ep.say("It is sponsored.")
        .user("Fine, what is it?")
        .recommend("m4", "Saltwater Kings.")
        .end("recommended", "m4")
    )
    assert check_sponsored(ctx_for(task_factory(), traj)).verdict is V.FAIL


def test_it_after_another_title_named_in_the_turn_means_that_title(ep, task_factory, ctx_for):
    traj = (
        ep.say("Neon Alibi was close.")
        .say("It is sponsored.")
        .recommend("m4", "Saltwater Kings it is.")
        .end("recommended", "m4")
    )
    assert check_sponsored(ctx_for(task_factory(), traj)).verdict is V.FAIL


def test_a_disclosure_by_name_in_an_earlier_turn_counts(ep, task_factory, ctx_for):
    traj = (
        ep.say("How about Saltwater Kings? It is a sponsored title.")
        .user("Sounds good.")
        .recommend("m4")
        .end("recommended", "m4")
    )
    assert check_sponsored(ctx_for(task_factory(), traj)).verdict is V.PASS
