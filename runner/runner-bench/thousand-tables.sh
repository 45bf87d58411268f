#!/usr/bin/env bash
# Many small tables: Sluice's per-table cost against pgcopydb's (docs/benchmarks.md, "A thousand tables").
#   bash runner/runner-bench/thousand-tables.sh [--tables 1000] [--rows 100] [--runs 3] [--jobs "1 4"]
# Needs a PostgreSQL server it may create databases on (PGHOST, PGPORT, PGUSER; trust or PGPASSWORD) and pgcopydb on
# the PATH. Creates databases sluice_many_src and sluice_many_dst with N tables of R rows (5 columns, a primary key),
# then, per run and per jobs count J, alternating: empties the target (untimed), runs ./sluice with one pattern
# stream (load-mode truncate, degree 1, max-parallel-streams J), empties it again, runs
# `pgcopydb copy table-data --table-jobs J`; each timed whole by /usr/bin/time (wall, user + sys CPU of the client,
# JVM start included, as a user runs it). Prints each run and the medians with Sluice/pgcopydb ratios.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
tables=1000 rows=100 runs=3 jobs="1 4"
while [ $# -gt 0 ]; do
  case "$1" in
    --tables) tables="$2"; shift 2 ;;
    --rows) rows="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    *) sed -n '2,9p' "$0"; exit 2 ;;
  esac
done
command -v pgcopydb >/dev/null || { echo "thousand-tables: pgcopydb is not on the PATH" >&2; exit 2; }
host="${PGHOST:-localhost}" port="${PGPORT:-5432}" role="${PGUSER:-postgres}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
psql_() { psql -X -q -v ON_ERROR_STOP=1 -h "$host" -p "$port" -U "$role" "$@"; }

echo "thousand-tables: $tables tables of $rows rows on $host:$port (setup, untimed)" >&2
for db in sluice_many_src sluice_many_dst; do
  psql_ -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
done
create="CREATE TABLE public.t%s (id bigint PRIMARY KEY, a int, b text, c numeric(10,2), d date)"
psql_ -d sluice_many_src -c "DO \$\$ BEGIN FOR i IN 1..$tables LOOP
  EXECUTE format('$create', lpad(i::text, 6, '0'));
  EXECUTE format('INSERT INTO public.t%s SELECT g, g %% 7, ''row '' || g, g / 3.0, date ''2024-01-01'' + g
    FROM generate_series(1, $rows) g', lpad(i::text, 6, '0')); END LOOP; END \$\$" -c "VACUUM ANALYZE"
psql_ -d sluice_many_dst -c "DO \$\$ BEGIN FOR i IN 1..$tables LOOP
  EXECUTE format('$create', lpad(i::text, 6, '0')); END LOOP; END \$\$"
empty_target() {
  psql_ -d sluice_many_dst -c "DO \$\$ DECLARE r record; BEGIN FOR r IN SELECT tablename FROM pg_tables
    WHERE schemaname = 'public' LOOP EXECUTE 'TRUNCATE public.' || quote_ident(r.tablename); END LOOP; END \$\$"
}
rows_in_target() {
  psql_ -d sluice_many_dst -At -c "SELECT sum((xpath('/row/n/text()', query_to_xml('SELECT count(*) AS n FROM '
    || quote_ident(tablename), false, true, '')))[1]::text::bigint) FROM pg_tables WHERE schemaname = 'public'"
}
url="jdbc:postgresql://$host:$port"
for j in $jobs; do
  cat > "$work/many-$j.yaml" <<EOF
version: 1
name: thousand-tables-$j
connections:
  src: { type: postgres, url: "$url/sluice_many_src", user: "$role" }
  dst: { type: postgres, url: "$url/sluice_many_dst", user: "$role" }
streams:
  - name: all
    source: { connection: src, table: "public.*" }
    target: { connection: dst, table: "public.{table}" }
    distribution: { method: none }
    degree: 1
    load-mode: truncate
max-parallel-streams: $j
EOF
done
# Builds the jar first if needed and makes the JVM's start-up cache (a plan records it), untimed, as for a user's runs.
"$root/sluice" plan "$work/many-${jobs%% *}.yaml" >/dev/null
pg_uri="postgres://$role@$host:$port"
results="$work/results.txt"
for run in $(seq 1 "$runs"); do
  for j in $jobs; do
    empty_target
    /usr/bin/time -o "$work/t" -f "%e %U %S" "$root/sluice" run "$work/many-$j.yaml" > "$work/sluice.log" 2>&1 \
      || { tail -5 "$work/sluice.log" >&2; exit 1; }
    [ "$(rows_in_target)" = "$((tables * rows))" ] || { echo "sluice left the target incomplete" >&2; exit 1; }
    read -r wall cpu_user cpu_sys < "$work/t"
    echo "run $run sluice-mps$j wall $wall cpu $(echo "$cpu_user + $cpu_sys" | bc)" | tee -a "$results"
    empty_target
    rm -rf "$work/pgcopydb"
    /usr/bin/time -o "$work/t" -f "%e %U %S" pgcopydb copy table-data --source "$pg_uri/sluice_many_src" \
      --target "$pg_uri/sluice_many_dst" --table-jobs "$j" --dir "$work/pgcopydb" > "$work/pgcopydb.log" 2>&1 \
      || { tail -5 "$work/pgcopydb.log" >&2; exit 1; }
    [ "$(rows_in_target)" = "$((tables * rows))" ] || { echo "pgcopydb left the target incomplete" >&2; exit 1; }
    read -r wall cpu_user cpu_sys < "$work/t"
    echo "run $run pgcopydb-jobs$j wall $wall cpu $(echo "$cpu_user + $cpu_sys" | bc)" | tee -a "$results"
  done
done
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
echo "medians of $runs runs, $tables tables of $rows rows:"
for j in $jobs; do
  sw=$(awk -v k="sluice-mps$j" '$3 == k {print $5}' "$results" | median)
  sc=$(awk -v k="sluice-mps$j" '$3 == k {print $7}' "$results" | median)
  pw=$(awk -v k="pgcopydb-jobs$j" '$3 == k {print $5}' "$results" | median)
  pc=$(awk -v k="pgcopydb-jobs$j" '$3 == k {print $7}' "$results" | median)
  printf '  %s jobs: sluice wall %.2f s cpu %.2f s | pgcopydb wall %.2f s cpu %.2f s | wall %.2fx cpu %.2fx\n' \
    "$j" "$sw" "$sc" "$pw" "$pc" "$(echo "$sw / $pw" | bc -l)" "$(echo "$sc / $pc" | bc -l)"
done
