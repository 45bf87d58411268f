#!/usr/bin/env bash
# Memory with huge values (docs/benchmarks.md, "Huge values"):
#   bash runner/runner-bench/huge-values.sh [--mb 360] [--rows 3] [--degree 2] [--runs 1] [--heap 256m] [--keep]
# Needs a PostgreSQL server it may create databases on (PGHOST, PGPORT, PGUSER; trust or PGPASSWORD). Creates
# sluice_huge_src with one table of N rows, each holding a text of --mb MiB (random hex, so neither side's
# compression hides it), then per run copies it into an empty sluice_huge_dst at --degree (modulo on the key: --degree
# partitions) and times the whole process by /usr/bin/time (wall, client CPU, peak RSS); the target's rows are
# checked equal by md5. Then the same copy under SLUICE_JAVA_OPTS=-Xmx<--heap>: without rejects: it must pass in
# that heap; with rejects: (which keeps a row whole to send it again) it is timed under the default heap, and under
# --heap it must fail with the heap error (PG244) and commit nothing.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
mb=360 rows=3 degree=2 runs=1 heap=256m keep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --mb) mb="$2"; shift 2 ;;
    --rows) rows="$2"; shift 2 ;;
    --degree) degree="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --heap) heap="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    *) sed -n '2,10p' "$0"; exit 2 ;;
  esac
done
host="${PGHOST:-localhost}" port="${PGPORT:-5432}" role="${PGUSER:-postgres}"
work="$(mktemp -d)"
[ -n "$keep" ] && echo "huge-values: keeping $work" >&2 || trap 'rm -rf "$work"' EXIT
psql_() { psql -X -q -v ON_ERROR_STOP=1 -h "$host" -p "$port" -U "$role" "$@"; }

echo "huge-values: $rows rows of $mb MiB on $host:$port (setup, untimed)" >&2
psql_ -d postgres -c "DROP DATABASE IF EXISTS sluice_huge_src" -c "CREATE DATABASE sluice_huge_src"
psql_ -d sluice_huge_src -c "CREATE TABLE big (id int PRIMARY KEY, body text)" \
  -c "ALTER TABLE big ALTER COLUMN body SET STORAGE EXTERNAL"
# md5 hex of a counter, 32 characters a call: 360 MiB is 11.8 M calls per row, built in SQL on the server.
for ((i = 1; i <= rows; i++)); do
  psql_ -d sluice_huge_src -c "INSERT INTO big SELECT $i, string_agg(md5(($i * 100000000 + g)::text), '')
    FROM generate_series(1, ($mb::bigint << 20) / 32) g"
done
want=$(psql_ -d sluice_huge_src -At -c "SELECT string_agg(id || ':' || md5(body), ',' ORDER BY id) FROM big")
url="jdbc:postgresql://$host:$port"
spec() { # $1 file, $2 an extra stream line
  cat > "$1" <<EOF
version: 1
name: huge-values
connections:
  src: { type: postgres, url: "$url/sluice_huge_src", user: "$role" }
  dst: { type: postgres, url: "$url/sluice_huge_dst", user: "$role" }
streams:
  - name: big
    source: { connection: src, table: public.big }
    target: { connection: dst, table: public.big, create: if-missing }
    distribution: { method: modulo, key: id }
    degree: $degree
    load-mode: append
$2
EOF
}
spec "$work/huge.yaml" ""
spec "$work/huge-rejects.yaml" "    rejects: { table: public.big_rejects }"
fresh_target() {
  psql_ -d postgres -c "DROP DATABASE IF EXISTS sluice_huge_dst" -c "CREATE DATABASE sluice_huge_dst"
}
check_target() {
  got=$(psql_ -d sluice_huge_dst -At -c "SELECT string_agg(id || ':' || md5(body), ',' ORDER BY id) FROM big")
  [ "$got" = "$want" ] || { echo "the target's rows differ from the source's: $got" >&2; exit 1; }
}
# timed LABEL SPEC [JAVA_OPTS]: one run into an empty target, timed whole, its rows checked
timed() {
  local opts=()
  [ -z "${3:-}" ] || opts=(SLUICE_JAVA_OPTS="$3")
  fresh_target
  /usr/bin/time -o "$work/t" -f "%e %U %S %M" env ${opts[@]+"${opts[@]}"} "$root/sluice" run "$2" \
    > "$work/run.txt" 2>&1 || { tail -5 "$work/run.txt" >&2; exit 1; }
  read -r wall user sys rss < "$work/t"
  check_target
  echo "$1: wall $wall s cpu $(echo "$user + $sys" | bc) s peak-rss $((rss / 1024)) MB, rows equal"
}
fresh_target
"$root/sluice" plan "$work/huge.yaml" >/dev/null # builds the jar if needed and records the start-up cache
for run in $(seq 1 "$runs"); do
  timed "run $run degree $degree default heap" "$work/huge.yaml"
done
timed "-Xmx$heap" "$work/huge.yaml" "-Xmx$heap"
timed "with rejects, default heap" "$work/huge-rejects.yaml"
fresh_target
set +e
env SLUICE_JAVA_OPTS="-Xmx$heap" "$root/sluice" run "$work/huge-rejects.yaml" > "$work/rejects.txt" 2>&1
code=$?
set -e
left=$(psql_ -d sluice_huge_dst -At -c "SELECT CASE WHEN to_regclass('public.big') IS NULL THEN 0
  ELSE (SELECT count(*) FROM big) END")
echo "-Xmx$heap with rejects: exit $code, $left rows committed; the error:"
grep -E "error\[|fix:" "$work/rejects.txt" | head -4 | sed 's/^/  /'
