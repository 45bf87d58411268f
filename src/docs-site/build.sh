#!/usr/bin/env bash
# Renders docs/ as a static HTML site (MkDocs, pinned in requirements.txt): menu, search that also works from disk,
# every link between pages checked (a broken one fails the build). One command:
#   bash src/docs-site/build.sh [OUT_DIR]        (default: target/docs-site; open OUT_DIR/index.html)
# MkDocs is installed once into a virtualenv in the build's cache (.ci/cache/docs-venv), from PyPI.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-$root/target/docs-site}"
cache="${SLUICE_CI_CACHE:-$root/.ci/cache}"
venv="$cache/docs-venv"
stamp="$venv/requirements.txt"
if ! cmp -s "$here/requirements.txt" "$stamp" 2>/dev/null; then
  # shellcheck source=../../.ci/lib.sh
  source "$root/.ci/lib.sh"
  python="$(pip_python)" || { echo "docs-site: no Python 3 with pip and venv (Debian: apt-get install python3-venv)" >&2; exit 1; }
  rm -rf "$venv"
  "$python" -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$here/requirements.txt"
  cp "$here/requirements.txt" "$stamp"
fi
rm -rf "$out"
"$venv/bin/mkdocs" build -q -f "$here/mkdocs.yml" -d "$out"
echo "docs site: $out/index.html"
