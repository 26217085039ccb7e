#!/usr/bin/env bash
# The MCP Inspector CLI lists and calls taurec's tools, over stdio and over Streamable HTTP.
#
#   scripts/inspector.sh             # both transports; one line per call
#   scripts/inspector.sh --verbose   # and print each result (JSON)
#   scripts/inspector.sh stdio       # or: http
#
# Per transport: tools/list, tools/call list_tasks, tools/call start_episode task_id=t001.
# Over stdio the Inspector launches `taurec serve` itself; for HTTP this script starts
# `taurec serve --transport http` on a free port and stops it afterwards. Episode logs go
# to a temporary folder that is removed at the end. Installs the pinned Inspector (and a
# Node 22 if needed) into .tools/ on first use (scripts/tools.sh). Exit code: 0 when every
# call answered as expected, 1 otherwise, 3 when the Inspector cannot be installed here.
set -euo pipefail
# shellcheck source=scripts/tools.sh
source "$(dirname "${BASH_SOURCE[0]}")/tools.sh"

verbose=0
transports=()
for arg in "$@"; do
    case "$arg" in
        -v | --verbose) verbose=1 ;;
        stdio | http) transports+=("$arg") ;;
        -h | --help)
            sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
            exit 0
            ;;
        *)
            echo "unknown argument: $arg (expected stdio, http, --verbose)" >&2
            exit 2
            ;;
    esac
done
((${#transports[@]})) || transports=(stdio http)

status=0
tools_setup || status=$?
if ((status)); then exit "$status"; fi
taurec_serve

work="$(mktemp -d "${TMPDIR:-/tmp}/taurec-inspector.XXXXXX")"
# shellcheck disable=SC2317 # (run by the trap)
cleanup() {
    stop_http_server
    rm -rf "$work"
}
trap cleanup EXIT

failures=0

# check WHAT RESULT_FILE: one line saying what the call returned; 1 if it is not right.
check() {
    "$NODE" - "$1" "$2" <<'JS'
const [what, file] = process.argv.slice(2);
const fs = require("fs");
let r;
try {
    r = JSON.parse(fs.readFileSync(file, "utf8")).result; // --format json: {"result": ...}
} catch (e) {
    console.log(`FAIL  ${what}: no JSON result (${e.message})`);
    process.exit(1);
}
let line;
if (what.endsWith("tools/list")) {
    const names = (r.tools || []).map((t) => t.name);
    const typed = (r.tools || []).filter((t) => t.inputSchema && t.outputSchema).length;
    if (!names.includes("start_episode") || !names.includes("filter_catalog")) line = null;
    else line = `${names.length} tools, ${typed} with input and output schemas: ${names.join(", ")}`;
} else if (r.isError || !r.structuredContent) {
    line = null;
} else if (what.endsWith("list_tasks")) {
    const tasks = r.structuredContent.tasks || [];
    line = tasks.length ? `suite ${r.structuredContent.suite}: ${tasks.length} tasks (${tasks[0].id} ... ${tasks[tasks.length - 1].id})` : null;
} else {
    const s = r.structuredContent;
    line = s.episode_id ? `episode ${s.episode_id} of ${s.task_id}; the user opens: ${JSON.stringify(s.opening)}` : null;
}
if (line === null) {
    console.log(`FAIL  ${what}: unexpected result: ${JSON.stringify(r).slice(0, 400)}`);
    process.exit(1);
}
console.log(`ok    ${what}: ${line}`);
JS
}

# inspect TRANSPORT NAME INSPECTOR-ARGS...: run the Inspector CLI, save and check its result.
inspect() {
    local transport="$1" name="$2" out
    shift 2
    out="$work/$transport-${name//\//-}.json"
    echo "\$ inspector --cli $*" >&2
    if ! "$NODE" "$INSPECTOR_JS" --cli --format json "$@" >"$out" 2>"$out.err"; then
        echo "FAIL  $transport $name: the Inspector exited with an error:" >&2
        cat "$out.err" >&2
        failures=$((failures + 1))
        return 0
    fi
    if ((verbose)); then cat "$out" && echo; fi
    check "$transport $name" "$out" || failures=$((failures + 1))
}

for transport in "${transports[@]}"; do
    if [[ $transport == stdio ]]; then
        server=(-- "${SERVE[@]}" --log-dir "$work/stdio-logs")
        inspect stdio tools/list --method tools/list "${server[@]}"
        inspect stdio list_tasks --method tools/call --tool-name list_tasks "${server[@]}"
        inspect stdio start_episode --method tools/call --tool-name start_episode \
            --tool-arg task_id=t001 "${server[@]}"
        if ! compgen -G "$work/stdio-logs/*/t001/trial0-*.jsonl" >/dev/null; then
            echo "FAIL  stdio start_episode: no episode log under the --log-dir" >&2
            failures=$((failures + 1))
        fi
    else
        start_http_server "$work/http-logs"
        echo "# taurec serve --transport http at $SERVER_URL (pid $SERVER_PID)" >&2
        http=(--transport http --server-url "$SERVER_URL")
        inspect http tools/list "${http[@]}" --method tools/list
        inspect http list_tasks "${http[@]}" --method tools/call --tool-name list_tasks
        inspect http start_episode "${http[@]}" --method tools/call --tool-name start_episode \
            --tool-arg task_id=t001
        stop_http_server
    fi
done

if ((failures)); then
    echo "$failures Inspector call(s) failed" >&2
    exit 1
fi
echo "all Inspector calls answered (${transports[*]})"
