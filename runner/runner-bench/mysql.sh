#!/usr/bin/env bash
# MySQL/MariaDB into PostgreSQL (docs/benchmarks.md, "MySQL and MariaDB"): TPC-H lineitem in MariaDB copied into
# PostgreSQL by Sluice (type: mysql, degree 1 and 2), pgloader (Debian's package, as its users run it: defaults, then
# more workers), and DuckDB's mysql_scanner (INSERT INTO pg.lineitem SELECT * FROM my.lineitem, a whole Python
# process, threads 1, 2, 4); the ingest limit (server-side COPY of the same rows from a file) beside them.
#   bash runner/runner-bench/mysql.sh [--scale 1] [--rounds 3] [--profile]
# --profile: one more Sluice run at degree 1 under Java Flight Recorder, then where its allocations and CPU went
# (jfr view allocation-by-site, hot-methods), to see what the encoders allocate per value beside the driver.
# Needs MariaDB's server binaries (apt-get install mariadb-server: the script starts its own mariadbd on a free port),
# pgloader (apt-get install pgloader), python3 (DuckDB from PyPI, provisioned), and a PostgreSQL server for the
# targets (PGHOST, PGPORT, PGUSER: may create databases; trust or PGPASSWORD) whose data directory it may COPY from
# (the ingest limit reads a file on the server's machine: run it there).
# Each tool loads into a fresh database; whole processes are timed (wall and peak RSS, /usr/bin/time), rounds in turn,
# medians printed; every target's row count and checksum is compared with the source's.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
scale=1 rounds=3 profile=0
while [ $# -gt 0 ]; do
  case "$1" in
    --scale) scale="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --profile) profile=1; shift ;;
    *) sed -n '2,13p' "$0"; exit 2 ;;
  esac
