"""Fuzzing every MCP tool: random, invalid, huge and odd-unicode arguments.

Each tool the server lists (taken from `tools/list`, so a new tool is covered without
touching this file; one whose schema the fuzzer cannot generate for fails the run) gets
arguments built from its own input JSON schema, valid and mutated: required arguments
dropped, wrong types, unknown keys, null, strings up to about a megabyte, deeply nested
values, odd unicode (lone combining marks, bidi overrides, NUL, emoji ZWJ sequences,
non-BMP characters), extreme numbers, very long lists, valid-looking but unknown episode,
item and task ids, and valid ones too (live episode ids, real item ids, catalog names,
real cursors) so the deep paths run. Each episode tool call also goes, unchanged, to two
other episodes (live, unknown, ended). Request `_meta` (usage reports, asides) is fuzzed
as well; a tenth of the batches run concurrently. Over 10,000 calls a run, through the
in-memory client's request path (no client-side schema check: this test does its own).

Every result must be well formed: an error with a message the agent can act on (never
the SDK's bare "Error executing tool X" that a crash produces, never an internal server
error, never an echo of a huge argument), or a success whose structured content
validates against the tool's output schema. After the run the server still answers, a
fresh episode plays through, and every log the server wrote reads back cleanly. Each
call runs under a generous hang guard (`HANG_GUARD_S`); that is not a speed assertion.
Bound mode gets a smaller run of its own. Each crash fuzzing found has a regression test
at the end.
"""

from __future__ import annotations

import base64
import functools
import logging
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, cast

import anyio
import jsonschema
import mcp_types as types
import orjson
import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from mcp import Client
from support.hang_guard import HANG_GUARD_S

from taurec.server.app import build_server
from taurec.server.settings import ServerSettings
from taurec.tasks.suite import load_suite
from taurec.tasks.trajectory.reader import read_log

#: Tool calls the module must make in one run, at least.
MIN_CALLS: Final = 10_000
#: Calls drawn per hypothesis example (each episode tool call also goes to two other
#: episodes: about 36 calls an example), and examples run.
CALLS_PER_EXAMPLE: Final = 16
EXAMPLES: Final = 320
#: Examples of the smaller bound-mode run (one episode, soon ended).
BOUND_EXAMPLES: Final = 40
#: The longest error text an agent should receive: errors name the argument, they do not
#: echo it back.
MAX_ERROR_CHARS: Final = 5_000
#: The largest structured result, as JSON (a 100-item page is about 30 kB): results name
#: what they were asked about, they do not echo huge arguments back.
MAX_RESULT_BYTES: Final = 200_000
#: What the SDK says, and nothing more, when a tool crashed.
GENERIC: Final = "Error executing tool {name}"
NO_END: Final = "no end record"

JsonStrategy = st.SearchStrategy[Any]


# --- placeholders resolved against the live server ------------------------------------------


@dataclass(frozen=True)
class Ref:
    """A value only the running server can supply (an open episode's id, say), or a
    valid-looking variant of one. Resolved just before the call."""

    kind: str  # episode, item, task, genre, person, service, title, cursor
    index: int
    variant: str = "exact"


def ref(kind: str, variants: tuple[str, ...] = ("exact",)) -> JsonStrategy:
    """One of 256 placeholders per variant (one draw: cheaper than building each)."""
    return st.sampled_from([Ref(kind, i, v) for v in variants for i in range(256)])


