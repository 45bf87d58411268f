#!/usr/bin/env bash
# Changes (docs/benchmarks.md, "Changes"): Sluice's initial copy and change apply against PostgreSQL's native logical
# replication, on the same data and the same change workload.
#   bash runner/runner-bench/changes.sh [--scale 1] [--changes 1000000] [--degree 2] [--writer-seconds 60]
#                                       [--writer-rate 500]
# Needs a PostgreSQL server with wal_level = logical it may create databases, publications, slots and subscriptions on
# (PGHOST, PGPORT, PGUSER: a superuser; trust or PGPASSWORD), psql and pgbench on the PATH, and python3 (DuckDB's
# dbgen makes TPC-H lineitem, once, cached under .ci/cache/bench-changes). The two targets (the subscriber's database
# and Sluice's) go to TARGET_PGHOST/TARGET_PGPORT, by default the same server: give them a server of their own, as
# in a real migration, or the source's walsenders read the targets' WAL too (every database of a cluster shares it),
# and whichever applies second reads through the other's.
# 1. Initial copy of lineitem: a subscription with copy_data (its table sync, one stream per table, into the table
#    created as its users create it, primary key included), timed from CREATE SUBSCRIPTION until the table is ready;
#    then `./sluice run` with changes: at --degree, create: if-missing (key built after the load), timed whole.
# 2. Change apply: both stopped (subscription disabled), --changes changes made on the source in transactions of
#    1,000 (40 % inserts, 40 % updates, 20 % deletes) and a last one that marks a row; then the subscription enabled
#    and timed until the marker shows on its side, and `./sluice run` timed whole (it applies up to the source's
#    position at its start).
# 3. Lag under a steady writer: pgbench at --writer-rate transactions/s (a few changes each) for --writer-seconds
#    while the subscription and `./sluice run --follow` apply; each second the position each has applied (the
#    subscription's origin, Sluice's ledger) is taken from the source's, in kB of WAL (the server's other databases
#    write WAL too, the same for both).
# Both targets are compared with the source at the end (row count and an order-independent checksum).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
scale=1 changes=1000000 degree=2 writer_seconds=60 writer_rate=500
while [ $# -gt 0 ]; do
  case "$1" in
    --scale) scale="$2"; shift 2 ;;
    --changes) changes="$2"; shift 2 ;;
    --degree) degree="$2"; shift 2 ;;
    --writer-seconds) writer_seconds="$2"; shift 2 ;;
    --writer-rate) writer_rate="$2"; shift 2 ;;
    *) sed -n '2,18p' "$0"; exit 2 ;;
  esac
done
host="${PGHOST:-localhost}" port="${PGPORT:-5432}" role="${PGUSER:-postgres}"
command -v pgbench >/dev/null || { echo "changes: pgbench is not on the PATH" >&2; exit 2; }
work="$(mktemp -d)"
follower=""
cleanup() {
  [ -n "$follower" ] && kill "$follower" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
thost="${TARGET_PGHOST:-$host}" tport="${TARGET_PGPORT:-$port}"
# The targets' databases are on the target server; everything else on the source.
psql_() {
  local h="$host" p="$port" a args=()
  for a in "$@"; do
    case "$a" in
      sluice_chg_native|sluice_chg_sluice) h="$thost" p="$tport" ;;
      target:postgres) h="$thost" p="$tport" a=postgres ;;
    esac
    args+=("$a")
  done
  psql -X -q -v ON_ERROR_STOP=1 -h "$h" -p "$p" -U "$role" "${args[@]}"
}
at() { psql_ -At "$@"; }
now() { date +%s.%N; }
# The last source transaction sets a marker on one row; the subscriber has applied everything before once it shows
# it (changes apply in commit order). Positions would not do: every database of the server shares one WAL.
mark() {
  marker="mark-$(date +%s%N)"
  psql_ -d sluice_chg_src -c "UPDATE lineitem SET l_comment = '$marker' WHERE l_orderkey = 1 AND l_linenumber = 1"
}
until_marked() { # database
  until [ "$(at -d "$1" -c "SELECT l_comment FROM lineitem WHERE l_orderkey = 1 AND l_linenumber = 1")" = "$marker" ]; do
    sleep 0.05
  done
}
[ "$(at -d postgres -c "SHOW wal_level")" = logical ] || { echo "changes: the server's wal_level is not logical" >&2; exit 2; }

