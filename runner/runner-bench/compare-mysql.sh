#!/usr/bin/env bash
# sluice compare from MariaDB into PostgreSQL (docs/benchmarks.md, "Compare"): TPC-H lineitem loaded into a MariaDB
# of its own (mariadb-lineitem.sh) and copied by ./sluice into PostgreSQL (untimed). Then, per run, in turn:
#   mariadb-hash:  MariaDB hashing its whole table as compare's digests do (count, and the sum of the portable row
#                  hash of each row's canonical text: docs/operations.md, "Proving a migration"), one statement;
#   postgres-hash: the same over PostgreSQL's copy;
#   equal:         ./sluice compare (range on l_orderkey at DEGREE), exit 0 expected;
#   changed:       one row's l_comment changed on the target, ./sluice compare, exit 5 and that key expected.
# The bar: compare at most 2x the slower of the two servers' own hash. The two hashes must agree (else the script's
# SQL is not what compare computes). Whole commands timed (JVM start included); medians printed.
#   bash runner/runner-bench/compare-mysql.sh [--scale 1] [--runs 3] [--degree 2]
# Needs MariaDB's server binaries (apt-get install mariadb-server), psql, and a PostgreSQL server it may create a
# database on (PGHOST, PGPORT, PGUSER; trust or PGPASSWORD).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
scale=1 runs=3 degree=2
while [ $# -gt 0 ]; do
  case "$1" in
    --scale) scale="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --degree) degree="$2"; shift 2 ;;
    *) sed -n '2,14p' "$0"; exit 2 ;;
  esac
done
host="${PGHOST:-localhost}" port="${PGPORT:-5432}" role="${PGUSER:-postgres}"
[ -x /usr/sbin/mariadbd ] || { echo "compare-mysql: mariadbd is not installed (apt-get install mariadb-server)" >&2; exit 2; }
work="$(mktemp -d)"
chmod 755 "$work"
mariadbd_pid=""
cleanup() {
  [ -n "$mariadbd_pid" ] && kill "$mariadbd_pid" 2>/dev/null && wait "$mariadbd_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
psql_() { PGOPTIONS="-c client_min_messages=warning" psql -X -q -v ON_ERROR_STOP=1 -h "$host" -p "$port" -U "$role" "$@"; }
now() { date +%s.%N; }

csv="$(bash "$root/runner/runner-bench/lineitem-csv.sh" "$scale")"
source "$root/runner/runner-bench/mariadb-lineitem.sh"
psql_ -d postgres -c "DROP DATABASE IF EXISTS sluice_cmp_my WITH (FORCE)" -c "CREATE DATABASE sluice_cmp_my"
printf bench > "$work/pw"
cat > "$work/sluice.yaml" <<EOF
version: 1
name: compare-mysql-bench
connections:
  my: { type: mysql, url: "jdbc:mariadb://127.0.0.1:$myport/bench", user: bench, password: "\${file:$work/pw}" }
  pg: { type: postgres, url: "jdbc:postgresql://$host:$port/sluice_cmp_my", user: "$role" }
streams:
  - name: lineitem
    source: { connection: my, table: lineitem }
    target: { connection: pg, table: public.lineitem, create: if-missing }
    distribution: { method: range, key: l_orderkey }
    degree: $degree
    load-mode: truncate
EOF
"$root/sluice" run "$work/sluice.yaml" > "$work/load.log" 2>&1 || { tail -20 "$work/load.log" >&2; exit 1; }
psql_ -d sluice_cmp_my -c "ALTER TABLE lineitem ADD PRIMARY KEY (l_orderkey, l_linenumber)" -c "ANALYZE lineitem"

# Each column's canonical text on each server, as connectors/mysql CompareText and the PostgreSQL target print it.
ints="l_orderkey l_partkey l_suppkey l_linenumber" decimals="l_quantity l_extendedprice l_discount l_tax"
texts="l_returnflag l_linestatus l_shipinstruct l_shipmode l_comment" dates="l_shipdate l_commitdate l_receiptdate"
my_text() {
  case " $ints $decimals " in *" $1 "*) echo "CAST($1 AS CHAR)"; return ;; esac
  case " $texts " in *" $1 "*) echo "CONVERT($1 USING utf8mb4)"; return ;; esac
  echo "DATE_FORMAT($1, '%Y-%m-%d')"
}
order="l_orderkey l_partkey l_suppkey l_linenumber l_quantity l_extendedprice l_discount l_tax l_returnflag
  l_linestatus l_shipdate l_commitdate l_receiptdate l_shipinstruct l_shipmode l_comment"
