#!/usr/bin/env bash
# Lakehouse tables into PostgreSQL (docs/benchmarks.md, "Iceberg and Delta tables"): TPC-H orders as an Iceberg
# table of 16 data files (written by pyiceberg) and as a Delta table of 16 (delta-rs), loaded by Sluice
# (iceberg:/delta:, degree 1, 2 and 4) and by DuckDB's own CREATE TABLE pg.orders AS SELECT * FROM
# iceberg_scan(...)/delta_scan(...) (postgres_scanner, a whole Python process, DuckDB's default threads and 1).
#   bash runner/runner-bench/lakehouse.sh [--scale 10] [--rounds 1] [--mode truncate|append]
# Needs python3 (DuckDB 1.5.5, pyiceberg and deltalake from PyPI, provisioned once) and a PostgreSQL server for the
# targets (PGHOST, PGPORT, PGUSER: may create databases; trust or PGPASSWORD). The tables are made once and kept
# under .ci/cache/bench-lake. Whole processes are timed (wall and peak RSS, /usr/bin/time); every target's row count
# and sums are compared with the source's.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
scale=10 rounds=1 mode=truncate
while [ $# -gt 0 ]; do
  case "$1" in
    --scale) scale="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --mode) mode="$2"; shift 2 ;;
    *) sed -n '2,10p' "$0"; exit 2 ;;
  esac
done
host="${PGHOST:-localhost}" port="${PGPORT:-5432}" role="${PGUSER:-postgres}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
psql_() { PGOPTIONS="-c client_min_messages=warning" psql -X -q -v ON_ERROR_STOP=1 -h "$host" -p "$port" -U "$role" "$@"; }
at() { psql_ -At "$@"; }

# --- setup (untimed) ---------------------------------------------------------------------------------------------
cache="$root/.ci/cache/bench-lake"
mkdir -p "$cache"
bash "$root/.ci/provision-duckdb-extensions.sh" tpch iceberg avro delta postgres_scanner >&2
python="$cache/python/bin/python"
if ! "$python" -c 'import duckdb, pyiceberg, deltalake' 2>/dev/null; then
  rm -rf "$cache/python"
  python3 -m venv "$cache/python" >&2
  PIP_DISABLE_PIP_VERSION_CHECK=1 "$python" -m pip install --quiet --no-input --progress-bar off duckdb==1.5.5 \
    'pyiceberg[sql-sqlite,pyarrow]==0.12.0' 'deltalake==1.6.6' >&2
fi
tables="$cache/orders-sf$scale"
if [ ! -f "$tables/done" ]; then
  echo "making TPC-H orders SF $scale as an Iceberg and a Delta table of 16 data files each (once)" >&2
  rm -rf "$tables"
  mkdir -p "$tables"
  "$python" - "$root/.ci/cache/duckdb-extensions" "$scale" "$tables" <<'PY' >&2
import os, sys, duckdb
from pyiceberg.catalog.sql import SqlCatalog
from deltalake import write_deltalake
extensions, scale, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
con = duckdb.connect(config={"extension_directory": extensions, "autoinstall_known_extensions": False})
con.execute("LOAD tpch")
catalog = SqlCatalog("bench", uri=f"sqlite:///{out}/catalog.db", warehouse=f"file://{out}/iceberg")
catalog.create_namespace("tpch")
table = None
for step in range(16):
    # dbgen's own chunks: step i of 16 children makes 1/16 of every table
    con.execute(f"CALL dbgen(sf = {scale}, children = 16, step = {step})")
    chunk = con.execute("SELECT * FROM orders").fetch_arrow_table()
    if table is None:
        table = catalog.create_table("tpch.orders", schema=chunk.schema)
    table.append(chunk)
    write_deltalake(f"{out}/delta/orders", chunk, mode="append")
    for t in ("customer", "lineitem", "nation", "orders", "part", "partsupp", "region", "supplier"):
        con.execute(f"DROP TABLE IF EXISTS {t}")
    print("chunk", step + 1, "of 16:", chunk.num_rows, "rows", flush=True)
print(table.metadata_location)
PY
  touch "$tables/done"
fi
iceberg="$tables/iceberg/tpch/orders"
delta="$tables/delta/orders"
sums() { # scan -> "count sum(o_orderkey) sum(o_totalprice) sum(length(o_comment))" through DuckDB
  "$python" - "$root/.ci/cache/duckdb-extensions" "$1" <<'PY'
import sys, duckdb
con = duckdb.connect(config={"extension_directory": sys.argv[1], "autoinstall_known_extensions": False})
print(*con.execute(f"SELECT count(*), sum(o_orderkey), sum(o_totalprice), sum(length(o_comment)) FROM {sys.argv[2]}")
      .fetchone())
PY
}
metadata="$(ls "$iceberg"/metadata/*.metadata.json | sort | tail -1)"
expected="$(sums "iceberg_scan('$metadata')")"
[ "$(sums "delta_scan('$delta')")" = "$expected" ] || { echo "lakehouse: the Delta table differs from the Iceberg one" >&2; exit 1; }
rows="${expected%% *}"

