#!/usr/bin/env bash
# Renders docs/ as a static HTML site (MkDocs, pinned in requirements.txt): menu, search that also works from disk,
# every link between pages checked (a broken one fails the build). One command:
#   bash src/docs-site/build.sh [OUT_DIR]        (default: target/docs-site; open OUT_DIR/index.html)
# MkDocs is installed once into the build's cache (.ci/cache/docs-site-python, pip --target: no venv module needed),
# from PyPI.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-$root/target/docs-site}"
cache="${SLUICE_CI_CACHE:-$root/.ci/cache}"
packages="$cache/docs-site-python"
stamp="$packages/requirements.txt"
# shellcheck source=../../.ci/lib.sh
source "$root/.ci/lib.sh"
python="$(pip_python)" || { echo "docs-site: no Python 3 with pip (Debian: apt-get install python3-pip)" >&2; exit 1; }
if ! cmp -s "$here/requirements.txt" "$stamp" 2>/dev/null; then
  rm -rf "$packages"
  # every package pinned, so --no-deps: nothing else resolved, and no complaint about the system's own packages
  "$python" -m pip install -q --disable-pip-version-check --no-warn-script-location --root-user-action=ignore \
    --no-deps --target "$packages" \
    -r "$here/requirements.txt"
  cp "$here/requirements.txt" "$stamp"
fi
rm -rf "$out"
# the sitemap's dates from the commit, not the clock: the same docs give the same site
SOURCE_DATE_EPOCH="$(git -C "$root" log -1 --format=%ct 2>/dev/null || echo 0)" PYTHONPATH="$packages" "$python" -m mkdocs build -q -f "$here/mkdocs.yml" -d "$out"
echo "docs site: $out/index.html"
