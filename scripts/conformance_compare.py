"""Compare an MCP conformance run with conformance/expected-failures.txt.

    python scripts/conformance_compare.py RESULTS_DIR EXPECTED_FAILURES [--scenarios LIST]

RESULTS_DIR is the conformance runner's --output-dir: one folder per scenario,
`server-<scenario>-<timestamp>/checks.json`. A scenario fails when any of its checks has
status FAILURE (WARNING and INFO checks are shown, not counted). LIST is the output of
`conformance list --server`: every scenario named there must have run.

Exit 0 when exactly the listed scenarios failed; 1 on an unexpected failure, on a listed
scenario that passed (remove it from the file) or that did not run; 2 on unreadable input.
Standard library only: it runs under whatever Python runs taurec.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

FOLDER = re.compile(r"^server-(?P<scenario>.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$")
LISTED = re.compile(r"^\s*-\s+(?P<scenario>\S+)")
OK_STATUSES = {"SUCCESS", "INFO", "WARNING"}


class InputError(Exception):
    pass


def read_expected(path: Path) -> dict[str, str]:
    """scenario -> reason, from lines `scenario  reason`; `#` starts a comment line."""
    expected: dict[str, str] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        scenario, _, reason = line.partition(" ")
        if not reason.strip():
            raise InputError(f"{path}:{number}: {scenario!r} needs a reason after its name")
        if scenario in expected:
            raise InputError(f"{path}:{number}: {scenario!r} is listed twice")
        expected[scenario] = reason.strip()
    return expected


def read_results(results_dir: Path) -> dict[str, list[dict[str, object]]]:
    """scenario -> its checks."""
    results: dict[str, list[dict[str, object]]] = {}
    for checks_file in sorted(results_dir.glob("*/checks.json")):
        match = FOLDER.match(checks_file.parent.name)
        if match is None:
            raise InputError(f"unexpected results folder {checks_file.parent.name!r}")
        try:
            checks = json.loads(checks_file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise InputError(f"{checks_file}: {exc}") from None
        if not isinstance(checks, list):
            raise InputError(f"{checks_file}: expected a list of checks")
        results[match["scenario"]] = checks
    if not results:
        raise InputError(f"no scenario results under {results_dir}")
    return results


def read_listed(path: Path) -> list[str]:
    return [m["scenario"] for line in path.read_text().splitlines() if (m := LISTED.match(line))]


def _message(check: dict[str, object]) -> str:
    message = check.get("errorMessage")
    details = check.get("details")
    if not message and isinstance(details, dict):
        message = details.get("message")
    return f"{check.get('id')}: {message or check.get('status')}"


def _problems(checks: list[dict[str, object]]) -> list[str]:
    return [_message(c) for c in checks if c.get("status") not in OK_STATUSES]


def _warnings(checks: list[dict[str, object]]) -> list[str]:
    return [_message(c) for c in checks if c.get("status") == "WARNING"]


def compare(
    results: dict[str, list[dict[str, object]]], expected: dict[str, str], listed: list[str]
) -> int:
    """Print one line per scenario (passes, expected failures, then the unexpected);
    return the exit code."""
    passed: list[str] = []
    failed_as_expected: list[str] = []
    unexpected: list[str] = []
    for scenario, checks in sorted(results.items()):
        problems = _problems(checks)
        if scenario in expected and problems:
            group, line = failed_as_expected, f"expected fail    {scenario}: {expected[scenario]}"
        elif scenario in expected:
            group, line = unexpected, f"UNEXPECTED PASS  {scenario}: remove it from the file"
        elif problems:
            group, line = unexpected, f"UNEXPECTED FAIL  {scenario}: {'; '.join(problems)}"
        else:
            n = len(checks)
            group, line = passed, f"pass             {scenario} ({n} check{'s' * (n != 1)})"
        group.append(line + "".join(f"\n    warning: {w}" for w in _warnings(checks)))
    for scenario in sorted({*listed, *expected} - set(results)):
        why = "listed in the expected failures" if scenario in expected else "in the suite"
        unexpected.append(f"DID NOT RUN      {scenario} ({why}): renamed or removed?")
    for line in [*passed, *failed_as_expected, *unexpected]:
        print(f"  {line}")
    print(
        f"{len(passed)} passed, {len(failed_as_expected)} expected failures, "
        f"{len(unexpected)} unexpected (of {len(results)} scenarios run)"
    )
    return 1 if unexpected else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results_dir", type=Path)
    parser.add_argument("expected_failures", type=Path)
    parser.add_argument("--scenarios", type=Path, help="`conformance list --server` output.")
    args = parser.parse_args(argv)
    try:
        expected = read_expected(args.expected_failures)
        results = read_results(args.results_dir)
        listed = read_listed(args.scenarios) if args.scenarios else []
    except (OSError, InputError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return compare(results, expected, listed)


if __name__ == "__main__":
    sys.exit(main())