spec() { # kind path
  cat <<YAML
version: 1
name: lake-bench-$1
connections:
  lake: { type: duckdb, extension-directory: "$root/.ci/cache/duckdb-extensions" }
  pg: { type: postgres, url: "jdbc:postgresql://$host:$port/\${BENCH_DB}", user: "$role" }
streams:
  - name: orders
    source: { connection: lake, $1: "$2" }
    target: { connection: pg, table: public.orders, create: if-missing }
    degree: \${BENCH_DEGREE}
    load-mode: $mode
YAML
}
spec iceberg "$iceberg" > "$work/iceberg.yaml"
spec delta "$delta" > "$work/delta.yaml"
duck() { # scan threads db
  cat <<PY
import duckdb
config = {"extension_directory": "$root/.ci/cache/duckdb-extensions", "autoinstall_known_extensions": False}
if $2 > 0:
    config["threads"] = $2
con = duckdb.connect(config=config)
con.execute("LOAD postgres_scanner")
con.execute("ATTACH 'host=$host port=$port user=$role dbname=$3' AS pg (TYPE postgres)")
con.execute("CREATE TABLE pg.public.orders AS SELECT * FROM $1")
PY
}
fresh() { psql_ -d postgres -c "DROP DATABASE IF EXISTS $1 WITH (FORCE)" -c "CREATE DATABASE $1"; }
fresh lake_warm
BENCH_DB=lake_warm BENCH_DEGREE=1 "$root/sluice" plan "$work/iceberg.yaml" > "$work/warm.log" 2>&1 \
  || { tail -20 "$work/warm.log" >&2; exit 1; } # builds when needed, fills the AOT cache

timed() { # name database command...
  local name="$1" db="$2"; shift 2
  fresh "$db"
  /usr/bin/time -o "$work/t" -f "%e %M" "$@" > "$work/$name.log" 2>&1 || { tail -20 "$work/$name.log" >&2; exit 1; }
  local target
  target="$(at -d "$db" -c "SELECT count(*) || ' ' || sum(o_orderkey) || ' ' || sum(o_totalprice) || ' ' ||
    sum(length(o_comment)) FROM public.orders")"
  [ "$target" = "$expected" ] || { echo "lakehouse: $name loaded $target, the table holds $expected" >&2; exit 1; }
  read -r secs kb < "$work/t"
  echo "$name $secs $((kb / 1024))" >> "$work/results.txt"
  printf "  %-24s %7.1f s  %5d MB peak RSS\n" "$name" "$secs" "$((kb / 1024))"
}
: > "$work/results.txt"
for round in $(seq 1 "$rounds"); do
  echo "round $round of $rounds ($rows rows)"
  for kind in iceberg delta; do
    if [ "$kind" = iceberg ]; then scan="iceberg_scan('$metadata')"; else scan="delta_scan('$delta')"; fi
    for d in 1 2 4; do
      timed "sluice-$kind-degree$d" "lake_s$d" env BENCH_DB="lake_s$d" BENCH_DEGREE="$d" "$root/sluice" run "$work/$kind.yaml"
    done
    duck "$scan" 0 lake_duck > "$work/duck.py"
    timed "duckdb-$kind-default" lake_duck "$python" "$work/duck.py"
    duck "$scan" 1 lake_duck1 > "$work/duck1.py"
    timed "duckdb-$kind-threads1" lake_duck1 "$python" "$work/duck1.py"
  done
done

echo
echo "TPC-H orders SF $scale ($rows rows, 16 data files) into PostgreSQL $(at -d postgres -c 'SHOW server_version')," \
  "Sluice load-mode $mode; medians of $rounds; every target equals the table"
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
for kind in iceberg delta; do
  for name in sluice-$kind-degree1 sluice-$kind-degree2 sluice-$kind-degree4 duckdb-$kind-default duckdb-$kind-threads1; do
    secs="$(awk -v n="$name" '$1 == n { print $2 }' "$work/results.txt" | median)"
    rss="$(awk -v n="$name" '$1 == n { print $3 }' "$work/results.txt" | median)"
    printf "%-24s %7.1f s  %9.0f rows/s  %5d MB\n" "$name" "$secs" "$(echo "$rows / $secs" | bc -l)" "$rss"
    eval "t_${name//-/_}=$secs"
  done
  d1="t_sluice_${kind}_degree1" d2="t_sluice_${kind}_degree2" dd="t_duckdb_${kind}_default"
  printf "%s: Sluice degree 1 against DuckDB (default threads): %.2fx (bar 1.0x); degree 2 against degree 1: %.2fx (bar 1.2x)\n" \
    "$kind" "$(echo "${!dd} / ${!d1}" | bc -l)" "$(echo "${!d1} / ${!d2}" | bc -l)"
done
