"""A written report as the tests read it: each section's tables (headers and cell texts),
the links in table cells, and each plot's data and layout exactly as plotly gets them
(the JSON arguments of its `Plotly.newPlot` call)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

_CALL = re.compile(r'Plotly\.newPlot\(\s*(?=")')


@dataclass
class Figure:
    data: list[dict[str, Any]]
    layout: dict[str, Any]


@dataclass
class Table:
    headers: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)
    titles: list[list[str | None]] = field(default_factory=list)  # each cell's title

    def column(self, header: str) -> list[str]:
        i = self.headers.index(header)
        return [r[i] for r in self.rows]


def plotly_calls(source: str) -> dict[str, Figure]:
    """Every plot of the page by its div id."""
    decoder = json.JSONDecoder()
    found = {}
    for call in _CALL.finditer(source):  # plotly.js itself has calls with no JSON
        pos = call.end()
        args = []
        for _ in range(3):  # div id, data, layout
            while source[pos] in " \n\t,":
                pos += 1
            value, pos = decoder.raw_decode(source, pos)
            args.append(value)
        found[args[0]] = Figure(args[1], args[2])
    return found


class ReportPage(HTMLParser):
    def __init__(self, source: str) -> None:
        super().__init__()
        self.tables: dict[str, Table] = {}
        self.links: list[tuple[str, str]] = []  # (href, text) of links in table cells
        self.section_figures: dict[str, list[str]] = {}  # section id -> plot div ids
        self.intros: dict[str, str] = {}
        self._section = ""
        self._table: Table | None = None
        self._text: list[str] | None = None
        self._href: str | None = None
        self._title: str | None = None
        self._intro = False
        self.feed(source)
        plots = plotly_calls(source)
        self.figures = {
            section: [plots[i] for i in ids] for section, ids in self.section_figures.items()
        }

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "section":
            self._section = str(a.get("id"))
            self.section_figures[self._section] = []
        elif tag == "div" and "plotly-graph-div" in (a.get("class") or ""):
            self.section_figures[self._section].append(str(a.get("id")))
        elif tag == "p" and a.get("class") == "intro":
            self._intro, self._text = True, []
        elif tag == "table":
            self._table = Table()
        elif tag == "tr" and self._table is not None:
            self._table.rows.append([])
            self._table.titles.append([])
        elif tag in ("caption", "th", "td"):
            self._text, self._title = [], a.get("title")
        elif tag == "a" and self._table is not None:
            self._href = a.get("href")

    def handle_endtag(self, tag: str) -> None:
        text = "".join(self._text or [])
        if tag == "p" and self._intro:
            self.intros[self._section] = text
            self._intro = False
        elif self._table is None:
            return
        elif tag == "caption":
            self.tables[text] = self._table
        elif tag == "th":
            self._table.headers.append(text)
        elif tag == "td":
            self._table.rows[-1].append(text)
            self._table.titles[-1].append(self._title)
        elif tag == "a" and self._href is not None:
            self.links.append((self._href, text))
            self._href = None
        elif tag == "table":
            keep = [i for i, r in enumerate(self._table.rows) if r]  # the header row is empty
            self._table.rows = [self._table.rows[i] for i in keep]
            self._table.titles = [self._table.titles[i] for i in keep]
            self._table = None

    def handle_data(self, data: str) -> None:
        if self._text is not None:
            self._text.append(data)
