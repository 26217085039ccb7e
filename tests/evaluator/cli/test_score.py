import re
from math import comb

import orjson
import pytest
from typer.testing import CliRunner

from taurec.evaluator.cli.main import app

runner = CliRunner()


def _score_json(*args: str) -> dict:
    result = runner.invoke(app, ["score", *args, "--json"])
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout)


def test_known_success_counts_reproduce_pass_1_2_and_4_exactly(logs):
    logs.run({"ta": 4, "tb": 2, "tc": 1}, trials=4)
    (group,) = _score_json(str(logs.out), "--suite", logs.spec)["groups"]
    assert group["n_tasks"] == 3 and group["n_episodes"] == 12 and group["trials"] == 4
    expected = {k: sum(comb(c, k) / comb(4, k) for c in (4, 2, 1)) / 3 for k in (1, 2, 3, 4)}
    assert group["pass_k"]["1"] == pytest.approx(expected[1]) == pytest.approx(7 / 12)
    assert group["pass_k"]["2"] == pytest.approx(expected[2])
    assert group["pass_k"]["4"] == pytest.approx(1 / 3)
    lo, hi = group["pass_k_ci"]["1"]
    assert lo <= group["pass_k"]["1"] <= hi


def test_json_report_has_the_documented_keys(logs):
    logs.run({"ta": 1, "tb": 1, "tc": 0}, trials=1)
    (group,) = _score_json(str(logs.out), "--suite", logs.spec)["groups"]
    for key in (
        "label",
        "n_tasks",
        "n_episodes",
        "trials",
        "pass_k",
        "pass_k_ci",
        "constraint_score",
        "constraint_partial",
        "policy_score",
        "policy_violation_rate",
        "no_rec_rate",
        "infra_errors",
        "by_complexity",
        "by_reveal",
        "efficiency",
    ):
        assert key in group, key


def test_each_agent_label_gets_its_own_group(logs):
    logs.run({"ta": 1, "tb": 1, "tc": 1}, trials=1, label="good")
    logs.run({"ta": 0, "tb": 0, "tc": 0}, trials=1, label="bad")
    groups = {g["label"]: g for g in _score_json(str(logs.out), "--suite", logs.spec)["groups"]}
    assert groups["good"]["pass_k"]["1"] == 1.0 and groups["bad"]["pass_k"]["1"] == 0.0


def test_a_truncated_log_is_an_infra_error_that_stays_in_n(logs):
    logs.run({"ta": 2, "tb": 2, "tc": 2}, trials=2)
    broken = logs.out / "agentA" / "ta-1.jsonl"
    broken.write_bytes(broken.read_bytes()[:-40])
    result = runner.invoke(app, ["score", str(logs.out), "--suite", logs.spec, "--json"])
    assert result.exit_code == 0
    (group,) = orjson.loads(result.stdout)["groups"]
    assert group["n_episodes"] == 6 and group["infra_errors"] == 1
    assert group["pass_k"]["1"] == pytest.approx((0.5 + 1 + 1) / 3)
    assert "ta-1.jsonl:6: truncated last line" in result.stderr


def test_strict_exits_nonzero_when_a_log_has_a_problem(logs):
    logs.run({"ta": 1, "tb": 1, "tc": 1}, trials=1)
    (logs.out / "agentA" / "junk.jsonl").write_text('{"type":"header",\n')  # a damaged log
    assert runner.invoke(app, ["score", str(logs.out), "--suite", logs.spec]).exit_code == 0
    assert (
        runner.invoke(app, ["score", str(logs.out), "--suite", logs.spec, "--strict"]).exit_code
        == 1
    )


def test_an_edited_task_is_reported_as_a_hash_mismatch(logs, suite_dir):
    logs.run({"ta": 1, "tb": 1, "tc": 1}, trials=1)
    task_file = suite_dir / "tasks" / "ta.json"
    task_file.write_text(task_file.read_text().replace("You are a fan", "You love"))
    result = runner.invoke(app, ["score", str(logs.out), "--suite", logs.spec, "--json"])
    assert "sha256 mismatch" in result.stderr
    assert orjson.loads(result.stdout)["groups"][0]["infra_errors"] == 1


