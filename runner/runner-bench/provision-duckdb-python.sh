#!/usr/bin/env bash
# A Python with DuckDB's own package at the version Sluice embeds (duckdb==1.5.5 from PyPI), for the benchmark's
# whole-process baselines: DuckDB started as a user starts it, outside the harness's JVM.
# Usage: bash runner/runner-bench/provision-duckdb-python.sh DIR   -> prints DIR/bin/python on success.
# Idempotent: an existing venv with the right version is reused.
set -euo pipefail
dir="${1:?usage: provision-duckdb-python.sh DIR}"
version="1.5.5"
python="$dir/bin/python"
if [ -x "$python" ] && [ "$("$python" -c 'import duckdb; print(duckdb.__version__)' 2>/dev/null)" = "$version" ]; then
  echo "$python"; exit 0
fi
command -v python3 >/dev/null || { echo "provision-duckdb-python: python3 is not installed" >&2; exit 1; }
rm -rf "$dir"
python3 -m venv "$dir" >&2 || { echo "provision-duckdb-python: python3 -m venv failed (Debian: apt-get install python3-venv)" >&2; exit 1; }
PIP_DISABLE_PIP_VERSION_CHECK=1 "$python" -m pip install --quiet --no-input --progress-bar off "duckdb==$version" >&2 \
  || { echo "provision-duckdb-python: pip could not install duckdb==$version" >&2; exit 1; }
echo "$python"
