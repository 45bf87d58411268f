#!/usr/bin/env bash
# Ten thousand tiny tables copied into an empty database with their definitions (docs/benchmarks.md, "A thousand
# tables", 10,000 tables):
#   bash runner/runner-bench/ten-thousand-tables.sh [--tables 10000] [--runs 1] [--keep]
# Needs a PostgreSQL server it may create databases on (PGHOST, PGPORT, PGUSER; trust or PGPASSWORD) whose
# max_locks_per_transaction lets one transaction lock every table (the run's snapshot does; Sluice refuses with PG223
# and the value to set otherwise). Creates sluice_big_src with N tables (5 columns, a primary key; one in ten holds
# 10 rows), then per run: drops and creates an empty sluice_big_dst (untimed), times `sluice plan` and `sluice run`
# of one pattern stream (`create: if-missing`, full definitions, max-parallel-streams 4), each whole by
# /usr/bin/time (wall, client user + system CPU, peak RSS), checks the target (every table there with its primary
# key, every row), and prints the figures with the summary JSON's and the HTML report's sizes and the ledger's rows.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
tables=10000 runs=1 keep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --tables) tables="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    *) sed -n '2,11p' "$0"; exit 2 ;;
  esac
done
host="${PGHOST:-localhost}" port="${PGPORT:-5432}" role="${PGUSER:-postgres}"
work="$(mktemp -d)"
[ -n "$keep" ] && echo "ten-thousand-tables: keeping $work" >&2 || trap 'rm -rf "$work"' EXIT
psql_() { psql -X -q -v ON_ERROR_STOP=1 -h "$host" -p "$port" -U "$role" "$@"; }

echo "ten-thousand-tables: $tables tables on $host:$port (setup, untimed)" >&2
psql_ -d postgres -c "DROP DATABASE IF EXISTS sluice_big_src" -c "CREATE DATABASE sluice_big_src"
# In chunks: one transaction creating every table needs a lock slot per table.
for ((from = 1; from <= tables; from += 1000)); do
  to=$((from + 999 < tables ? from + 999 : tables))
  psql_ -d sluice_big_src -c "DO \$\$ BEGIN FOR i IN $from..$to LOOP
    EXECUTE format('CREATE TABLE public.t%s (id bigint PRIMARY KEY, a int, b text, c numeric(10,2), d date)',
      lpad(i::text, 6, '0'));
    IF i % 10 = 0 THEN EXECUTE format('INSERT INTO public.t%s SELECT g, g %% 7, ''row '' || g, g / 3.0,
      date ''2024-01-01'' + g FROM generate_series(1, 10) g', lpad(i::text, 6, '0')); END IF; END LOOP; END \$\$"
done
psql_ -d sluice_big_src -c "VACUUM ANALYZE"
url="jdbc:postgresql://$host:$port"
cat > "$work/ten-thousand.yaml" <<EOF
version: 1
name: ten-thousand-tables
connections:
  src: { type: postgres, url: "$url/sluice_big_src", user: "$role" }
  dst: { type: postgres, url: "$url/sluice_big_dst", user: "$role" }
streams:
  - name: all
    source: { connection: src, table: "public.*" }
    target: { connection: dst, table: "public.{table}", create: if-missing }
    distribution: { method: none }
    degree: 1
    load-mode: truncate
max-parallel-streams: 4
EOF
fresh_target() {
  psql_ -d postgres -c "DROP DATABASE IF EXISTS sluice_big_dst" -c "CREATE DATABASE sluice_big_dst"
}
# Builds the jar if needed and makes the JVM's start-up cache (a plan records it), untimed, as for a user's runs.
fresh_target
"$root/sluice" plan "$work/ten-thousand.yaml" >/dev/null
for run in $(seq 1 "$runs"); do
  fresh_target
  /usr/bin/time -o "$work/t" -f "%e %U %S %M" "$root/sluice" plan "$work/ten-thousand.yaml" > "$work/plan.txt" 2>&1 \
    || { tail -5 "$work/plan.txt" >&2; exit 1; }
  read -r wall user sys rss < "$work/t"
  echo "run $run plan wall $wall s cpu $(echo "$user + $sys" | bc) s peak-rss $((rss / 1024)) MB"
  /usr/bin/time -o "$work/t" -f "%e %U %S %M" "$root/sluice" run "$work/ten-thousand.yaml" \
    --summary-json "$work/summary.json" --report "$work/report.html" > "$work/run.txt" 2>&1 \
    || { tail -5 "$work/run.txt" >&2; exit 1; }
  read -r wall user sys rss < "$work/t"
  made=$(psql_ -d sluice_big_dst -At -c "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND c.relkind = 'r' AND EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conrelid = c.oid
    AND k.contype = 'p')")
  rows=$(psql_ -d sluice_big_dst -At -c "SELECT sum((xpath('/row/n/text()', query_to_xml('SELECT count(*) AS n FROM '
    || quote_ident(tablename), false, true, '')))[1]::text::bigint) FROM pg_tables WHERE schemaname = 'public'")
  [ "$made" = "$tables" ] && [ "$rows" = "$(( tables / 10 * 10 ))" ] \
    || { echo "the target holds $made tables with a primary key and $rows rows" >&2; exit 1; }
  ledger=$(psql_ -d sluice_big_dst -At -c "SELECT (SELECT count(*) FROM sluice.run_streams) || ' streams, '
    || (SELECT count(*) FROM sluice.run_partitions) || ' partitions, ' || (SELECT count(*) FROM sluice.run_marks)
    || ' marks, ' || pg_size_pretty((SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace n
    ON n.oid = c.relnamespace WHERE n.nspname = 'sluice'))")
  echo "run $run run  wall $wall s cpu $(echo "$user + $sys" | bc) s peak-rss $((rss / 1024)) MB," \
    "summary $(du -k "$work/summary.json" | cut -f1) kB, report $(du -k "$work/report.html" | cut -f1) kB," \
    "ledger $ledger; target: $made tables with their primary key, $rows rows"
done