done
host="${PGHOST:-localhost}" port="${PGPORT:-5432}" role="${PGUSER:-postgres}"
command -v pgloader >/dev/null || { echo "mysql: pgloader is not installed (apt-get install pgloader)" >&2; exit 2; }
[ -x /usr/sbin/mariadbd ] || { echo "mysql: mariadbd is not installed (apt-get install mariadb-server)" >&2; exit 2; }
work="$(mktemp -d)"
chmod 755 "$work"
mariadbd_pid=""
cleanup() {
  [ -n "$mariadbd_pid" ] && kill "$mariadbd_pid" 2>/dev/null && wait "$mariadbd_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
psql_() { PGOPTIONS="-c client_min_messages=warning" psql -X -q -v ON_ERROR_STOP=1 -h "$host" -p "$port" -U "$role" "$@"; }
at() { psql_ -At "$@"; }

# --- setup (untimed) ---------------------------------------------------------------------------------------------
cache="$root/.ci/cache/bench-mysql"
mkdir -p "$cache"
csv="$(bash "$root/runner/runner-bench/lineitem-csv.sh" "$scale")"
bash "$root/.ci/provision-duckdb-extensions.sh" mysql_scanner postgres_scanner >&2
python="$(bash "$root/runner/runner-bench/provision-duckdb-python.sh" "$cache/python")"

source "$root/runner/runner-bench/mariadb-lineitem.sh"
sum="$(my -N bench -e "SELECT CONCAT(count(*), ' ', sum(l_orderkey), ' ', sum(l_extendedprice), ' ',
  sum(CHAR_LENGTH(l_comment))) FROM lineitem")"

cat > "$work/sluice.yaml" <<EOF
version: 1
name: mysql-bench
connections:
  my: { type: mysql, url: "jdbc:mariadb://127.0.0.1:$myport/bench", user: bench, password: "\${file:$work/pw}" }
  pg: { type: postgres, url: "jdbc:postgresql://$host:$port/\${BENCH_DB}", user: "$role" }
streams:
  - name: lineitem
    source: { connection: my, table: lineitem }
    target: { connection: pg, table: public.lineitem, create: if-missing }
    distribution: { method: range, key: l_orderkey }
    degree: \${BENCH_DEGREE}
    load-mode: truncate
EOF
printf bench > "$work/pw"
served="/tmp/sluice-bench-lineitem-sf$scale.csv" # where the server's own user may read it
[ -f "$served" ] || { cp "$csv" "$served.tmp" && chmod 644 "$served.tmp" && mv "$served.tmp" "$served"; }
fresh() { psql_ -d postgres -c "DROP DATABASE IF EXISTS $1 WITH (FORCE)" -c "CREATE DATABASE $1"; }
fresh sluice_my_warm
BENCH_DB=sluice_my_warm BENCH_DEGREE=1 "$root/sluice" plan "$work/sluice.yaml" > /dev/null 2>&1 # build, AOT cache

# The machine's busy CPU time so far (every process: the client, MariaDB, PostgreSQL), in clock ticks: a run's share
# of it says how close the machine's cores came to full, so what a higher degree could gain at most.
busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }
timed() { # name database command...: whole process, wall seconds, peak RSS (MB), machine CPU appended to results
  local name="$1" db="$2"; shift 2
  fresh "$db"
  local busy0 busy1
  busy0="$(busy)"
  /usr/bin/time -o "$work/t" -f "%e %M" "$@" > "$work/$name.log" 2>&1 || { tail -20 "$work/$name.log" >&2; exit 1; }
  busy1="$(busy)"
  local target table
  # pgloader loads into a schema named after the MySQL database; the others into public.
  table="$(at -d "$db" -c "SELECT coalesce(to_regclass('public.lineitem')::text, to_regclass('bench.lineitem')::text)")"
  target="$(at -d "$db" -c "SELECT count(*) || ' ' || sum(l_orderkey) || ' ' || sum(l_extendedprice) || ' ' ||
    sum(char_length(l_comment)) FROM $table")"
  [ "$target" = "$sum" ] || { echo "mysql: $name's lineitem differs from the source: $target vs $sum" >&2; exit 1; }
  read -r secs kb < "$work/t"
  local cpu
  cpu="$(echo "($busy1 - $busy0) / $(getconf CLK_TCK)" | bc -l)"
  echo "$name $secs $((kb / 1024)) $cpu" >> "$work/results.txt"
  printf "  %-26s %7.1f s  %5d MB peak RSS  %6.1f s machine CPU\n" "$name" "$secs" "$((kb / 1024))" "$cpu"
}
duck() { # threads
  cat <<PY
import duckdb
con = duckdb.connect(config={"extension_directory": "$root/.ci/cache/duckdb-extensions",
                             "autoinstall_known_extensions": False, "threads": $1})
con.execute("LOAD mysql_scanner"); con.execute("LOAD postgres_scanner")
con.execute("ATTACH 'host=127.0.0.1 port=$myport user=bench password=bench database=bench' AS my (TYPE mysql)")
con.execute("ATTACH 'host=$host port=$port user=$role dbname=sluice_my_duck$1' AS pg (TYPE postgres)")
con.execute("CREATE TABLE pg.public.lineitem AS SELECT * FROM my.lineitem")
PY
}
for t in 1 2 4; do duck "$t" > "$work/duck$t.py"; done

: > "$work/results.txt"
for round in $(seq 1 "$rounds"); do
  echo "round $round of $rounds ($rows rows)"
  timed sluice-degree1 sluice_my_1 env BENCH_DB=sluice_my_1 BENCH_DEGREE=1 "$root/sluice" run "$work/sluice.yaml"
  timed sluice-degree2 sluice_my_2 env BENCH_DB=sluice_my_2 BENCH_DEGREE=2 "$root/sluice" run "$work/sluice.yaml"
  timed pgloader-default sluice_my_pgl pgloader "mysql://bench:bench@127.0.0.1:$myport/bench" \
    "postgresql://$role@$host:$port/sluice_my_pgl"
  timed pgloader-workers8-c2 sluice_my_pgl8 pgloader --with "workers = 8" --with "concurrency = 2" \
    "mysql://bench:bench@127.0.0.1:$myport/bench" "postgresql://$role@$host:$port/sluice_my_pgl8"
  for t in 1 2 4; do
    timed "duckdb-threads$t" "sluice_my_duck$t" "$python" "$work/duck$t.py"
  done
  # The ingest limit: the same rows from a file on the server, COPY in one transaction into the table as Sluice
  # creates it (no client, no driver, no network).
  fresh sluice_my_ingest
  pg_dump -h "$host" -p "$port" -U "$role" --schema-only -t public.lineitem sluice_my_1 | psql_ -d sluice_my_ingest >/dev/null
  start="$(date +%s.%N)"
  psql_ -d sluice_my_ingest -c "COPY lineitem FROM '$served' (FORMAT csv, DELIMITER '|')"
  echo "ingest-limit $(echo "$(date +%s.%N) - $start" | bc) 0" >> "$work/results.txt"
