#!/usr/bin/env bash
# Refreshes the vendored dagre (graph layout for the query page's plan
# graph) from npm: bash server/webui/static/refresh-dagre.sh [version].
# The file is embedded in the binary (go:embed); nothing is fetched at run time.
set -euo pipefail
version=${1:-3.1.3}
dest=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "@dagrejs/dagre@$version" >/dev/null && tar xzf dagrejs-dagre-*.tgz)
# Without the source map line: the map is not vendored.
sed '/^\/\/# sourceMappingURL=/d' "$tmp/package/dist/dagre.min.js" >"$dest/dagre.min.js"
cp "$tmp/package/dist/dagre.min.js.LEGAL.txt" "$dest/dagre.min.js.LEGAL.txt"
cp "$tmp/package/LICENSE" "$dest/dagre.LICENSE"
sed -i "s/^version: .*/version: $version/" "$dest/VENDOR.md"