def _variant(value: str, variant: str, unknown: str) -> str:
    match variant:
        case "unknown":
            return unknown
        case "upper":
            return value.upper() if value.upper() != value else value.lower()
        case "padded":
            return f" {value}\u200d"
        case "prefix":
            return value[: max(len(value) // 2, 1)]
        case _:
            return value


# --- value strategies --------------------------------------------------------------------

ODD_SNIPPETS: Final = (
    "\u0301",  # a lone combining acute accent
    "\u0301\u0308\u0323",
    "a\u0301\u0301\u0301\u0301",
    "\u202e",  # right-to-left override
    "\u202dLTR\u202c",
    "\u200f\u05e9\u05dc\u05d5\u05dd",
    "\u200d",
    "\x00",
    "nul\x00in\x00the\x00middle",
    "\ufeff",
    "\uffff",
    "\ufffd",
    "\U0010ffff",
    "\U0001f469\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466",  # a ZWJ family
    "\U0001f3f3\ufe0f\u200d\U0001f308",
    "\U0001d518\U0001d52b\U0001d526",  # non-BMP letters
    "\ufdfa",  # one character whose NFKD form is 18
    "ß",
    "\u0130",
    "\u01c4",
    "\u2028",
    "\r\n",
    "\t",
    " ",
    "",
    "null",
    "None",
    "undefined",
    "NaN",
    "Infinity",
    "-0",
    "1e999",
    "'; DROP TABLE items; --",
    "{{7*7}}",
    "%s%n%x",
    "../../etc/passwd",
    "syn_",
    "\\u0000",
    "<script>alert(1)</script>",
)
HUGE_UNITS: Final = (
    "a",
    "space heist ",
    "\u0301",
    "\ufdfa",
    "\U0001f469\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466",
    "\x00",
    "\u202e",
    "syn_000001 ",
    "Drama ",
)
#: Sizes in characters, repeated to weight them; 20,001 is one past the longest message a
#: tool takes. A megabyte now and then: a live episode logs the call, and all of it.
HUGE_SIZES: Final = (*[2_000] * 5, *[20_001] * 5, *[100_000] * 4, 1_000_000)
EDGE_INTS: Final = (
    0,
    -1,
    1,
    2**31 - 1,
    2**31,
    2**53 + 1,
    2**63 - 1,
    2**63,
    2**64,
    -(2**63),
    -(2**63) - 1,
    10**30,
    -(10**30),
    10**400,
)
EDGE_FLOATS: Final = (1e308, -1e308, 5e-324, -0.0, 0.1, 1.5, 9.999999, 10.000001, 1e-7, 0.5)


@functools.cache
def huge_text(unit: str, size: int) -> str:
    """A string of about `size` characters (memoised: building a megabyte each time is slow)."""
    return (unit * (size // len(unit) + 1))[:size]


@functools.cache
def deep_value(depth: int, kind: str) -> Any:
    value: Any = "bottom"
    for level in range(depth):
        as_list = kind == "list" or (kind == "mixed" and level % 2 == 1)
        value = [value] if as_list else {"k": value}
    return value


@functools.cache
def long_list(element: Any, size: int) -> list[Any]:
    return [element] * size


#: Odd strings, and each glued to another.
ODD_POOL: Final = (
    *ODD_SNIPPETS,
    *(a + b for a, b in zip(ODD_SNIPPETS, ODD_SNIPPETS[7:] + ODD_SNIPPETS[:7], strict=True)),
)
odd_text: JsonStrategy = st.one_of(st.sampled_from(ODD_POOL), st.text(max_size=10))
huge: JsonStrategy = st.builds(huge_text, st.sampled_from(HUGE_UNITS), st.sampled_from(HUGE_SIZES))
#: Nesting about as deep as the SDK client will serialise (it refuses 255 levels and more,
#: counting the request around the value).
deep: JsonStrategy = st.builds(
    deep_value, st.sampled_from((10, 100, 200, 248)), st.sampled_from(("list", "dict", "mixed"))
)
numbers: JsonStrategy = st.one_of(
    st.sampled_from((*EDGE_INTS, *EDGE_FLOATS)),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
)
scalars: JsonStrategy = st.one_of(
    st.sampled_from((None, True, False, *EDGE_INTS, *EDGE_FLOATS, *ODD_POOL)), numbers, odd_text
)
#: Small JSON values: a scalar, or a short list or object of scalars (flat, for speed).
small_json: JsonStrategy = st.one_of(
    scalars,
    scalars,
    st.lists(scalars, max_size=3),
    st.dictionaries(st.sampled_from(ODD_POOL), scalars, max_size=3),
)
long_lists: JsonStrategy = st.builds(
    long_list,
    st.sampled_from(("Drama", "syn_000001", "", 7, None, "\u202e", 2**64)),
    st.sampled_from((1_000, 1_000, 10_000, 10_000, 50_000)),
)
#: Anything at all, valid for the argument or not.
junk: JsonStrategy = st.one_of(small_json, small_json, st.none(), numbers, huge, deep, long_lists)


class UnsupportedSchema(Exception):
    """A JSON Schema construct this fuzzer cannot generate values for: teach it."""


def from_schema(schema: dict[str, Any], defs: dict[str, Any]) -> JsonStrategy:
    """Values valid against `schema` (a subset of JSON Schema: what pydantic emits)."""
    known = {
        "type", "enum", "const", "anyOf", "oneOf", "$ref", "items", "properties", "required",
        "additionalProperties", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
        "minLength", "maxLength", "minItems", "maxItems", "format", "default", "title",
        "description", "examples",
    }  # fmt: skip
    unknown = set(schema) - known
    if unknown:
        raise UnsupportedSchema(f"keywords {sorted(unknown)} in {schema}")
    if "$ref" in schema:
        name = schema["$ref"].removeprefix("#/$defs/")
        if name not in defs:
            raise UnsupportedSchema(f"unresolvable $ref {schema['$ref']}")
        return from_schema(defs[name], defs)
    if "anyOf" in schema or "oneOf" in schema:
        branches = schema["anyOf"] if "anyOf" in schema else schema["oneOf"]
        return st.one_of([from_schema(s, defs) for s in branches])
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kind = schema.get("type")
    if isinstance(kind, list):
        return st.one_of([from_schema({**schema, "type": k}, defs) for k in kind])
    match kind:
        case "string":
            if schema.get("format") == "date":
                return st.dates().map(lambda d: d.isoformat())
            if "format" in schema:
                raise UnsupportedSchema(f"string format {schema['format']!r}")
            lo, hi = schema.get("minLength", 0), schema.get("maxLength")
            fits = odd_text.filter(lambda s: lo <= len(s) <= (len(s) if hi is None else hi))
            return fits | st.text(min_size=lo, max_size=max(lo, min(hi or 10, 10)))
        case "integer":
            lo, hi = schema.get("minimum"), schema.get("maximum")
            edges = [v for v in EDGE_INTS if (lo is None or v >= lo) and (hi is None or v <= hi)]
            return st.integers(lo, hi) | st.sampled_from(edges or [lo if lo is not None else 0])
        case "number":
            lo, hi = schema.get("minimum"), schema.get("maximum")
            return st.floats(lo, hi, allow_nan=False, allow_infinity=False) | st.integers(
                int(lo) if lo is not None else None, int(hi) if hi is not None else None
            )
        case "boolean":
            return st.booleans()
        case "null":
            return st.none()
        case "array":
            items = from_schema(schema.get("items", {"type": "string"}), defs)
            return st.lists(
                items, min_size=schema.get("minItems", 0), max_size=schema.get("maxItems", 5)
            )
        case "object":
            props = schema.get("properties", {})
            required = set(schema.get("required", ()))
            return sparse_dicts(
                {k: from_schema(v, defs) for k, v in props.items() if k in required},
                {k: from_schema(v, defs) for k, v in props.items() if k not in required},
            )
    raise UnsupportedSchema(f"type {kind!r} in {schema}")


def sparse_dicts(
    required: dict[str, JsonStrategy], optional: dict[str, JsonStrategy]
) -> JsonStrategy:
    """Dicts with every required key and up to four optional ones (fewer draws than
    deciding on each optional key of a wide schema, like filter_catalog's)."""
    some = (
        st.lists(st.sampled_from(sorted(optional)), max_size=4, unique=True)
        if optional
        else st.just([])
    )

    @st.composite
    def draw_dict(draw: st.DrawFn) -> dict[str, Any]:
        out = {k: draw(v) for k, v in required.items()}
        for key in draw(some):
            out[key] = draw(optional[key])
        return out

    return draw_dict()


#: Arguments whose valid values come from the live server or the catalog, by name: each
#: maps to (valid variants, near-miss variants). An argument whose name ends in `_id` or
#: `_ids` must be listed here or in SEMANTIC_LISTS, so a new id argument gets real values.
SEMANTIC: Final[dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]]] = {
    "episode_id": ("episode", ("open",), ("ended", "unknown", "prefix", "upper", "padded")),
    "item_id": ("item", ("exact",), ("unknown", "upper", "padded", "prefix")),
    "task_id": ("task", ("exact",), ("unknown", "upper", "padded", "prefix")),
    "query": ("title", ("exact", "words"), ("upper", "padded", "prefix")),
    "text": ("title", ("sentence", "words", "exact"), ("padded", "prefix")),
    "message": ("title", ("sentence",), ("exact", "padded")),
    "director": ("person", ("exact",), ("upper", "padded", "unknown", "prefix")),
    "cast_member": ("person", ("exact",), ("upper", "padded", "unknown", "prefix")),
    "cursor": ("cursor", ("exact",), ("forged", "unknown")),
}
#: List arguments whose items come from the catalog, by name (as in SEMANTIC).
SEMANTIC_LISTS: Final[dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]]] = {
    "genres_any": ("genre", ("exact",), ("unknown", "upper", "padded", "prefix")),
    "genres_all": ("genre", ("exact",), ("unknown", "upper", "padded", "prefix")),
    "genres_none": ("genre", ("exact",), ("unknown", "upper", "padded", "prefix")),
    "services_any": ("service", ("exact", "alias"), ("unknown", "upper", "padded", "prefix")),
    "exclude_ids": ("item", ("exact",), ("unknown", "upper", "padded", "prefix")),
}


