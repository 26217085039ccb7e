#!/usr/bin/env bash
# mypy over the package as it installs (taurec.catalog, taurec.tasks, ...): the layers are
# linked under one taurec/ folder in a scratch directory, so that mypy resolves every
# `taurec.layer.module` import to its source instead of taking it as unknown (Any).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mypy=${MYPY:-$root/.venv/bin/mypy}
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir "$tree/taurec"
packages=()
for layer in catalog tasks policies server evaluator clients; do
    ln -s "$root/$layer" "$tree/taurec/$layer"
    packages+=(-p "taurec.$layer")
done
cd "$tree"
"$mypy" --config-file "$root/pyproject.toml" --cache-dir "$root/.mypy_cache" "${packages[@]}" "$@"
