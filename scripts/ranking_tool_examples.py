"""Print every ranking tool's output for one task, as docs/ranking.md shows them.

python scripts/ranking_tool_examples.py ranking:builtin rank_000
"""

from __future__ import annotations

import sys

from taurec.server.ranking.env import RankingEnv


def main() -> None:
    spec, task_id = sys.argv[1], sys.argv[2]
    env = RankingEnv.from_suite(spec)
    task = env.suite.get(task_id) if env.suite is not None else None
    if task is None:
        sys.exit(f"error: no task {task_id!r} in {spec}")
    env.reset(task)
    titles = {i: env.rd.data.items[env.rd.data.item_of(i)].title for i in task.history}
    last = titles[task.history[-1]] if task.history else ""
    for name, arguments in (
        ("candidates_analyze", {}),
        ("get_user_profile", {}),
        ("get_session_behavior", {}),
        ("get_rating_behavior", {}),
        ("item_info_search", {"item_name": last}),
        ("get_similar_items", {"item_title": last}),
        ("get_similar_users", {}),
    ):
        print(
            f"### {name} {arguments or ''}\n\n```\n{env.step({'name': name, 'arguments': arguments}).observation}\n```\n"
        )


if __name__ == "__main__":
    main()
