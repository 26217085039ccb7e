"""The viewer as static files (`evaluator view --bundle DIR`): the same page, with the
data as script files it loads, so the folder works from file:// or any static host.

Pages opened from file:// cannot fetch JSON, so each document is written as a call,
`taurecData(...)` / `taurecEpisode(key, ...)` / `taurecWords(...)`, in a .js file the
page adds as a script.
"""

from __future__ import annotations

from pathlib import Path

import orjson

from taurec.evaluator.viewer.app import STATIC, static_file
from taurec.evaluator.viewer.data import LogSet
from taurec.evaluator.viewer.words import EpisodeWords

#: Marks the page as a bundle (no server to poll); inserted before the viewer's script.
BUNDLE_FLAG = '<meta name="taurec-bundle" content="1">'


def _script(call: str, *args: object) -> bytes:
    # orjson escapes nothing that ends a script file; < > & are escaped anyway, for readers
    # who paste the data into a page
    body = b",".join(
        orjson.dumps(a)
        .replace(b"<", b"\\u003c")
        .replace(b">", b"\\u003e")
        .replace(b"&", b"\\u0026")
        for a in args
    )
    return call.encode() + b"(" + body + b");\n"


def write_bundle(logs: LogSet, out: Path) -> int:
    """Write the viewer and every episode under `out`; the number of episodes."""
    logs.refresh(force=True)
    data = out / "data"
    data.mkdir(parents=True, exist_ok=True)
    for name, (source, _) in STATIC.items():
        blob = static_file(source)
        if source == "index.html":
            blob = blob.replace(b"<head>", b"<head>\n" + BUNDLE_FLAG.encode(), 1)
        (out / (name or "index.html")).write_bytes(blob)
    (data / "episodes.js").write_bytes(_script("taurecData", logs.document()))
    (data / "words.js").write_bytes(_script("taurecWords", EpisodeWords(logs).document()))
    for row in logs.rows:
        doc = logs.detail(row["key"])
        (data / f"episode-{row['key']}.js").write_bytes(_script("taurecEpisode", row["key"], doc))
    return len(logs.rows)