def argument_strategies(
    name: str, schema: dict[str, Any], defs: dict[str, Any]
) -> tuple[JsonStrategy, JsonStrategy]:
    """(valid values, near misses) for one argument. Valid: live ids and catalog names
    where the name calls for them, else whatever its schema allows. Near misses:
    valid-looking but wrong ids and names, or schema-valid random values."""
    plain = from_schema(schema, defs)
    if name in SEMANTIC:
        kind, good, bad = SEMANTIC[name]
        return ref(kind, good), st.one_of(ref(kind, bad), plain)
    if name in SEMANTIC_LISTS:
        kind, good, bad = SEMANTIC_LISTS[name]
        near = st.lists(ref(kind, bad) | ref(kind, good), min_size=1, max_size=4)
        return st.lists(ref(kind, good), max_size=3), st.one_of(near, plain)
    if name.endswith(("_id", "_ids")):
        raise UnsupportedSchema(f"argument {name!r} looks like an id: add it to SEMANTIC")
    return plain, plain


@dataclass(frozen=True, repr=False)
class Call:
    tool: str
    arguments: dict[str, Any] | None
    meta: dict[str, Any] | None = None

    def __repr__(self) -> str:  # a failing example is printed; megabyte values are cut
        return _short(self.tool, self.arguments, self.meta)

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:  # hypothesis's printer
        p.text(repr(self))


@dataclass(frozen=True, repr=False)
class Set:
    """A mutation: set `key` to `value` (an argument of the tool or not)."""

    key: str
    value: Any

    def __repr__(self) -> str:
        text = f"Set({self.key!r}, {self.value!r})"
        return text if len(text) < 300 else f"{text[:300]}... ({len(text)} characters)"

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(repr(self))


@dataclass(frozen=True)
class Drop:
    """A mutation: leave `key` out."""

    key: str


def mutate(arguments: dict[str, Any], mutations: list[Set | Drop]) -> dict[str, Any]:
    out = dict(arguments)
    for m in mutations:
        if isinstance(m, Drop):
            out.pop(m.key, None)
        else:
            out[m.key] = m.value
    return out