def test_a_log_naming_a_suite_of_its_own_is_not_scored_against_it(logs):
    logs.run({"ta": 1, "tb": 1, "tc": 1}, trials=1)
    result = runner.invoke(app, ["score", str(logs.out), "--json"])
    (group,) = orjson.loads(result.stdout)["groups"]
    assert group["infra_errors"] == 3 and group["pass_k"]["1"] == 0.0
    assert "neither the built-in suite nor the suite of a run plan" in result.stderr


def test_every_group_names_the_suite_it_was_scored_against(logs):
    logs.run({"ta": 1, "tb": 1, "tc": 1}, trials=1)
    (group,) = _score_json(str(logs.out), "--suite", logs.spec)["groups"]
    assert group["suite"]["id"] == "tiny" and len(group["suite"]["sha256"]) == 64
    assert group["mode"] == "open"


def test_an_empty_directory_says_so(tmp_path):
    result = runner.invoke(app, ["score", str(tmp_path)])
    assert result.exit_code == 1 and "no episode logs" in result.stderr


def test_a_missing_path_is_a_clear_error(tmp_path):
    result = runner.invoke(app, ["score", str(tmp_path / "nope")])
    assert result.exit_code == 2 and "no such file or directory" in result.stderr


def test_markdown_format_prints_a_table_row_per_label(logs):
    logs.run({"ta": 1, "tb": 0, "tc": 1}, trials=2)
    result = runner.invoke(
        app, ["score", str(logs.out), "--suite", logs.spec, "--format", "markdown"]
    )
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0].startswith("| agent | run | episodes | pass^1 | pass^2 |")
    assert "| agentA | open | 6 |" in result.stdout
    row = next(line for line in result.stdout.splitlines() if "| agentA |" in line)
    pass_1 = row.split(" | ")[3]
    assert re.fullmatch(r"\d+\.\d% \[\d+\.\d%, \d+\.\d%\]", pass_1), pass_1


def test_explain_shows_constraint_and_policy_verdicts(logs):
    path = logs.episode("ta", 0, item="h1")
    result = runner.invoke(app, ["explain", str(path), "--suite", logs.spec])
    assert result.exit_code == 0
    assert "genres contains 'Comedy'" in result.stdout and "FAIL" in result.stdout
    assert "recommend_tool" in result.stdout


def test_compare_says_whether_a_difference_is_distinguishable(logs):
    logs.run({"ta": 4, "tb": 4, "tc": 3}, trials=4, label="strong")
    logs.run({"ta": 0, "tb": 0, "tc": 0}, trials=4, label="weak")
    result = runner.invoke(app, ["compare", "strong", "weak", str(logs.out), "--suite", logs.spec])
    assert result.exit_code == 0 and "+91.7 points over 3 shared tasks" in result.stdout
    assert "distinguishable from noise (the 95% CI excludes 0)" in result.stdout


def test_compare_gives_no_verdict_on_one_shared_task(logs):
    logs.run({"ta": 0}, trials=2, label="a")
    logs.run({"ta": 2}, trials=2, label="b")
    result = runner.invoke(app, ["compare", "a", "b", str(logs.out), "--suite", logs.spec])
    assert result.exit_code == 0
    assert "over 1 shared task," in result.stdout and "no verdict" in result.stdout
    assert "distinguishable" not in result.stdout


def test_compare_warns_below_ten_shared_tasks(logs):
    logs.run({"ta": 1, "tb": 0, "tc": 1}, trials=1, label="a")
    logs.run({"ta": 0, "tb": 1, "tc": 1}, trials=1, label="b")
    result = runner.invoke(app, ["compare", "a", "b", str(logs.out), "--suite", logs.spec])
    assert result.exit_code == 0
    assert "warning: only 3 shared tasks" in result.stderr and "fewer than 10" in result.stderr