my_row="" pg_row=""
for c in $order; do
  t="$(my_text "$c")"
  my_row="$my_row${my_row:+, ',', }COALESCE(CONCAT(CHAR_LENGTH($t), ':', $t), 'N')"
  pg_row="$pg_row${pg_row:+ || ',' || }coalesce(length(($c)::text)::text || ':' || ($c)::text, 'N')"
done
my_sql="SELECT CONCAT(COUNT(*), ' ', SUM(CAST(CONV(SUBSTRING(MD5(CONCAT($my_row)), 1, 15), 16, 10) AS UNSIGNED)))
  FROM lineitem"
pg_sql="SELECT count(*) || ' ' || sum(('x0' || substr(md5($pg_row), 1, 15))::bit(64)::bigint) FROM lineitem"
top="$(psql_ -d sluice_cmp_my -Atc "SELECT max(l_orderkey) FROM lineitem")"

: > "$work/results.txt"
for run in $(seq 1 "$runs"); do
  start="$(now)"; my_hash="$(my -N bench -e "$my_sql")"; end="$(now)"
  echo "mariadb-hash $(echo "$end - $start" | bc)" >> "$work/results.txt"
  start="$(now)"; pg_hash="$(psql_ -d sluice_cmp_my -Atc "SET TimeZone = 'UTC'" -c "$pg_sql")"; end="$(now)"
  echo "postgres-hash $(echo "$end - $start" | bc)" >> "$work/results.txt"
  [ "$my_hash" = "$pg_hash" ] || { echo "compare-mysql: the hashes differ: $my_hash vs $pg_hash" >&2; exit 1; }
  start="$(now)"
  "$root/sluice" compare "$work/sluice.yaml" > "$work/equal.log" 2>&1 || { cat "$work/equal.log" >&2; exit 1; }
  echo "equal $(echo "$(now) - $start" | bc)" >> "$work/results.txt"
  psql_ -d sluice_cmp_my -c "UPDATE lineitem SET l_comment = 'changed' WHERE l_orderkey = $top AND l_linenumber = 1"
  start="$(now)"
  set +e
  "$root/sluice" compare "$work/sluice.yaml" > "$work/changed.log" 2>&1
  code=$?
  set -e
  echo "changed $(echo "$(now) - $start" | bc)" >> "$work/results.txt"
  grep -q "l_orderkey=$top" "$work/changed.log" && [ "$code" = 5 ] \
    || { echo "compare-mysql: the changed row was not named (exit $code)" >&2; cat "$work/changed.log" >&2; exit 1; }
  orig="$(my -N bench -e "SELECT l_comment FROM lineitem WHERE l_orderkey = $top AND l_linenumber = 1")"
  echo "UPDATE lineitem SET l_comment = :'v' WHERE l_orderkey = $top AND l_linenumber = 1" \
    | psql_ -d sluice_cmp_my -v v="$orig"
  tail -n +1 "$work/results.txt" | tail -4 | tr '\n' ' '; echo
done

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
for name in mariadb-hash postgres-hash equal changed; do
  eval "t_${name//-/_}=$(awk -v n="$name" '$1 == n { print $2 }' "$work/results.txt" | median)"
done
slower="$(printf "%s\n%s\n" "$t_mariadb_hash" "$t_postgres_hash" | sort -n | tail -1)"
echo
echo "lineitem SF $scale ($rows rows), MariaDB $(my -N -e 'SELECT VERSION()') -> PostgreSQL" \
  "$(psql_ -d postgres -Atc 'SHOW server_version'), degree $degree; medians of $runs"
printf "%-14s %7.1f s\n" mariadb-hash "$t_mariadb_hash" postgres-hash "$t_postgres_hash" equal "$t_equal" \
  changed "$t_changed"
printf "compare equal: %.2fx the slower server's own hash (bar 2.0x); one changed row: %.2fx the equal case\n" \
  "$(echo "$t_equal / $slower" | bc -l)" "$(echo "$t_changed / $t_equal" | bc -l)"
