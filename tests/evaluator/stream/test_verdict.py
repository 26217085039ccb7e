"""'learns from feedback' is given only by a pair that can give it (one agent, arms drawn
at random within one plan, a blind control among them), and by a permutation test on
arms (slope and later regret, every scope, min-p adjusted) whose false verdicts stay at
its level when the arms are exchangeable."""

from __future__ import annotations

import numpy as np

from taurec.evaluator.stream.verdict import (
    ALPHA,
    UNKNOWN_AGENT,
    eligibility,
    judge,
    overall,
    permutation_p,
    scope_tests,
)
from taurec.tasks.trajectory.format import AgentInfo

LEARNER = AgentInfo(label="x", kind="learner", settings={"seed": 0}).identity()
OTHER = AgentInfo(label="x", kind="popularity", settings={"seed": 0}).identity()


def trials(slope: float, n_tasks: int = 40, per_arm: int = 1, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    return {
        f"t{t}": [[40 + slope * k + rng.normal(0, 8) for k in range(10)] for _ in range(per_arm)]
        for t in range(n_tasks)
    }


def test_a_run_falling_against_a_flat_control_has_a_small_p() -> None:
    p, n = permutation_p(trials(-2.0), trials(0.0, seed=1))
    assert n == 40 and p <= ALPHA


def test_the_same_behaviour_in_both_arms_is_not_significant() -> None:
    p, _ = permutation_p(trials(-2.0), trials(-2.0, seed=1))
    assert p > ALPHA


def test_with_no_common_stream_p_is_one() -> None:
    assert permutation_p({"a": [[1.0, 2.0]]}, {"b": [[1.0, 2.0]]}) == (1.0, 0)


def test_false_verdicts_stay_at_the_level_when_the_arms_are_exchangeable() -> None:
    """Each stream shares a trend and a level between its arms (what a stream is like),
    and each replication a drift shared by every stream of both arms: exchangeable arms."""
    fired = 0
    reps = 200
    for rep in range(reps):
        rng = np.random.default_rng(rep)
        shared = {t: rng.normal(0, 2) for t in range(40)}
        drift = rng.normal(0, 1)

        def arm(
            rng: np.random.Generator = rng, shared: dict = shared, drift: float = drift
        ) -> dict:
            return {
                f"t{t}": [
                    [40 + (shared[t] + drift) * k + rng.normal(0, 10) for k in range(10)]
                    for _ in range(2)
                ]
                for t in range(40)
            }

        p, _ = permutation_p(arm(), arm(), seed=rep, n_perm=400)
        fired += p <= ALPHA
    assert fired / reps <= 0.05


def group(agents: list[str], plan: str | None = "p1") -> dict:
    return {"agents": agents, "mode": "sealed" if plan else "open", "plan_id": plan}


def test_one_agent_in_one_plan_is_eligible() -> None:
    assert eligibility(group([LEARNER]), group([LEARNER])) == []


def test_two_agents_under_one_label_are_not_eligible_and_it_says_why() -> None:
    (note,) = eligibility(group([LEARNER]), group([OTHER]))
    assert (
        "learner" in note
        and "popularity" in note
        and "the same label does not make the same agent" in note
    )


def test_separate_runs_are_not_eligible_and_it_says_what_to_do() -> None:
    notes = eligibility(group([LEARNER], "p1"), group([LEARNER], "p2"))
    assert notes and "taurec run --with-control" in notes[-1]


def test_separate_runs_without_an_identity_say_that_too() -> None:
    notes = eligibility(group([UNKNOWN_AGENT], None), group([UNKNOWN_AGENT], None))
    assert any("no agent identity" in n for n in notes)


def test_an_unknown_agent_in_one_plan_is_eligible() -> None:
    """Within one plan the arms are hidden from the agent, whoever plays them."""
    assert eligibility(group([UNKNOWN_AGENT]), group([UNKNOWN_AGENT])) == []


def judged(mode: str, run_slope: float, plan: str = "p1") -> dict:
    run = {**group([LEARNER]), "by_task": by_task(trials(run_slope))}
    control = {**group([LEARNER], plan), "by_task": by_task(trials(0.0, seed=1))}
    contrast: dict = {"by_setting": {"variable_category": {}}}
    judge(contrast, run, control, mode, seed=0)
    return contrast


def by_task(t: dict) -> dict:
    return {k: {"setting": "variable_category", "regret": v[0], "trials": v} for k, v in t.items()}


def test_a_withheld_control_alone_never_gives_the_verdict() -> None:
    contrast = judged("none", -2.0)
    verdict, note = overall({"none": contrast})
    assert verdict is False and note is not None and "no blind control" in note
    assert contrast["beaten"] and not contrast["learns_from_feedback"]
    scope = contrast["by_setting"]["variable_category"]
    assert scope["beaten"] and not scope["learns_from_feedback"]


def test_a_blind_control_beaten_gives_the_verdict_overall_and_per_setting() -> None:
    contrast = judged("shuffled", -2.0)
    assert overall({"shuffled": contrast}) == (True, None)
    assert contrast["by_setting"]["variable_category"]["learns_from_feedback"]


def test_a_pair_that_cannot_give_it_is_not_the_verdict_whatever_the_numbers() -> None:
    contrast = judged("shuffled", -5.0, plan="p2")
    assert not contrast["learns_from_feedback"] and contrast["permutation_p"] <= ALPHA
    verdict, note = overall({"shuffled": contrast})
    assert verdict is False and note is not None and "separate runs" in note


def test_no_control_is_no_verdict() -> None:
    assert overall({}) == (None, None)


def test_a_setting_that_learns_gives_the_verdict_with_its_p_adjusted_for_the_others() -> None:
    flat = {f"{s}{t}": v for s in "ab" for t, v in trials(0.0, n_tasks=20, seed=2).items()}
    learns = trials(-2.0, n_tasks=20)
    run = {
        **{f"a{t}": v for t, v in learns.items()},
        **{k: v for k, v in flat.items() if k[0] == "b"},
    }
    trials_pairs = {f"{s}{t}": v for s in "ab" for t, v in trials(0.0, 20, seed=5).items()}
    setting = {k: ("learns" if k[0] == "a" else "stays") for k in run}
    tests = scope_tests(
        {
            "all": (run, trials_pairs),
            "learns": ({k: v for k, v in run.items() if setting[k] == "learns"},
                       {k: v for k, v in trials_pairs.items() if setting[k] == "learns"}),
            "stays": ({k: v for k, v in run.items() if setting[k] == "stays"},
                      {k: v for k, v in trials_pairs.items() if setting[k] == "stays"}),
        }
    )  # fmt: skip
    p, adjusted, n = tests["learns"]["slope"]
    assert n == 20 and p <= adjusted <= ALPHA
    assert tests["learns"]["regret"][1] <= ALPHA  # a falling curve lowers regret too
    assert all(t[1] > ALPHA for t in tests["stays"].values())
    assert all(a >= p for by in tests.values() for p, a, _ in by.values())


def test_the_least_adjusted_p_stays_at_the_level_under_the_null() -> None:
    fired = 0
    for rep in range(400):

        def arm(offset: int, rep: int = rep) -> dict:
            return {
                f"{s}{t}": v
                for n, s in enumerate("abc")
                for t, v in trials(0.0, 15, seed=rep * 6 + 2 * n + offset).items()
            }

        run, ctl = arm(0), arm(1)
        scopes = {
            "all": (run, ctl),
            **{
                s: ({k: v for k, v in run.items() if k[0] == s}, {k: v for k, v in ctl.items() if k[0] == s})
                for s in "abc"
            },
        }  # fmt: skip
        tests = scope_tests(scopes, seed=rep, n_perm=1000)
        fired += min(a for by in tests.values() for _, a, _ in by.values()) <= ALPHA
    assert fired / 400 <= 0.05