# --- setup (untimed) ---------------------------------------------------------------------------------------------
cache="$root/.ci/cache/bench-changes"
mkdir -p "$cache"
parquet="$cache/lineitem-sf$scale.parquet"
if [ ! -f "$parquet" ]; then
  bash "$root/.ci/provision-duckdb-extensions.sh" tpch >&2
  python="$(bash "$root/runner/runner-bench/provision-duckdb-python.sh" "$cache/python")"
  echo "changes: generating lineitem SF $scale with DuckDB's dbgen (once)" >&2
  "$python" - "$root/.ci/cache/duckdb-extensions" "$scale" "$parquet" <<'PY'
import sys, duckdb
con = duckdb.connect(config={"extension_directory": sys.argv[1], "autoinstall_known_extensions": False})
con.execute("LOAD tpch")
con.execute(f"CALL dbgen(sf = {sys.argv[2]})")
con.execute(f"COPY lineitem TO '{sys.argv[3]}.tmp' (FORMAT parquet)")
PY
  mv "$parquet.tmp" "$parquet"
fi
echo "changes: databases, lineitem loaded into the source (untimed)" >&2
for sub in $(at -d target:postgres -c "SELECT subname FROM pg_subscription"); do
  psql_ -d sluice_chg_native -c "ALTER SUBSCRIPTION $sub DISABLE" -c "ALTER SUBSCRIPTION $sub SET (slot_name = NONE)" \
    -c "DROP SUBSCRIPTION $sub" 2>/dev/null || true
done
at -d postgres -c "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name IN
  ('sub_bench', 'sluice_bench')" >/dev/null
psql_ -d postgres -c "DROP DATABASE IF EXISTS sluice_chg_src (FORCE)" -c "CREATE DATABASE sluice_chg_src"
for db in sluice_chg_native sluice_chg_sluice; do
  psql_ -d target:postgres -c "DROP DATABASE IF EXISTS $db (FORCE)" -c "CREATE DATABASE $db"
done
url="jdbc:postgresql://$host:$port"
turl="jdbc:postgresql://$thost:$tport"
cat > "$work/load.yaml" <<EOF
version: 1
name: changes-bench-load
connections:
  lake: { type: duckdb }
  src: { type: postgres, url: "$url/sluice_chg_src", user: "$role" }
streams:
  - name: lineitem
    source: { connection: lake, query: "select * from read_parquet('$parquet')" }
    target: { connection: src, table: public.lineitem, create: if-missing, primary-key: [l_orderkey, l_linenumber] }
    degree: 2
EOF
"$root/sluice" run "$work/load.yaml" > "$work/load.log" 2>&1 || { tail -5 "$work/load.log" >&2; exit 1; }
psql_ -d sluice_chg_src -c "VACUUM (FREEZE, ANALYZE) lineitem" -c "CREATE PUBLICATION pub_bench FOR TABLE lineitem"
rows="$(at -d sluice_chg_src -c "SELECT count(*) FROM lineitem")"
# The subscriber's table as its users make it: the source's definition, primary key included.
pg_dump -h "$host" -p "$port" -U "$role" --schema-only -t public.lineitem sluice_chg_src | psql_ -d sluice_chg_native
cat > "$work/sluice.yaml" <<EOF
version: 1
name: changes-bench
connections:
  src: { type: postgres, url: "$url/sluice_chg_src", user: "$role" }
  dst: { type: postgres, url: "$turl/sluice_chg_sluice", user: "$role" }
streams:
  - name: lineitem
    source: { connection: src, table: public.lineitem, changes: { slot: sluice_bench, publication: pub_bench } }
    target: { connection: dst, table: public.lineitem, create: if-missing }
    distribution: { method: ctid }
    degree: $degree
    load-mode: truncate
EOF
"$root/sluice" plan "$work/sluice.yaml" > /dev/null # builds the jar and the start-up cache, untimed
results="$work/results.txt"

# --- 1. initial copy ---------------------------------------------------------------------------------------------
echo "changes: initial copy of $rows rows" >&2
# A subscription to a database of the same server cannot create its slot in CREATE SUBSCRIPTION: made first.
at -d sluice_chg_src -c "SELECT pg_create_logical_replication_slot('sub_bench', 'pgoutput')" >/dev/null
start="$(now)"
psql_ -d sluice_chg_native -c "CREATE SUBSCRIPTION sub_bench CONNECTION 'host=$host port=$port dbname=sluice_chg_src
  user=$role' PUBLICATION pub_bench WITH (create_slot = false, slot_name = 'sub_bench', copy_data = true)"
until [ "$(at -d sluice_chg_native -c "SELECT count(*) FROM pg_subscription_rel WHERE srsubstate <> 'r'")" = 0 ]; do
  sleep 0.2
done
native_copy="$(echo "$(now) - $start" | bc)"
echo "initial-copy native-subscription seconds $native_copy" | tee -a "$results"
/usr/bin/time -o "$work/t" -f "%e" "$root/sluice" run "$work/sluice.yaml" > "$work/copy.log" 2>&1 \
  || { tail -5 "$work/copy.log" >&2; exit 1; }