usage_meta: JsonStrategy = st.one_of(
    st.fixed_dictionaries(
        {},
        optional={
            "prompt_tokens": st.integers(0, 10**6),
            "completion_tokens": st.integers(0, 10**6),
            "cost_usd": st.floats(0, 100),
        },
    ),
    st.dictionaries(
        st.sampled_from(("prompt_tokens", "completion_tokens", "cost_usd", "x")), junk, max_size=3
    ),
    junk,
)
#: A batch (`_meta` "taurec/batch"), valid or not: a few ids, so calls share batches.
batch_meta: JsonStrategy = st.one_of(
    st.fixed_dictionaries({"id": st.sampled_from(("b1", "b2", "")), "size": st.integers(0, 4)}),
    junk,
)
#: Request `_meta`: usually none; else a usage report, an aside and a batch, valid or not.
meta: JsonStrategy = st.one_of(
    *[st.none()] * 6,
    st.fixed_dictionaries(
        {},
        optional={
            "taurec/usage": usage_meta,
            "taurec/aside": st.one_of(odd_text, junk),
            "taurec/batch": batch_meta,
        },
    ),
)
UNLISTED_TOOLS: Final = (
    "",
    "no_such_tool",
    "\u202erecommend",
    "Recommend",
    "recommend ",
    "a" * 300,
)


def tool_calls(tool: types.Tool, every_argument: frozenset[str]) -> JsonStrategy:
    """Calls of `tool`: valid, mutated (one to three arguments dropped, set to anything,
    or to a near miss, or unknown ones added), junk, or with no arguments at all."""
    schema = tool.input_schema
    defs = schema.get("$defs", {})
    props: dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", ()))
    both = {name: argument_strategies(name, sub, defs) for name, sub in props.items()}
    valid = sparse_dicts(
        {k: v for k, (v, _) in both.items() if k in required},
        {k: v for k, (v, _) in both.items() if k not in required},
    )
    own = st.sampled_from(sorted(props) or ["episode_id"])
    misspelt = sorted(
        {*every_argument, *(f"{n}s" for n in props), *(n.replace("_", "") for n in props)}
        - set(props)
    )
    mutation = st.one_of(
        st.builds(Drop, own),
        st.builds(Set, own, junk),
        st.builds(Set, st.sampled_from(misspelt) | odd_text, junk),
        *[st.builds(Set, st.just(k), near) for k, (_, near) in both.items()],
    )
    mutated = st.builds(mutate, valid, st.lists(mutation, min_size=1, max_size=3))
    nothing: JsonStrategy = st.sampled_from((None, {}))
    junk_args = st.dictionaries(
        st.sampled_from(sorted(every_argument)) | odd_text, junk, max_size=4
    )
    arguments = st.one_of(valid, valid, valid, mutated, mutated, mutated, junk_args, nothing)
    return st.builds(Call, st.just(tool.name), arguments, meta)


def every_call(tools: dict[str, types.Tool]) -> JsonStrategy:
    """Calls of any listed tool (and, now and then, of a name that is not listed).
    Raises UnsupportedSchema when a tool has arguments this fuzzer cannot generate."""
    names = frozenset(n for t in tools.values() for n in t.input_schema.get("properties", {}))
    unlisted = st.builds(
        Call,
        st.sampled_from(UNLISTED_TOOLS),
        st.dictionaries(st.sampled_from(sorted(names)), junk, max_size=3),
    )
    # Hypothesis leans towards a one_of's first branch: put the widest tools first.
    widest = sorted(tools.values(), key=lambda t: -len(t.input_schema.get("properties", {})))
    return st.one_of(*[tool_calls(t, names) for t in widest], unlisted)


# --- the harness ---------------------------------------------------------------------------


@dataclass
class Vocabulary:
    """Real names and ids from the catalog and the suite, for valid arguments."""

    items: list[str]
    titles: list[str]
    tasks: list[str]
    genres: list[str]
    people: list[str]
    services: list[str]

    @classmethod
    def builtin(cls) -> Vocabulary:
        suite = load_suite("builtin")
        items = suite.catalog.items
        return cls(
            items=[i.id for i in items],
            titles=[i.title for i in items],
            tasks=[t.id for t in suite.tasks],
            genres=sorted({g for i in items for g in i.genres}),
            people=sorted({p for i in items for p in (*i.cast, i.director or "") if p}),
            services=sorted({s for i in items for s in i.streaming_services}),
        )


SERVICE_ALIASES: Final = ("Prime Video", "prime video", "Disney Plus", "HBO", "max", "netflix ")


