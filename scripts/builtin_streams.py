"""Write the shipped stream suite `stream:builtin` from its plan (BUILTIN_PLAN in
tasks/stream/generator.py): 120 personas on the logistic curve over the built-in catalog,
items and personas once in pool.json. `--cross-stream biel` writes BIEL's own draw of the
same plan (the suite shipped before it was drawn isolated; it has hard leaks).

python scripts/builtin_streams.py                                  # the shipped folder
python scripts/builtin_streams.py --out biel-builtin --cross-stream biel --episode-order drawn

`--cross-stream biel --episode-order drawn` is the suite shipped before the built-in one
was drawn isolated; `--episode-order drawn` alone, the one shipped before its episodes
were balanced (tasks/stream/ordering.py).
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

from taurec.catalog.store import BUILTIN, Catalog
from taurec.tasks.stream.generator import (
    BUILTIN_PERSONAS,
    BUILTIN_PLAN,
    CrossStream,
    movie_streams,
)
from taurec.tasks.stream.leaks import stream_leaks
from taurec.tasks.stream.ordering import EpisodeOrder
from taurec.tasks.suite import SuiteManifest, load_suite, packaged_suites_dir, write_suite_dir

#: How the manifest's description says the streams were drawn, per cross-stream mode.
DRAWN = {
    CrossStream.ISOLATED: "drawn isolated (no customer meets a best item of theirs in two streams)",
    CrossStream.DISTINCT: "drawn distinct (no customer in two streams)",
    CrossStream.BIEL: "drawn as BIEL's seeds, each stream on its own (hard leaks across streams)",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=packaged_suites_dir() / "stream")
    parser.add_argument(
        "--cross-stream",
        choices=[m.value for m in CrossStream],
        default=BUILTIN_PLAN.cross_stream,
        help="what streams may share (default: the plan's)",
    )
    parser.add_argument(
        "--episode-order",
        choices=[o.value for o in EpisodeOrder],
        default=None,
        help="how each stream's episodes are ordered (default: the plan's, balanced)",
    )
    args = parser.parse_args()
    order = None if args.episode_order is None else EpisodeOrder(args.episode_order)
    plan = replace(BUILTIN_PLAN, cross_stream=CrossStream(args.cross_stream), episode_order=order)
    tasks = movie_streams(Catalog.load(BUILTIN), plan, BUILTIN_PERSONAS)
    manifest = SuiteManifest(
        format_version=1,
        id="stream",
        catalog=BUILTIN,
        kind="stream",
        description=(
            f"BIEL streams over the built-in catalog: {plan.n} streams x {plan.episodes} "
            "episodes per setting (variable_category, variable_persona, variable_settings), "
            f"feedback regret / stars / persona, {BUILTIN_PERSONAS} customers whose utilities "
            "come from hidden preference models on the logistic curve; "
            f"{DRAWN[plan.cross_stream]}"
            + (
                "; episodes as drawn"
                if plan.episode_order is EpisodeOrder.DRAWN
                else "; each stream's episodes ordered so a random pick's expected regret has "
                "no trend"
            )
        ),
    )
    write_suite_dir(args.out, manifest, tasks)
    load_suite(str(args.out))  # it loads: every stream passes its checks
    leaks = stream_leaks(tasks)
    print(
        f"wrote {len(tasks)} streams to {args.out} (--cross-stream {plan.cross_stream}); "
        f"{leaks.hard_episodes} episodes in {len(leaks.hard)} streams leak across streams"
    )


if __name__ == "__main__":
    main()