sluice_copy="$(cat "$work/t")"
echo "initial-copy sluice-degree$degree seconds $sluice_copy" | tee -a "$results"

# --- 2. change apply ---------------------------------------------------------------------------------------------
psql_ -d sluice_chg_native -c "ALTER SUBSCRIPTION sub_bench DISABLE"
until [ "$(at -d sluice_chg_src -c "SELECT count(*) FROM pg_replication_slots WHERE active")" = 0 ]; do sleep 0.2; done
txns=$((changes / 1000))
echo "changes: $changes changes on the source in $txns transactions (untimed)" >&2
psql_ -d sluice_chg_src <<SQL
CREATE PROCEDURE bench_changes(n int) LANGUAGE plpgsql AS \$\$
DECLARE
  base bigint := (SELECT max(l_orderkey) FROM lineitem);
  upd bigint := 0;                                           -- updates walk up from the lowest keys
  del bigint := (SELECT max(l_orderkey) FROM lineitem) / 2;  -- deletes from the middle: the two never meet
BEGIN
  FOR i IN 0 .. n - 1 LOOP
    INSERT INTO lineitem (l_orderkey, l_linenumber, l_partkey, l_suppkey, l_quantity, l_extendedprice, l_discount,
        l_tax, l_returnflag, l_linestatus, l_shipdate, l_commitdate, l_receiptdate, l_shipinstruct, l_shipmode,
        l_comment)
      SELECT base + i * 100 + g / 4 + 1, g % 4 + 1, l_partkey, l_suppkey, l_quantity,
        l_extendedprice, l_discount, l_tax, l_returnflag, l_linestatus, l_shipdate, l_commitdate, l_receiptdate,
        l_shipinstruct, l_shipmode, l_comment
      FROM lineitem, generate_series(0, 399) g WHERE l_orderkey = 1 AND l_linenumber = 1;
    WITH picked AS (SELECT l_orderkey, l_linenumber FROM lineitem WHERE l_orderkey > upd
                    ORDER BY l_orderkey, l_linenumber LIMIT 400)
    UPDATE lineitem l SET l_quantity = l.l_quantity + 1, l_comment = 'updated' FROM picked p
      WHERE l.l_orderkey = p.l_orderkey AND l.l_linenumber = p.l_linenumber;
    upd := (SELECT max(l_orderkey) FROM (SELECT l_orderkey FROM lineitem WHERE l_orderkey > upd
            ORDER BY l_orderkey, l_linenumber LIMIT 400) x);
    WITH picked AS (SELECT l_orderkey, l_linenumber FROM lineitem WHERE l_orderkey > del
                    ORDER BY l_orderkey, l_linenumber LIMIT 200)
    DELETE FROM lineitem l USING picked p WHERE l.l_orderkey = p.l_orderkey AND l.l_linenumber = p.l_linenumber;
    del := (SELECT max(l_orderkey) FROM (SELECT l_orderkey FROM lineitem WHERE l_orderkey > del
            ORDER BY l_orderkey, l_linenumber LIMIT 200) x);
    COMMIT;
  END LOOP;
END \$\$;
CALL bench_changes($txns);
SQL
mark
made=$((txns * 1000 + 1)) # 400 inserts, 400 updates and 200 deletes a transaction
start="$(now)"
psql_ -d sluice_chg_native -c "ALTER SUBSCRIPTION sub_bench ENABLE"
origin="pg_$(at -d sluice_chg_native -c "SELECT oid FROM pg_subscription WHERE subname = 'sub_bench'")"
until_marked sluice_chg_native
native_apply="$(echo "$(now) - $start" | bc)"
echo "change-apply native-subscription seconds $native_apply" | tee -a "$results"
/usr/bin/time -o "$work/t" -f "%e" "$root/sluice" run "$work/sluice.yaml" > "$work/apply.log" 2>&1 \
  || { tail -5 "$work/apply.log" >&2; exit 1; }
sluice_apply="$(cat "$work/t")"
sluice_apply_only="$(sed -n 's/.*applied in \([0-9.]*\) s.*/\1/p' "$work/apply.log")"
echo "change-apply sluice seconds $sluice_apply (applying alone: $sluice_apply_only s)" | tee -a "$results"
grep "changes sluice_bench:" "$work/apply.log" | tail -1 >&2

