import itertools
from math import comb

import pytest
from hypothesis import given
from hypothesis import strategies as st

from taurec.evaluator.passk import (
    bootstrap_ci,
    paired_difference,
    pass_k,
    pass_k_curve,
    pass_k_with_ci,
    task_pass_k,
)


def test_task_pass_k_is_c_choose_k_over_n_choose_k():
    assert task_pass_k(3, 4, 2) == comb(3, 2) / comb(4, 2) == 0.5
    assert task_pass_k(4, 4, 4) == 1.0
    assert task_pass_k(3, 4, 4) == 0.0


def test_suite_pass_k_is_the_mean_over_tasks():
    counts = {"a": (4, 4), "b": (2, 4), "c": (0, 4)}
    assert pass_k(counts, 1) == pytest.approx((1 + 0.5 + 0) / 3)
    assert pass_k(counts, 2) == pytest.approx((1 + comb(2, 2) / comb(4, 2) + 0) / 3)
    assert pass_k(counts, 4) == pytest.approx(1 / 3)


def test_tasks_with_fewer_trials_than_k_are_left_out_of_pass_k():
    counts = {"a": (1, 1), "b": (0, 2)}
    assert pass_k(counts, 2) == 0.0
    assert pass_k({"a": (1, 1)}, 2) is None


def test_bad_counts_are_rejected_with_the_values():
    with pytest.raises(ValueError, match="c=5, n=4"):
        task_pass_k(5, 4, 1)
    with pytest.raises(ValueError, match="k=0"):
        task_pass_k(1, 4, 0)


@given(
    st.dictionaries(
        st.text(min_size=1, max_size=3),
        st.integers(1, 8).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))),
        min_size=1,
        max_size=12,
    )
)
def test_pass_k_never_increases_with_k(counts):
    curve = pass_k_curve(counts)
    ks = sorted(curve)
    uniform = len({n for _, n in counts.values()}) == 1
    if uniform:  # with unequal trial counts the task set changes with k
        for k1, k2 in itertools.pairwise(ks):
            assert curve[k2] <= curve[k1] + 1e-12


@given(
    st.integers(1, 10).flatmap(
        lambda n: st.tuples(st.integers(0, n), st.just(n), st.integers(1, n))
    )
)
def test_task_pass_k_never_increases_with_k(cnk):
    c, n, k = cnk
    if k < n:
        assert task_pass_k(c, n, k + 1) <= task_pass_k(c, n, k)


def test_bootstrap_ci_is_seeded_and_brackets_the_mean():
    values = [0, 1, 1, 0.5, 1, 0, 1, 1]
    lo, hi = bootstrap_ci(values, seed=3)
    assert (lo, hi) == bootstrap_ci(values, seed=3)
    assert lo <= sum(values) / len(values) <= hi


def test_pass_k_with_ci_reports_each_k():
    out = pass_k_with_ci({"a": (2, 2), "b": (1, 2)})
    assert set(out) == {1, 2}
    assert out[1][0] == pytest.approx(0.75)


def test_paired_difference_uses_only_shared_tasks():
    diff, (lo, hi), n = paired_difference(
        {"a": (2, 2), "b": (0, 2), "x": (2, 2)}, {"a": (0, 2), "b": (0, 2)}
    )
    assert n == 2 and diff == pytest.approx(0.5)
    assert lo <= diff <= hi


@pytest.mark.parametrize("n", [1, 2, 5, 17, 64, 400, 3000])
def test_the_running_product_curve_equals_the_ratio_of_binomials(n):
    from taurec.evaluator.passk import task_curve

    for c in sorted({0, 1, n // 3, n // 2, n - 1, n}):
        curve = task_curve(c, n)
        assert len(curve) == n
        for k in sorted(k for k in {1, 2, 3, n // 4, n // 2, n} if 1 <= k <= n):
            assert curve[k - 1] == pytest.approx(task_pass_k(c, n, k), rel=1e-12, abs=1e-300)


def test_pass_k_with_ci_agrees_with_pass_k_for_unequal_trial_counts():
    counts = {"a": (3, 4), "b": (1, 2), "c": (6, 6), "d": (0, 1)}
    out = pass_k_with_ci(counts, seed=5)
    assert sorted(out) == list(range(1, 7))
    for k, (value, (lo, hi)) in out.items():
        assert value == pytest.approx(pass_k(counts, k))
        assert lo <= value + 1e-12 and value <= hi + 1e-12
    assert out[6] == (1.0, (1.0, 1.0))  # one task left: no spread
    assert out == pass_k_with_ci(counts, seed=5)  # seeded


def test_short_as_zero_scores_a_task_short_of_k_as_0_and_keeps_it_in_the_mean():
    counts = {"a": (4, 4), "b": (3, 3), "c": (0, 4)}
    assert pass_k(counts, 4) == pytest.approx(1 / 2)  # b left out
    assert pass_k(counts, 4, short_as_zero=True) == pytest.approx(1 / 3)  # b scores 0
    assert pass_k(counts, 1, short_as_zero=True) == pass_k(counts, 1)
    out = pass_k_with_ci(counts, seed=3, short_as_zero=True)
    for k, (value, (lo, hi)) in out.items():
        assert value == pytest.approx(pass_k(counts, k, short_as_zero=True))
        assert lo <= value + 1e-12 and value <= hi + 1e-12


def test_one_trial_missing_gives_tau_recs_pass_4_under_its_rule():
    """Sixty tasks of four trials, twenty passing all four; one failing task loses a trial.
    τ-Rec's aggregate_pass_k scores that task 0 at k=4: 20/60, not 20/59."""
    counts = {f"t{i}": (4 if i < 20 else 0, 4) for i in range(60)}
    counts["t59"] = (0, 3)
    assert round(pass_k(counts, 4, short_as_zero=True), 4) == 0.3333
    assert round(pass_k(counts, 4), 4) == 0.3390
    from support.third_party import tau_rec_source

    if tau_rec_source() is not None:  # τ-Rec's own figure, where its source is at hand
        from tau_rec.metrics.pass_k import aggregate_pass_k

        theirs = aggregate_pass_k({t: {"n": n, "c": c} for t, (c, n) in counts.items()}, 4)
        assert pass_k(counts, 4, short_as_zero=True) == pytest.approx(theirs)
        assert pass_k_with_ci(counts, short_as_zero=True)[4][0] == pytest.approx(theirs)


def test_a_task_with_no_trial_scores_0_at_every_k_under_tau_recs_rule():
    """τ-Rec's run starts every task of its suite at n = 0: a task no trial reached scores
    0; the default rule leaves it out."""
    counts = {"t1": (2, 2), "t2": (0, 0)}
    assert pass_k(counts, 1, short_as_zero=True) == 0.5 and pass_k(counts, 1) == 1.0
    assert pass_k_with_ci(counts, short_as_zero=True)[2][0] == 0.5
    from support.third_party import tau_rec_source

    if tau_rec_source() is not None:
        from tau_rec.metrics.pass_k import aggregate_pass_k

        theirs = aggregate_pass_k({t: {"n": n, "c": c} for t, (c, n) in counts.items()}, 1)
        assert pass_k(counts, 1, short_as_zero=True) == pytest.approx(theirs)