done

echo
echo "lineitem SF $scale ($rows rows) from MariaDB $(my -N -e 'SELECT VERSION()') into PostgreSQL" \
  "$(at -d postgres -c 'SHOW server_version'); medians of $rounds; every target equals the source"
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
for name in sluice-degree1 sluice-degree2 pgloader-default pgloader-workers8-c2 duckdb-threads1 duckdb-threads2 \
            duckdb-threads4 ingest-limit; do
  secs="$(awk -v n="$name" '$1 == n { print $2 }' "$work/results.txt" | median)"
  rss="$(awk -v n="$name" '$1 == n { print $3 }' "$work/results.txt" | median)"
  cpu="$(awk -v n="$name" '$1 == n { print ($4 == "" ? 0 : $4) }' "$work/results.txt" | median)"
  printf "%-22s %7.1f s  %9.0f rows/s  %5d MB  %6.1f s machine CPU\n" "$name" "$secs" \
    "$(echo "$rows / $secs" | bc -l)" "$rss" "$cpu"
  eval "t_${name//-/_}=$secs"
done
best_duck="$(printf "%s\n" "$t_duckdb_threads1" "$t_duckdb_threads2" "$t_duckdb_threads4" | sort -n | head -1)"
printf "Sluice degree 1 against pgloader's default: %.2fx (bar 1.5x); against DuckDB at its best: %.2fx (bar 1.0x);" \
  "$(echo "$t_pgloader_default / $t_sluice_degree1" | bc -l)" "$(echo "$best_duck / $t_sluice_degree1" | bc -l)"
printf " degree 2 against degree 1: %.2fx (bar 1.2x)\n" "$(echo "$t_sluice_degree1 / $t_sluice_degree2" | bc -l)"
cpu1="$(awk '$1 == "sluice-degree1" { print $4 }' "$work/results.txt" | median)"
printf "Degree 1 kept the machine's %d cores %.0f %% busy (%.1f s of CPU in %.1f s): on these cores no degree can beat %.1f s, %.2fx degree 1\n" \
  "$(nproc)" "$(echo "100 * $cpu1 / ($t_sluice_degree1 * $(nproc))" | bc -l)" "$cpu1" "$t_sluice_degree1" \
  "$(echo "$cpu1 / $(nproc)" | bc -l)" "$(echo "$t_sluice_degree1 * $(nproc) / $cpu1" | bc -l)"

if [ "$profile" = 1 ]; then
  jfr="$(ls /usr/lib/jvm/*/bin/jfr 2>/dev/null | sort -V | tail -1)"
  fresh sluice_my_prof
  BENCH_DB=sluice_my_prof BENCH_DEGREE=1 SLUICE_JAVA_OPTS="-XX:StartFlightRecording=filename=$work/run.jfr,settings=profile" \
    "$root/sluice" run "$work/sluice.yaml" > "$work/prof.log" 2>&1 || { tail -20 "$work/prof.log" >&2; exit 1; }
  echo
  echo "profile of one degree-1 run (Java Flight Recorder, settings=profile):"
  "$jfr" view --width 160 allocation-by-site "$work/run.jfr" | head -20
  "$jfr" view --width 160 hot-methods "$work/run.jfr" | head -20
fi