@dataclass
class Harness:
    """One server and one in-memory client, driven from the (synchronous) tests through a
    blocking portal. Tracks which episodes are open, and what every call returned."""

    portal: BlockingPortal
    client: Client
    tools: dict[str, types.Tool]
    vocab: Vocabulary
    log_dir: Path
    bound: bool = False  # bound mode: one episode, started by start_episode()
    calls: int = 0
    ok: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    open: list[str] = field(default_factory=list)
    ended: list[str] = field(default_factory=list)
    cursors: list[str] = field(default_factory=list)
    validators: dict[str, jsonschema.protocols.Validator] = field(default_factory=dict)
    _valid: set[bytes] = field(default_factory=set)  # results already validated
    episode_tools: frozenset[str] = frozenset()  # the tools that take an episode_id

    def __post_init__(self) -> None:
        self.episode_tools = frozenset(
            n for n, t in self.tools.items() if "episode_id" in t.input_schema.get("properties", {})
        )
        for name, tool in self.tools.items():
            if tool.output_schema is not None:
                cls = jsonschema.validators.validator_for(tool.output_schema)
                cls.check_schema(tool.output_schema)
                self.validators[name] = cls(inline_refs(tool.output_schema))

    # -- resolving placeholders -----------------------------------------------------------

    async def episode_id(self, index: int) -> str:
        """A live episode (started now if there is none); in bound mode, the one episode."""
        if self.bound and (self.open or self.ended):
            return [*self.open, *self.ended][0]
        if not self.open:
            start = (
                {} if self.bound else {"task_id": self.vocab.tasks[index % len(self.vocab.tasks)]}
            )
            started = await self._request("start_episode", start)
            assert not started.is_error and started.structured_content, started
            self._started(str(started.structured_content["episode_id"]))
        return self.open[index % len(self.open)]

    async def _resolve_ref(self, r: Ref) -> Any:
        v, i = self.vocab, r.index
        match r.kind:
            case "episode":
                if r.variant == "ended" and self.ended:
                    return self.ended[i % len(self.ended)]
                if r.variant in ("unknown", "ended"):
                    return f"{i * 2654435761 % 2**128:032x}"
                return _variant(await self.episode_id(i), r.variant, "")
            case "item":
                return _variant(v.items[i % len(v.items)], r.variant, f"syn_{900_000 + i:06d}")
            case "task":
                return _variant(v.tasks[i % len(v.tasks)], r.variant, f"t{900 + i % 100}")
            case "genre":
                return _variant(v.genres[i % len(v.genres)], r.variant, "Space Western")
            case "person":
                return _variant(v.people[i % len(v.people)], r.variant, "Nobody Atall")
            case "service":
                if r.variant == "alias":
                    return SERVICE_ALIASES[i % len(SERVICE_ALIASES)]
                return _variant(v.services[i % len(v.services)], r.variant, "Betamax+")
            case "title":
                title = v.titles[i % len(v.titles)]
                if r.variant == "sentence":
                    return f"Have you seen {title}? What do you feel like tonight?"
                if r.variant == "words":
                    return " ".join(title.split()[1:]) or title
                return _variant(title, r.variant, "")
            case "cursor":
                if r.variant == "forged":
                    doc = orjson.dumps({"o": [-1, 2**62, True, "1"][i % 4], "f": "0" * 16})
                    return base64.urlsafe_b64encode(doc).decode()
                if r.variant == "unknown" or not self.cursors:
                    return base64.urlsafe_b64encode(b"\xff" * (i % 40)).decode()
                return self.cursors[i % len(self.cursors)]
        raise AssertionError(f"unknown ref kind {r.kind}")

    async def _resolve(self, value: Any) -> Any:
        """Placeholders sit at the top level or in a top-level list (never deeper)."""
        if isinstance(value, Ref):
            return await self._resolve_ref(value)
        if isinstance(value, list) and len(value) < 10 and any(isinstance(x, Ref) for x in value):
            return [await self._resolve(x) for x in value]
        return value

    # -- calling ----------------------------------------------------------------------------

    async def _request(
        self, name: str, arguments: dict[str, Any] | None, meta: dict[str, Any] | None = None
    ) -> types.CallToolResult:
        params = types.CallToolRequestParams(name=name, arguments=arguments, _meta=meta)
        self.calls += 1
        with anyio.fail_after(HANG_GUARD_S):
            result = await self.client.session.send_request(
                types.CallToolRequest(params=params), types.CallToolResult
            )
        assert isinstance(result, types.CallToolResult)
        return result

    async def call(self, call: Call, failures: list[str]) -> None:
        """Make one call, check its result is well formed, and note what it did."""
        arguments = call.arguments
        if arguments is not None:
            arguments = {k: await self._resolve(v) for k, v in arguments.items()}
        result = await self._request(call.tool, arguments, call.meta)
        problem = self.malformed(call.tool, result)
        if problem is not None:
            failures.append(f"{problem}\n  call: {_short(call.tool, arguments, call.meta)}")
            return
        self._note(call.tool, arguments or {}, result)

    async def run(self, drawn: list[Call], together: bool) -> list[str]:
        """Make the calls (each with its siblings), one after another or all at once; what
        was malformed."""
        batch = [c for call in drawn for c in (call, *siblings(call, self.episode_tools))]
        failures: list[str] = []
        if together:  # concurrently: episodes' locks and logs must hold up
            async with anyio.create_task_group() as tg:
                for c in batch:
                    tg.start_soon(self.call, c, failures)
        else:
            for c in batch:
                await self.call(c, failures)
        return failures

    def malformed(self, name: str, result: types.CallToolResult) -> str | None:
        """What is wrong with `result`, or None when it is well formed."""
        if result.is_error:
            texts = [b.text for b in result.content if isinstance(b, types.TextContent)]
            text = "\n".join(texts).strip()
            generic = GENERIC.format(name=name)
            detail = text.removeprefix(generic).removeprefix(":").strip()
            if not text or text == generic or not detail:
                return f"{name}: a generic or empty error {text!r} (a crash in the tool)"
            if "internal server error" in text:
                return f"{name}: an internal server error: {text[:500]!r}"
            if len(text) > MAX_ERROR_CHARS:
                return (
                    f"{name}: a {len(text)}-character error (it echoes the input?): {text[:300]!r}"
                )
            return None
        content = result.structured_content
        validator = self.validators.get(name)
        if validator is None:
            return None if content is not None or result.content else f"{name}: an empty result"
        if content is None:
            return f"{name}: success without structured content"
        key = name.encode() + b"\0" + orjson.dumps(content, option=orjson.OPT_SORT_KEYS)
        if len(key) > MAX_RESULT_BYTES:
            return f"{name}: a {len(key)}-byte result (it echoes the input?): {key[:300]!r}"
        if key in self._valid:  # list_tasks, server_info, ...: the same every time
            return None
        errors = sorted(validator.iter_errors(content), key=lambda e: list(e.path))
        if errors:
            return f"{name}: structured content off its output schema: {errors[0].message[:300]}"
        self._valid.add(key)
        return None

    def _note(self, name: str, arguments: dict[str, Any], result: types.CallToolResult) -> None:
        episode = arguments.get("episode_id")
        if episode is None and self.bound and (self.open or self.ended):
            episode = [*self.open, *self.ended][0]  # the one episode an id-less call acts on
        if result.is_error:
            self.errors[name] += 1
            text = "".join(b.text for b in result.content if isinstance(b, types.TextContent))
            if "has ended" in text and episode in self.open:
                self._ended(episode)
            return
        self.ok[name] += 1
        content = result.structured_content or {}
        if name == "start_episode":
            self._started(str(content["episode_id"]))
        elif name == "abort_episode" or content.get("episode_ended"):
            self._ended(episode)
        if name == "filter_catalog" and content.get("next_cursor"):
            self.cursors = [*self.cursors[-20:], content["next_cursor"]]

    def _started(self, episode: str) -> None:
        if episode not in self.open and episode not in self.ended:  # bound mode: once
            self.open.append(episode)

    def _ended(self, episode: Any) -> None:
        if episode in self.open:
            self.open.remove(episode)
            self.ended.append(episode)

    def request(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        """One plain call from the test thread."""
        return self.portal.call(self._request, name, arguments)


def siblings(call: Call, episode_tools: frozenset[str]) -> list[Call]:
    """The same call aimed at other episodes: a live one, and an unknown or an ended one,
    whichever the call did not aim at. Bad arguments meet a live episode (whose log must
    record them) and dead ones; and one draw makes three calls. Tools that take no
    episode_id have none."""
    args = call.arguments
    if call.tool not in episode_tools or args is None:
        return []
    target = args.get("episode_id")
    index = target.index if isinstance(target, Ref) else 0
    aimed = target.variant if isinstance(target, Ref) else None
    others = [v for v in ("open", "unknown", "ended") if v != aimed][:2]
    return [
        Call(call.tool, {**args, "episode_id": Ref("episode", index, v)}, call.meta) for v in others
    ]


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` with each local `$ref` replaced by its definition (a validator then skips
    the reference lookups, most of its time). Unchanged if a definition refers to itself."""
    defs = schema.get("$defs", {})

    def walk(node: Any, seen: tuple[str, ...]) -> Any:
        if isinstance(node, list):
            return [walk(x, seen) for x in node]
        if not isinstance(node, dict):
            return node
        target = node.get("$ref", "")
        if target.startswith("#/$defs/"):
            name = target.removeprefix("#/$defs/")
            if name in seen:
                raise RecursionError(name)
            rest = {k: v for k, v in node.items() if k != "$ref"}
            return walk({**defs[name], **rest}, (*seen, name))
        return {k: walk(v, seen) for k, v in node.items() if k != "$defs"}

    try:
        inlined: dict[str, Any] = walk(schema, ())
    except RecursionError:
        return schema
    return inlined


def _short(tool: str, arguments: Any, meta: Any) -> str:
    """A call, for a failure message: values of a megabyte are cut."""
    text = f"Call({tool!r}, {arguments!r}, meta={meta!r})"
    return text if len(text) < 600 else f"{text[:600]}... ({len(text)} characters)"


@contextmanager
def serving(settings: ServerSettings) -> Iterator[Harness]:
    """A server for `settings` and its harness, for as long as the block runs."""
    server = build_server(settings)
    # The server logs each ignored malformed usage report with its repr (warnings); keep
    # the test's captured output small. Errors (crashes, unloggable calls) still show.
    quiet = logging.getLogger("taurec.server")
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        with (
            start_blocking_portal() as portal,
            portal.wrap_async_context_manager(Client(server)) as client,
        ):
            tools = {t.name: t for t in portal.call(client.list_tools).tools}
            vocab = Vocabulary.builtin()
            yield Harness(portal, client, tools, vocab, settings.log_dir, bound=settings.bound)
    finally:
        quiet.setLevel(level)


def fuzz(harness: Harness, examples: int) -> None:
    """Run `examples` batches of CALLS_PER_EXAMPLE drawn calls (and their siblings)."""
    drawn = st.lists(
        every_call(harness.tools), min_size=CALLS_PER_EXAMPLE, max_size=CALLS_PER_EXAMPLE
    )

    # Generation only: each failure message names the exact call, and shrinking a batch
    # against a server whose state moved on costs minutes without making it clearer.
    @settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        # a loaded CI machine may generate slowly; a batch of 16 calls is large by design
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(drawn, st.integers(0, 9))
    def run(batch: list[Call], together: int) -> None:
        failures = harness.portal.call(harness.run, batch, together == 0)
        assert not failures, "\n\n".join(failures[:5])

    run()


def check_logs(harness: Harness) -> None:
    """Every log the server wrote reads back: those of open episodes lack at most their end
    record; once they are aborted, every log is complete, each call with its result."""
    logs = sorted(harness.log_dir.rglob("*.jsonl"))
    assert len(logs) >= len(harness.open) + len(harness.ended) > 0
    open_prefixes = {e[:12] for e in harness.open}
    for path in logs:
        problems = [p.message for p in read_log(path).problems]
        if path.stem.rsplit("-", 1)[-1] in open_prefixes:
            assert all(p.startswith(NO_END) for p in problems), (path, problems)
        else:
            assert not problems, (path, problems)
    for eid in list(harness.open):
        aborted = harness.request("abort_episode", {"episode_id": eid, "reason": "agent_error"})
        # or a call the harness saw only as refused ended it (the tool-call limit)
        assert not aborted.is_error or "has ended" in _text(aborted), aborted.content
    for path in logs:
        parsed = read_log(path)
        assert parsed.ok, (path, [str(p) for p in parsed.problems])
        calls = [e["call_id"] for e in parsed.events if e["type"] == "tool_call"]
        results = [e["call_id"] for e in parsed.events if e["type"] == "tool_result"]
        assert len(set(calls)) == len(calls) and sorted(calls) == sorted(results), path


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Harness]:
    log_dir = tmp_path_factory.mktemp("fuzz-logs")
    with serving(ServerSettings(log_dir=log_dir, run_label="fuzz")) as h:
        yield h


# --- the tests -----------------------------------------------------------------------------


def test_every_listed_tool_has_an_argument_strategy(harness: Harness) -> None:
    assert len(harness.tools) >= 12, sorted(harness.tools)
    names = frozenset(n for t in harness.tools.values() for n in t.input_schema["properties"])
    for tool in harness.tools.values():
        tool_calls(tool, names)  # raises UnsupportedSchema if the fuzzer cannot cover it
    assert set(harness.validators) == set(harness.tools), "every tool declares an output schema"


@pytest.mark.slow
def test_fuzzed_calls_always_get_a_well_formed_result(harness: Harness) -> None:
    fuzz(harness, EXAMPLES)
    assert harness.calls >= MIN_CALLS, harness.calls
    # every tool was reached with valid arguments, and refused bad ones
    assert set(harness.ok) == set(harness.tools), sorted(set(harness.tools) - set(harness.ok))
    takes_arguments = {n for n, t in harness.tools.items() if t.input_schema.get("required")}
    assert takes_arguments <= set(harness.errors), sorted(takes_arguments - set(harness.errors))
    # and the deep paths ran: conversations, commits and aborts ended episodes
    assert len(harness.ended) >= 50, len(harness.ended)


def test_the_server_still_works_after_fuzzing(harness: Harness) -> None:
    assert harness.calls >= MIN_CALLS, "run the whole module: the fuzzing test comes first"
    info = harness.request("server_info", {})
    assert not info.is_error and info.structured_content is not None
    assert info.structured_content["catalog_items"] == len(harness.vocab.items)
    # a fresh episode plays through
    started = harness.request("start_episode", {"task_id": "t001"})
    assert not started.is_error and started.structured_content is not None, started.content
    eid = started.structured_content["episode_id"]
    said = harness.request("send_message", {"episode_id": eid, "text": "Hi! What do you like?"})
    assert not said.is_error, said.content
    hits = harness.request("search_catalog", {"episode_id": eid, "query": "adventure"})
    assert not hits.is_error and hits.structured_content is not None, hits.content
    item = hits.structured_content["hits"][0]["id"]
    done = harness.request("recommend", {"episode_id": eid, "item_id": item, "message": "Try it."})
    assert not done.is_error and done.structured_content is not None, done.content
    assert done.structured_content["committed"] == item
    assert done.structured_content["episode_ended"]


def test_fuzzing_left_every_episode_log_readable(harness: Harness) -> None:
    assert harness.calls >= MIN_CALLS, "run the whole module: the fuzzing test comes first"
    check_logs(harness)


def test_bound_mode_fuzzed_calls_get_well_formed_results(tmp_path: Path) -> None:
    """Bound mode (one task's one episode; episode_id optional) has its own paths: the
    episode starts on first use, and other tasks, trials and seeds are refused."""
    settings = ServerSettings(log_dir=tmp_path, run_label="fuzz", task="t001")
    with serving(settings) as harness:
        harness.portal.call(harness.episode_id, 0)  # so the harness knows the one episode
        fuzz(harness, BOUND_EXAMPLES)
        assert harness.calls >= 1_000, harness.calls
        assert harness.episode_tools & set(harness.ok), harness.ok  # the episode was played
        info = harness.request("server_info", {})
        assert (
            info.structured_content is not None and info.structured_content["bound_task"] == "t001"
        )
        check_logs(harness)
        assert len(list(tmp_path.rglob("*.jsonl"))) == 1


# --- regression tests: what fuzzing found, fixed -------------------------------------------


def _text(result: types.CallToolResult) -> str:
    assert result.is_error, result.structured_content
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


async def _start(client: Client) -> str:
    started = await client.call_tool("start_episode", {"task_id": "t001"})
    assert started.structured_content is not None, started.content
    return str(started.structured_content["episode_id"])


def _logged_calls(log_dir: Path) -> list[dict[str, Any]]:
    (path,) = log_dir.rglob("*.jsonl")
    return [e for e in read_log(path).events if e["type"] in ("tool_call", "tool_result")]


async def test_a_filter_bound_beyond_64_bits_is_an_error_naming_it(tmp_path: Path) -> None:
    """Found: filter_catalog(runtime_min=2**64) crashed writing the call to the log."""
    async with Client(build_server(ServerSettings(log_dir=tmp_path))) as client:
        eid = await _start(client)
        for name in ("runtime_min", "runtime_max", "min_votes"):
            text = _text(await client.call_tool("filter_catalog", {"episode_id": eid, name: 2**64}))
            assert name in text and GENERIC.format(name="filter_catalog") + ":" in text
        assert not (await client.call_tool("get_user_history", {"episode_id": eid})).is_error
    logged = _logged_calls(tmp_path)
    assert [e["arguments"]["runtime_min"] for e in logged[:1]] == ["18446744073709551616"]


async def test_a_rejected_call_the_log_cannot_hold_is_logged_cut_down(tmp_path: Path) -> None:
    """Found: a rejected call with a number beyond 64 bits or a 250-level value, on a live
    episode, failed to log and the whole request failed ("Internal server error")."""
    arguments = {"item_id": "syn_000001", "n": 2**64, "deep": deep_value(250, "list")}
    async with Client(build_server(ServerSettings(log_dir=tmp_path))) as client:
        eid = await _start(client)
        text = _text(await client.call_tool("get_item", {"episode_id": eid, **arguments}))
        assert "not an argument of this tool" in text
    call, result = _logged_calls(tmp_path)
    assert call["arguments"]["n"] == "18446744073709551616"
    assert isinstance(call["arguments"]["deep"], list) and result["content"] == text


async def test_a_flood_of_validation_errors_is_cut_short(tmp_path: Path) -> None:
    """Found: 10,000 bad exclude_ids answered with 1.9 MB of validation errors."""
    async with Client(build_server(ServerSettings(log_dir=tmp_path))) as client:
        eid = await _start(client)
        flood = {"episode_id": eid, "exclude_ids": [None] * 10_000}
        text = _text(await client.call_tool("filter_catalog", flood))
    assert len(text) < 2_200 and "10000 validation errors" in text and "exclude_ids.0" in text
    assert _logged_calls(tmp_path)[-1]["content"] == text


async def test_a_long_bad_cursor_is_named_not_echoed(tmp_path: Path) -> None:
    """Found: a bad cursor came back whole in the error (a megabyte of it, before text
    arguments had a length limit)."""
    async with Client(build_server(ServerSettings(log_dir=tmp_path))) as client:
        eid = await _start(client)
        bad = {"episode_id": eid, "cursor": "x" * 3_000}
        text = _text(await client.call_tool("filter_catalog", bad))
    assert "argument 'cursor'" in text and "not valid for this filter" in text
    assert len(text) < 500


async def test_unknown_names_are_counted_not_echoed(tmp_path: Path) -> None:
    """Found: 50,000 unknown genres came back as a 500 kB warning in the result."""
    async with Client(build_server(ServerSettings(log_dir=tmp_path))) as client:
        eid = await _start(client)
        names = ["\u202e", *(f"genre {i}" for i in range(50_000))]
        page = await client.call_tool("filter_catalog", {"episode_id": eid, "genres_any": names})
    assert page.structured_content is not None, page.content
    (warning,) = page.structured_content["warnings"]
    assert warning.startswith("unknown genres: '\\u202e', 'genre 0'")
    assert warning.endswith("(and 49991 more)") and len(warning) < 500


@pytest.mark.parametrize(
    "arguments",
    [
        {"task_id": "t001", "trial": 2**64},
        {"task_id": "t001", "seed": 2**64},
        {"task_id": "t001", "seed": -(2**63) - 1},
        {"task_id": "t001", "trial": "18446744073709551616"},
    ],
)
async def test_a_trial_or_seed_beyond_64_bits_is_an_error_naming_it(
    tmp_path: Path, arguments: dict[str, Any]
) -> None:
    """Found by fuzzing: the log header cannot hold such numbers, which crashed the call."""
    async with Client(build_server(ServerSettings(log_dir=tmp_path))) as client:
        result = await client.call_tool("start_episode", arguments)
    assert result.is_error
    assert _text(result) != GENERIC.format(name="start_episode")
    assert ("trial" if "trial" in arguments else "seed") in _text(result)
    assert not list(tmp_path.rglob("*.jsonl"))  # no episode was started


async def test_a_usage_report_beyond_64_bits_is_ignored_and_the_episode_ends(
    tmp_path: Path,
) -> None:
    """Found by fuzzing: a kept report the end record could not hold left the episode
    unable to end. Token counts beyond 2**53 - 1 are now a malformed report, ignored."""
    async with Client(build_server(ServerSettings(log_dir=tmp_path))) as client:
        eid = await _start(client)
        report = {"prompt_tokens": 2**64, "completion_tokens": 1}
        usage = cast(types.RequestParamsMeta, {"taurec/usage": report})
        noted = await client.call_tool("get_user_history", {"episode_id": eid}, meta=usage)
        assert not noted.is_error
        ended = await client.call_tool(
            "abort_episode", {"episode_id": eid, "reason": "agent_error"}
        )
    assert not ended.is_error, ended.content
    (path,) = tmp_path.rglob("*.jsonl")
    assert read_log(path).ok