# --- 3. lag under a steady writer --------------------------------------------------------------------------------
cat > "$work/writer.sql" <<'SQL'
\set k random(1, 1000000)
BEGIN;
UPDATE lineitem SET l_quantity = l_quantity + 1 WHERE l_orderkey BETWEEN :k AND :k + 1;
INSERT INTO lineitem (l_orderkey, l_linenumber, l_partkey, l_suppkey, l_quantity, l_extendedprice, l_discount, l_tax,
  l_returnflag, l_linestatus, l_shipdate, l_commitdate, l_receiptdate, l_shipinstruct, l_shipmode, l_comment)
SELECT l_orderkey + 900000000, l_linenumber, l_partkey, l_suppkey, l_quantity, l_extendedprice, l_discount, l_tax, l_returnflag, l_linestatus, l_shipdate, l_commitdate, l_receiptdate, l_shipinstruct, l_shipmode,
  l_comment FROM lineitem WHERE l_orderkey = :k ON CONFLICT DO NOTHING;
DELETE FROM lineitem WHERE l_orderkey = :k + 2;
COMMIT;
SQL
"$root/sluice" run "$work/sluice.yaml" --follow > "$work/follow.log" 2>&1 &
follower=$!
until grep -q "on until stopped" "$work/follow.log"; do sleep 0.2; done
echo "changes: lag under pgbench at $writer_rate transactions/s for $writer_seconds s" >&2
pgbench -n -h "$host" -p "$port" -U "$role" -R "$writer_rate" -T "$writer_seconds" -c 2 -f "$work/writer.sql" \
  sluice_chg_src > "$work/pgbench.log" 2>&1 &
writer=$!
: > "$work/lag.txt"
while kill -0 "$writer" 2>/dev/null; do
  current="$(at -d sluice_chg_src -c "SELECT pg_current_wal_flush_lsn()")"
  n="$(at -d sluice_chg_native -c "SELECT pg_wal_lsn_diff('$current', remote_lsn) FROM pg_replication_origin_status
    WHERE external_id = '$origin'")"
  s="$(at -d sluice_chg_sluice -c "SELECT pg_wal_lsn_diff('$current', position::pg_lsn) FROM sluice.change_feeds")"
  echo "$n $s" >> "$work/lag.txt"
  sleep 1
done
wait "$writer" || { cat "$work/pgbench.log" >&2; exit 1; }
sleep 3
kill -TERM "$follower"
wait "$follower" || { tail -5 "$work/follow.log" >&2; exit 1; }
follower=""
lag_stats() { # column -> "median max" in kB, the first two seconds left out (the follower's first batch)
  tail -n +3 "$work/lag.txt" | awk -v c="$1" '{ v = $c < 0 ? 0 : $c; print v }' | sort -n \
    | awk '{ a[NR] = $1 } END { printf "%.0f %.0f", a[int((NR + 1) / 2)] / 1024, a[NR] / 1024 }'
}
read -r native_med native_max <<< "$(lag_stats 1)"
read -r sluice_med sluice_max <<< "$(lag_stats 2)"
echo "lag native-subscription median ${native_med} kB max ${native_max} kB" | tee -a "$results"
echo "lag sluice-follow median ${sluice_med} kB max ${sluice_max} kB" | tee -a "$results"
grep "transactions per second\|tps" "$work/pgbench.log" | head -2 >&2

# --- checks and summary ------------------------------------------------------------------------------------------
mark # the source is quiet from here on
"$root/sluice" run "$work/sluice.yaml" > /dev/null 2>&1
until_marked sluice_chg_native
sum="SELECT count(*) || ' ' || sum(hashtext(t::text)::bigint) FROM (SELECT * FROM lineitem) t"
src_sum="$(at -d sluice_chg_src -c "$sum")"
[ "$(at -d sluice_chg_sluice -c "$sum")" = "$src_sum" ] || { echo "changes: Sluice's target differs from the source" >&2; exit 1; }
[ "$(at -d sluice_chg_native -c "$sum")" = "$src_sum" ] || { echo "changes: the subscriber differs from the source" >&2; exit 1; }
echo
echo "lineitem SF $scale ($rows rows), $made changes, degree $degree; both targets equal the source"
printf "initial copy: subscription %.1f s, Sluice %.1f s: Sluice %.2fx the subscription's speed\n" "$native_copy" \
  "$sluice_copy" "$(echo "$native_copy / $sluice_copy" | bc -l)"
printf "change apply: subscription %.1f s (%.0f changes/s), Sluice %.1f s whole (%.0f changes/s), %.1f s applying (%.0f changes/s)\n" \
  "$native_apply" "$(echo "$made / $native_apply" | bc -l)" "$sluice_apply" "$(echo "$made / $sluice_apply" | bc -l)" \
  "$sluice_apply_only" "$(echo "$made / $sluice_apply_only" | bc -l)"
echo "lag under the writer: subscription median $native_med kB (max $native_max), Sluice --follow median $sluice_med kB (max $sluice_max)"
