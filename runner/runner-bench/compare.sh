#!/usr/bin/env bash
# sluice compare against the floor (docs/benchmarks.md, "Compare").
#   bash runner/runner-bench/compare.sh [--rows 2000000] [--runs 3] [--degree 4] [--lineitem SCALE]
# Needs a PostgreSQL server it may create databases on (PGHOST, PGPORT, PGUSER; trust or PGPASSWORD) and psql.
# Creates sluice_cmp_src with bench.orders (id bigint primary key, customer int, amount numeric(12,2), placed date,
# note text; ROWS rows) and copies it with ./sluice into sluice_cmp_dst (untimed). Then, per run, alternating:
#   floor:    both servers hash their whole table at once (two psql sessions, count(*) and the sum of
#             hashtextextended(ROW(...)::text, 0), what compare's digests compute), the wall time until both end;
#   equal:    ./sluice compare on the equal tables (range on id, batch-size ROWS/8, DEGREE), exit 0 expected;
#   changed:  one row's note changed on the target, ./sluice compare, exit 5 and that key expected; changed back.
# --lineitem SCALE: TPC-H lineitem at that scale factor instead (lineitem-csv.sh: DuckDB's dbgen, cached;
# SF 10 is 60 M rows), keyed (l_orderkey, l_linenumber), range on l_orderkey; the changed row's l_comment.
# With pgcopydb (0.12 or later) on the PATH, also `pgcopydb compare data` on the same tables (it says equal or not per table).
# Whole commands timed (JVM start included). Prints each run and the medians with ratios against the floor.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
rows=2000000 runs=3 degree=4 lineitem=""
while [ $# -gt 0 ]; do
  case "$1" in
    --lineitem) lineitem="$2"; shift 2 ;;
    --rows) rows="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --degree) degree="$2"; shift 2 ;;
    *) sed -n '2,14p' "$0"; exit 2 ;;
  esac
done
host="${PGHOST:-localhost}" port="${PGPORT:-5432}" role="${PGUSER:-postgres}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
psql_() { psql -X -q -v ON_ERROR_STOP=1 -h "$host" -p "$port" -U "$role" "$@"; }
now() { date +%s.%N; }

for db in sluice_cmp_src sluice_cmp_dst; do
  psql_ -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
  psql_ -d "$db" -c "CREATE SCHEMA bench"
done
if [ -n "$lineitem" ]; then
  csv="$(bash "$root/runner/runner-bench/lineitem-csv.sh" "$lineitem")"
  table=bench.lineitem key=l_orderkey
  columns="l_orderkey, l_partkey, l_suppkey, l_linenumber, l_quantity, l_extendedprice, l_discount, l_tax,
    l_returnflag, l_linestatus, l_shipdate, l_commitdate, l_receiptdate, l_shipinstruct, l_shipmode, l_comment"
  psql_ -d sluice_cmp_src -c "CREATE TABLE bench.lineitem (l_orderkey bigint NOT NULL, l_partkey bigint NOT NULL,
    l_suppkey bigint NOT NULL, l_linenumber int NOT NULL, l_quantity numeric(15,2), l_extendedprice numeric(15,2),
    l_discount numeric(15,2), l_tax numeric(15,2), l_returnflag text, l_linestatus text, l_shipdate date,
    l_commitdate date, l_receiptdate date, l_shipinstruct text, l_shipmode text, l_comment text)"
  psql_ -d sluice_cmp_src -c "\\copy bench.lineitem FROM '$csv' WITH (FORMAT csv, DELIMITER '|')"
  psql_ -d sluice_cmp_src -c "ALTER TABLE bench.lineitem ADD PRIMARY KEY (l_orderkey, l_linenumber)" \
    -c "ANALYZE bench.lineitem"
  rows="$(psql_ -d sluice_cmp_src -Atc "SELECT count(*) FROM bench.lineitem")"
  top="$(psql_ -d sluice_cmp_src -Atc "SELECT max(l_orderkey) FROM bench.lineitem")"
else
  table=bench.orders key=id columns="id, customer, amount, placed, note"
  psql_ -d sluice_cmp_src <<SQL
CREATE TABLE bench.orders (id bigint PRIMARY KEY, customer int NOT NULL, amount numeric(12,2), placed date,
  note text);
INSERT INTO bench.orders SELECT g, g % 150000, (g % 100000) / 2.0, date '1992-01-01' + (g % 2400),
  repeat(md5(g::text), 2) FROM generate_series(1, $rows) g;
ANALYZE bench.orders;
SQL
  top=$rows
