#!/usr/bin/env bash
# What rejects: costs (docs/benchmarks.md, "Bad rows"): the same DuckDB-made feed loaded into an embedded PostgreSQL
# 18 with and without rejects:, and with bad rows of the two kinds mixed in.
#   bash runner/runner-bench/bad-rows.sh [--rows 10000000] [--runs 3] [--degree 2]
# Variants, run alternating, each timed whole (./sluice run, JVM and server start included, as a user runs it):
#   clean           no rejects:, no bad row (today's load)
#   rejects-clean   rejects: set, no bad row
#   client-0.1%     rejects:, one row in 1,000 with a name too long for varchar(12) (found by the reader)
#   server-0.1%     rejects:, one row in 1,000 with a negative qty (CHECK, found by the server)
#   mixed-0.1%      rejects:, one in 1,000 of each kind, alternating
#   ten-bad         rejects:, 10 rows in the whole feed, half of each kind
# Prints each run, the medians and each variant's ratio to clean. Needs nothing but a JDK (./sluice finds one).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
rows=10000000 runs=3 degree=2
while [ $# -gt 0 ]; do
  case "$1" in
    --rows) rows="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --degree) degree="$2"; shift 2 ;;
    *) sed -n '2,12p' "$0"; exit 2 ;;
  esac
done
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cat > "$work/target.sql" <<'SQL'
CREATE TABLE IF NOT EXISTS public.orders (id bigint, name varchar(12), amount numeric(10,2),
    qty integer NOT NULL CHECK (qty >= 0), ordered_on date);
CREATE TABLE IF NOT EXISTS public.orders_rejects (run_id text NOT NULL, stream text NOT NULL,
    partition_id text NOT NULL, row_number bigint, row_data jsonb, raw_fields jsonb, column_name text,
    error_code text NOT NULL, error_message text NOT NULL, rejected_at timestamptz NOT NULL DEFAULT now());
SQL
# Every variant reads the same query; only the remainders that make a row bad differ (-1: none is).
# name: too long where i % $1 = $2; qty: negative where i % $3 = $4
feed() {
  echo "select i::bigint as id, case when i % $1 = $2 then 'a name much too long' else 'order ' || (i % 100000) end \
as name, ((i % 99999) / 100.0)::decimal(10,2) as amount, case when i % $3 = $4 then -1 else i % 50 end as qty, \
date '2026-01-01' + (i % 300)::int as ordered_on from range(1, $((rows + 1))) t(i)"
}
spec() { # name, query, rejects line
  cat > "$work/$1.yaml" <<YAML
version: 1
name: bad-rows-bench
connections:
  feed: { type: duckdb }
  dst: { type: postgres, embedded: bad_rows_bench, init-script: $work/target.sql }
streams:
  - name: orders
    source: { connection: feed, query: "$2" }
    target: { connection: dst, table: public.orders }
    distribution: { method: modulo, key: id }
    degree: $degree
    load-mode: truncate
    before: "TRUNCATE public.orders_rejects"
$3
YAML
}
every=1000
five=$((rows / 5))
spec clean "$(feed $every -1 $every -1)" ""
spec rejects-clean "$(feed $every -1 $every -1)" "    rejects: { table: public.orders_rejects }"
spec client-0.1% "$(feed $every 1 $every -1)" "    rejects: { table: public.orders_rejects }"
spec server-0.1% "$(feed $every -1 $every 1)" "    rejects: { table: public.orders_rejects }"
spec mixed-0.1% "$(feed $((2 * every)) 1 $((2 * every)) $((every + 1)))" "    rejects: { table: public.orders_rejects }"
spec ten-bad "$(feed $five 7 $five 8)" "    rejects: { table: public.orders_rejects }"
variants="clean rejects-clean client-0.1% server-0.1% mixed-0.1% ten-bad"
state="$work/state"
echo "bad-rows: $rows rows, degree $degree, $runs run(s) of: $variants" >&2
"$root/sluice" run "$work/clean.yaml" --state-dir "$state" >/dev/null 2>&1 # warm-up: builds, starts, creates
for run in $(seq 1 "$runs"); do
  for v in $variants; do
    start=$(date +%s.%N)
    "$root/sluice" run "$work/$v.yaml" --state-dir "$state" > "$work/$v-$run.log" 2>&1 \
      || { echo "bad-rows: $v failed:" >&2; tail -20 "$work/$v-$run.log" >&2; exit 1; }
    end=$(date +%s.%N)
    seconds=$(echo "$end - $start" | bc)
    aside=$( { grep -o '[0-9,]* rows set aside' "$work/$v-$run.log" || true; } | head -1 | tr -d ',' | cut -d' ' -f1)
    echo "run $run  $v  ${seconds}s  set aside: ${aside:-0}"
    echo "$v $seconds" >> "$work/times"
  done
done
median() { grep "^$1 " "$work/times" | cut -d' ' -f2 | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
base=$(median clean)
echo "medians (ratio to clean):"
for v in $variants; do
  m=$(median "$v")
  printf '  %-14s %8.2fs  %.3f\n' "$v" "$m" "$(echo "$m / $base" | bc -l)"
done
