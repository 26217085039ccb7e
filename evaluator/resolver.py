"""Which suite each log is scored against: suites loaded once and kept (a few at a time),
and never a suite that a log chooses for itself."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field, replace

from taurec.catalog.errors import DataError
from taurec.catalog.mentions import TitleMatcher
from taurec.catalog.store import BUILTIN, Catalog
from taurec.evaluator.defaults import DEFAULT_RULES, MAX_LOG_BYTES
from taurec.evaluator.recommendation.replay import Replayer
from taurec.evaluator.text import plain
from taurec.tasks.kinds import TASK_KINDS
from taurec.tasks.suite import Suite, load_suite, portable_suite_spec
from taurec.tasks.trajectory.signing import LogKey

#: Suites kept loaded at once (each holds a catalog and its indexes).
SUITE_CACHE = 8


@dataclass
class SuiteContext:
    suite: Suite
    catalog: Catalog
    titles: TitleMatcher
    replayer: Replayer
    spec: str  # as loaded (portable)
    sha256: str  # Suite.sha256()


def _shipped(spec: str) -> bool:
    """ "builtin" or `KIND:builtin` (e.g. ranking:builtin): a suite this package ships,
    which no log can change."""
    kind, _, name = spec.partition(":")
    return spec == BUILTIN or (name == BUILTIN and kind in TASK_KINDS.names())


@dataclass
class Resolver:
    """Loads suites (at most SUITE_CACHE at once). `suite` / `catalog` override what log
    headers say. A header may name only a shipped suite (`builtin`, `ranking:builtin`,
    ...), `suite`, or a suite in `allowed_specs` (the plans of the run registers being
    scored): a log cannot pick a suite of its own choosing, such as a folder of trivial
    tasks with the same ids."""

    suite: str | None = None
    catalog: str | None = None
    replay: bool = True
    verify_key: LogKey | None = None  # set: check every log's chain and end-record HMAC
    allowed_specs: frozenset[str] = frozenset()
    max_log_bytes: int = MAX_LOG_BYTES  # a bigger log is reported, not read (defaults.py)
    rules: str = DEFAULT_RULES  # the rules profile episodes are judged by (evaluator/recommendation/rules.py)
    _cache: OrderedDict[str, SuiteContext | DataError] = field(default_factory=OrderedDict)
    _keys: dict[str, str] = field(default_factory=dict)  # spec as named -> cache key
    # the same settings without replay (see `without_replay`); a copy never inherits it
    _unreplayed: Resolver | None = field(default=None, init=False, repr=False, compare=False)

    def _key(self, named: str) -> str:
        if self.suite is not None or _shipped(named):
            return named
        portable = portable_suite_spec(named)
        if portable not in self.allowed_specs:
            raise DataError(
                f"the log names suite {plain(named)!r}, which is neither the built-in suite "
                "nor the suite of a run plan being scored; give --suite to score against "
                "it (the evaluator never loads a suite a log chooses)"
            )
        return portable

    def unloaded(self) -> Resolver:
        """The same settings with no suite loaded (cheap to send to a worker process)."""
        return replace(self, _cache=OrderedDict(), _keys={})

    def without_replay(self) -> Resolver:
        """These settings with replay off, sharing the loaded suites: for a log whose
        signature proves the server wrote its results (made once)."""
        if self._unreplayed is None:
            self._unreplayed = replace(self, replay=False)
        return self._unreplayed

    def context(self, spec: str | None) -> SuiteContext:
        named = self.suite or spec or "builtin"
        key = self._keys.get(named)
        if key is None:  # once per spelling: resolving a path costs system calls
            key = self._key(named)
            if len(self._keys) < 10_000:
                self._keys[named] = key
        hit = self._cache.get(key)
        if hit is None:
            try:
                suite = load_suite(key, audit=False)  # scoring needs no defect report
                catalog = Catalog.load(self.catalog) if self.catalog else suite.catalog
                hit = SuiteContext(
                    suite,
                    catalog,
                    TitleMatcher(catalog.items),
                    Replayer(catalog),
                    portable_suite_spec(suite.spec),
                    suite.sha256(),
                )
            except DataError as exc:
                hit = exc
            self._cache[key] = hit
            while len(self._cache) > SUITE_CACHE:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(key)
        if isinstance(hit, DataError):
            raise hit
        return hit
