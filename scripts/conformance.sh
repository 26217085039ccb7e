#!/usr/bin/env bash
# The MCP conformance suite against `taurec serve --transport http`.
#
#   scripts/conformance.sh                    # start a server on a free port, test it, stop it
#   scripts/conformance.sh --url URL          # test a server that is already running
#   scripts/conformance.sh --keep DIR         # keep the suite's per-scenario results in DIR
#
# Runs every server scenario of the pinned @modelcontextprotocol/conformance (the active
# suite and the pending one) and compares the failures with conformance/expected-failures.txt
# (scenarios that need the SDK's demo tools, resources and prompts, or optional
# capabilities the server does not offer). Exit code: 0 when exactly the expected scenarios
# failed; 1 on an unexpected failure or an unexpected pass; 3 when the suite cannot be
# installed here. Installs the suite (and a Node 22 if needed) into .tools/ on first use.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/tools.sh
source "$here/tools.sh"

url=""
keep=""
while (($#)); do
    case "$1" in
        --url) url="${2:?--url needs a value}" && shift 2 ;;
        --keep) keep="${2:?--keep needs a value}" && shift 2 ;;
        -h | --help)
            sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
            exit 0
            ;;
        *)
            echo "unknown argument: $1 (expected --url URL, --keep DIR)" >&2
            exit 2
            ;;
    esac
done

status=0
tools_setup || status=$?
if ((status)); then exit "$status"; fi

work="$(mktemp -d "${TMPDIR:-/tmp}/taurec-conformance.XXXXXX")"
# shellcheck disable=SC2317 # (run by the trap)
cleanup() {
    stop_http_server
    rm -rf "$work"
}
trap cleanup EXIT
results="${keep:-$work/results}"
if [[ -n $keep && -d $keep && -n "$(ls -A "$keep")" ]]; then
    echo "--keep $keep: the folder is not empty" >&2
    exit 2
fi
mkdir -p "$results"

if [[ -z $url ]]; then
    start_http_server "$work/logs"
    url="$SERVER_URL"
    echo "taurec serve --transport http at $url (pid $SERVER_PID)"
fi

conformance() { "$NODE" "$CONFORMANCE_JS" "$@"; }
conformance list --server >"$work/scenarios.txt"
echo "conformance $TOOLS_CONFORMANCE_VERSION: $(grep -c '^  - ' "$work/scenarios.txt") server scenarios against $url"
# Its own exit code only says that some scenario failed; the comparison below decides.
conformance server --url "$url" --suite all --output-dir "$results" >"$work/run.log" 2>&1 || true

status=0
"$(taurec_python)" "$here/conformance_compare.py" "$results" \
    "$TOOLS_ROOT/conformance/expected-failures.txt" --scenarios "$work/scenarios.txt" || status=$?
if ((status)); then
    echo "--- the suite's own output (summary) ---"
    sed -n '/=== SUMMARY ===/,$p' "$work/run.log"
    [[ -s "$work/logs/server.log" ]] && echo "--- server log ---" && tail -n 40 "$work/logs/server.log"
fi
exit "$status"
