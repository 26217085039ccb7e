"""Where a failed episode in the report links to: its page in the viewer's bundle when
the report knows one (`evaluator report --bundle DIR` writes it beside the report,
`--viewer DIR|URL` names one written before), else its log file, relative to the report.

A bundle's page for an episode is `index.html#/episode/KEY` (the viewer's route), KEY as
`viewer.data.episode_key` makes it. A bundle written before is read for its keys, so an
episode it does not hold keeps its log link; an episode scored from a path spelled
otherwise (`logs/` against `/abs/logs/`) is found by its episode id.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import orjson

from taurec.evaluator.episode import EpisodeScore

#: the bundle's index of episodes, as viewer/bundle.py writes it
BUNDLE_INDEX = Path("data") / "episodes.js"
_CALL = b"taurecData("


class BundleError(ValueError):
    """A folder given as the viewer's bundle is not one (the message says why)."""


def _url_path(path: str) -> str:
    """A file path as a URL path: `/` separators, everything else percent-encoded (so
    no path can start a scheme such as `javascript:`)."""
    return quote(path.replace(os.sep, "/"), safe="/")


def relative_url(target: Path, report_dir: Path) -> str:
    """`target` as a link from a page in `report_dir`."""
    try:
        rel = os.path.relpath(target.resolve(), report_dir.resolve())
    except ValueError:  # another drive: only an absolute link reaches it
        return target.resolve().as_uri()
    return _url_path(rel)


def bundle_keys(folder: Path) -> dict[str, str]:
    """The episodes of the bundle in `folder`: key -> key and episode id -> key.
    BundleError when `folder` holds no bundle index or an unreadable one."""
    index = folder / BUNDLE_INDEX
    try:
        raw = index.read_bytes().strip()
    except OSError:
        raise BundleError(
            f"{folder}: no viewer bundle there (no {BUNDLE_INDEX}); write one with "
            "`evaluator view LOGS --bundle DIR`, or give --bundle instead"
        ) from None
    try:
        if not (raw.startswith(_CALL) and raw.endswith(b");")):
            raise ValueError("not a taurecData(...) call")
        doc = orjson.loads(raw[len(_CALL) : -2])
        rows = doc["rows"]
        keys = {str(r["key"]): str(r["key"]) for r in rows}
        ids = {str(r["episode_id"]): str(r["key"]) for r in rows if r.get("episode_id")}
    except (ValueError, KeyError, TypeError) as exc:
        raise BundleError(f"{index}: not a viewer bundle index ({exc})") from None
    return {**ids, **keys}


@dataclass(frozen=True)
class EpisodeLinks:
    """The links of one report written into `report_dir`. `viewer`: the bundle's location
    as a link from the report (a relative path or a URL), None without one; `known`: the
    bundle's keys when it was read (bundle_keys), None to trust every key."""

    report_dir: Path
    viewer: str | None = None
    known: Mapping[str, str] | None = field(default=None)

    def href(self, score: EpisodeScore) -> str | None:
        """The episode's page in the viewer, else its log; None when neither exists."""
        key = self._key(score)
        if key is not None:
            return f"{self.viewer}/index.html#/episode/{key}"
        log = Path(score.path)
        if score.path.endswith(".jsonl") and log.is_file():
            return relative_url(log, self.report_dir)
        return None

    def _key(self, score: EpisodeScore) -> str | None:
        if self.viewer is None:
            return None
        from taurec.evaluator.viewer.data import episode_key

        key = episode_key(score)
        if self.known is None:
            return key
        return self.known.get(key) or self.known.get(score.episode_id or "")


def links_for(report: Path, bundle: Path | None = None, viewer: str | None = None) -> EpisodeLinks:
    """The links of the report written to `report`: into `bundle` (the folder the
    bundle was just written to with the report), or into `viewer` (a URL, or a folder
    holding a bundle written before), or to the log files. BundleError when the folder
    holds no bundle."""
    folder = report.parent
    if bundle is not None:
        return EpisodeLinks(folder, relative_url(bundle, folder), bundle_keys(bundle))
    if viewer is None:
        return EpisodeLinks(folder)
    if viewer.startswith(("http://", "https://")):
        return EpisodeLinks(folder, viewer.rstrip("/"))
    where = Path(viewer)
    return EpisodeLinks(folder, relative_url(where, folder), bundle_keys(where))