def test_a_file_that_is_not_a_log_is_one_line_with_exit_2(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("# a readme\n\nnot JSON\n")
    result = runner.invoke(app, ["score", str(readme)])
    assert result.exit_code == 2
    assert "README.md: not an episode log" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and result.stdout == ""


def test_explain_on_a_folder_is_one_line_with_exit_2(tmp_path):
    result = runner.invoke(app, ["explain", str(tmp_path)])
    assert result.exit_code == 2 and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_compare_names_the_labels_that_exist_when_one_is_missing(logs):
    logs.run({"ta": 1, "tb": 1, "tc": 1}, trials=1)
    result = runner.invoke(app, ["compare", "agentA", "ghost", str(logs.out), "--suite", logs.spec])
    assert result.exit_code == 2 and "labels found: agentA" in result.stderr


def test_scoring_in_worker_processes_gives_the_same_scores(logs):
    from taurec.evaluator.logs import Resolver, find_logs, score_files

    logs.run({"ta": 3, "tb": 1, "tc": 2}, trials=4)
    files = find_logs([logs.out])
    serial = score_files(files, Resolver(suite=logs.spec), workers=1)
    parallel = score_files(files, Resolver(suite=logs.spec), workers=2)
    assert [(s.path, s.reward, s.outcome) for s in serial] == [
        (s.path, s.reward, s.outcome) for s in parallel
    ]


# --- rules profiles ----------------------------------------------------------------------

#: An unknown id first (it commits nothing in taurec; it ends a τ-Rec trial), then a match.
_FALSE_START = [("recommend", {"item_id": "zz"}, "unknown item", True)]


def test_json_records_the_rules_profile(logs):
    logs.run({"ta": 1}, trials=1)
    for args, rules in (((), "taurec"), (("--rules", "tau-rec"), "tau-rec")):
        doc = _score_json(str(logs.out), "--suite", logs.spec, *args)
        assert doc["rules"] == rules and [g["rules"] for g in doc["groups"]] == [rules]


def test_the_rules_profile_changes_the_verdict_where_the_rules_differ(logs):
    logs.episode("ta", 0, item="c1", calls=_FALSE_START)
    taurec = _score_json(str(logs.out), "--suite", logs.spec)["groups"][0]["pass_k"]["1"]
    tau_rec = _score_json(str(logs.out), "--suite", logs.spec, "--rules", "tau-rec")["groups"][0][
        "pass_k"
    ]["1"]
    assert (taurec, tau_rec) == (1.0, 0.0)


def test_rules_both_gives_each_profile_in_json(logs):
    logs.episode("ta", 0, item="c1", calls=_FALSE_START)
    doc = _score_json(str(logs.out), "--suite", logs.spec, "--rules", "both")
    assert doc["rules"] == "both"
    assert {name: g[0]["pass_k"]["1"] for name, g in doc["by_rules"].items()} == {
        "taurec": 1.0,
        "tau-rec": 0.0,
    }


def test_rules_both_prints_the_profiles_side_by_side(logs):
    logs.episode("ta", 0, item="c1", calls=_FALSE_START)
    result = runner.invoke(
        app,
        ["score", str(logs.out), "--suite", logs.spec, "--rules", "both"],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    header = next(line for line in result.stdout.splitlines() if "rules: taurec" in line)
    assert "rules: tau-rec" in header
    row = next(line for line in result.stdout.splitlines() if "pass^1 " in line)
    assert "100.0%" in row and "0.0%" in row.split("100.0%", 1)[1]


def test_an_unknown_rules_profile_is_a_clear_error(logs):
    logs.run({"ta": 1}, trials=1)
    result = runner.invoke(app, ["score", str(logs.out), "--rules", "tau"])
    assert result.exit_code == 2
    assert "--rules 'tau' is not a rules profile; expected taurec, tau-rec or both" in result.stderr


def test_explain_with_both_rules_explains_the_episode_under_each(logs):
    path = logs.episode("ta", 0, item="c1", calls=_FALSE_START)
    result = runner.invoke(
        app, ["explain", str(path), "--suite", logs.spec, "--rules", "both"], env={"COLUMNS": "200"}
    )
    assert result.exit_code == 0, result.output
    assert "(rules taurec)" in result.stdout and "(rules tau-rec)" in result.stdout
    assert "PASS" in result.stdout and "FAIL" in result.stdout


def test_compare_names_the_rules_profile_it_used(logs):
    logs.run({"ta": 1, "tb": 1, "tc": 1}, trials=1, label="a")
    logs.run({"ta": 0, "tb": 0, "tc": 0}, trials=1, label="b")
    result = runner.invoke(
        app, ["compare", "a", "b", str(logs.out), "--suite", logs.spec, "--rules", "tau-rec"]
    )
    assert result.exit_code == 0 and "(rules tau-rec)" in result.stdout