fi
echo "compare: $rows rows of $table on $host:$port (setup, untimed)" >&2
url() { echo "jdbc:postgresql://$host:$port/$1"; }
cat > "$work/compare.yaml" <<YAML
version: 1
name: compare-bench
connections:
  src: { type: postgres, url: "$(url sluice_cmp_src)", user: "$role" }
  dst: { type: postgres, url: "$(url sluice_cmp_dst)", user: "$role" }
streams:
  - name: orders
    source: { connection: src, table: $table }
    target: { connection: dst, table: $table, create: if-missing }
    distribution: { method: range, key: $key }
    batch-size: $(( rows / 8 ))
    degree: $degree
YAML
"$root/sluice" run "$work/compare.yaml" >/dev/null
hash_sql="SELECT count(*), sum(hashtextextended(ROW($columns)::text, 0)) FROM $table"

floor=() equal=() changed=() pgc=()
if command -v pgcopydb >/dev/null && ! pgcopydb help 2>&1 | grep -q "compare"; then
  echo "compare: pgcopydb $(pgcopydb --version 2>&1 | grep -o 'version [0-9][^ ]*' | head -1) has no compare command (pgcopydb 0.12 added it); left out" >&2
fi
for run in $(seq 1 "$runs"); do
  t0=$(now)
  psql_ -d sluice_cmp_src -Atc "$hash_sql" >/dev/null & a=$!
  psql_ -d sluice_cmp_dst -Atc "$hash_sql" >/dev/null & b=$!
  wait $a; wait $b
  t1=$(now); floor+=("$(echo "$t1 - $t0" | bc)")

  t0=$(now)
  "$root/sluice" compare "$work/compare.yaml" > "$work/equal.out" || { cat "$work/equal.out"; exit 1; }
  t1=$(now); equal+=("$(echo "$t1 - $t0" | bc)")

  if [ -n "$lineitem" ]; then
    k=$(psql_ -d sluice_cmp_dst -Atc "SELECT min(l_orderkey) FROM bench.lineitem WHERE l_orderkey >= $top / 3")
    where="l_orderkey = $k AND l_linenumber = 1" column=l_comment expected="changed l_orderkey=$k, l_linenumber=1 columns l_comment"
  else
    k=$(( rows / 3 )) where="id = $k" column=note expected="changed id=$k columns note"
  fi
  was=$(psql_ -d sluice_cmp_dst -Atc "SELECT $column FROM $table WHERE $where")
  psql_ -d sluice_cmp_dst -c "UPDATE $table SET $column = 'changed' WHERE $where"
  t0=$(now)
  set +e; "$root/sluice" compare "$work/compare.yaml" > "$work/changed.out"; status=$?; set -e
  t1=$(now); changed+=("$(echo "$t1 - $t0" | bc)")
  [ "$status" = 5 ] && grep -q "$expected" "$work/changed.out" \
    || { cat "$work/changed.out"; echo "compare: the changed row was not found (exit $status)" >&2; exit 1; }
  echo "UPDATE $table SET $column = :'was' WHERE $where" | psql_ -d sluice_cmp_dst -v was="$was"

  if command -v pgcopydb >/dev/null && pgcopydb help 2>&1 | grep -q "compare"; then
    t0=$(now)
    # as a user runs it: defaults, a work folder of its own each time; on the equal tables it must say so (exit 0)
    pgcopydb compare data --source "postgres://$role@$host:$port/sluice_cmp_src" \
      --target "postgres://$role@$host:$port/sluice_cmp_dst" --dir "$work/pgcopydb-$run" > "$work/pgcopydb.out" 2>&1 \
      || { tail -20 "$work/pgcopydb.out" >&2; echo "compare: pgcopydb compare data failed" >&2; exit 1; }
    t1=$(now); pgc+=("$(echo "$t1 - $t0" | bc)")
  fi
  echo "run $run: floor ${floor[-1]} s, compare equal ${equal[-1]} s, one changed row ${changed[-1]} s${pgc[*]:+, pgcopydb compare data ${pgc[-1]} s}"
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
mf=$(median "${floor[@]}") me=$(median "${equal[@]}") mc=$(median "${changed[@]}")
echo "medians of $runs: floor $mf s, compare equal $me s ($(echo "scale=2; $me / $mf" | bc)x the floor), one changed row $mc s ($(echo "scale=2; $mc / $me" | bc)x equal)"
if [ ${#pgc[@]} -gt 0 ]; then
  mp=$(median "${pgc[@]}")
  echo "pgcopydb compare data: $mp s (sluice compare equal / pgcopydb: $(echo "scale=2; $me / $mp" | bc)x)"
fi
