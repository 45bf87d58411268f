#!/usr/bin/env bash
# TPC-H lineitem at a scale factor as a '|'-delimited CSV without header, made once with DuckDB's dbgen (the tpch
# extension provisioned offline) and kept under .ci/cache/bench-tpch; prints the file's path.
#   bash runner/runner-bench/lineitem-csv.sh SCALE
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
scale="${1:?usage: lineitem-csv.sh SCALE}"
cache="$root/.ci/cache/bench-tpch"
mkdir -p "$cache"
csv="$cache/lineitem-sf$scale.csv"
if [ ! -f "$csv" ]; then
  bash "$root/.ci/provision-duckdb-extensions.sh" tpch >&2
  python="$(bash "$root/runner/runner-bench/provision-duckdb-python.sh" "$cache/python")"
  echo "generating lineitem SF $scale with DuckDB's dbgen (once)" >&2
  "$python" - "$root/.ci/cache/duckdb-extensions" "$scale" "$csv" <<'PY'
import sys, duckdb
con = duckdb.connect(config={"extension_directory": sys.argv[1], "autoinstall_known_extensions": False})
con.execute("LOAD tpch")
con.execute(f"CALL dbgen(sf = {sys.argv[2]})")
con.execute(f"COPY lineitem TO '{sys.argv[3]}.tmp' (FORMAT csv, HEADER false, DELIMITER '|')")
PY
  mv "$csv.tmp" "$csv"
fi
echo "$csv"
