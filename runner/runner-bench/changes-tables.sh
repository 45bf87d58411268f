#!/usr/bin/env bash
# Changes across tables (docs/benchmarks.md, "Changes across tables"): the change apply through one connection
# (max-parallel-streams: 1) against one connection per table (max-parallel-streams: --tables), and PostgreSQL's native
# logical replication (a subscription: one apply worker), on the same changes to several tables.
#   bash runner/runner-bench/changes-tables.sh [--tables 4] [--rows 400000] [--changes 1000000] [--rounds 3]
# Needs what changes.sh needs: a source server with wal_level = logical (PGHOST, PGPORT, PGUSER: a superuser) and
# the targets on TARGET_PGHOST/TARGET_PGPORT (by default the same server; give them their own).
# Each round: every applier stopped, --changes changes made on the source in transactions of 1,000 that each touch
# one table (round robin; 40 % inserts, 40 % updates, 20 % deletes) and a last one that marks a row; then the
# subscription enabled and timed until the marker shows on its side, and each `./sluice run` timed whole (it applies
# up to the source's position at its start). Medians over the rounds; every target compared with the source at the
# end (row count and an order-independent checksum per table).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
tables=4 rows=400000 changes=1000000 rounds=3
while [ $# -gt 0 ]; do
  case "$1" in
    --tables) tables="$2"; shift 2 ;;
    --rows) rows="$2"; shift 2 ;;
    --changes) changes="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    *) sed -n '2,12p' "$0"; exit 2 ;;
  esac
done
host="${PGHOST:-localhost}" port="${PGPORT:-5432}" role="${PGUSER:-postgres}"
thost="${TARGET_PGHOST:-$host}" tport="${TARGET_PGPORT:-$port}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
psql_() { # -d DB ...: the targets' databases on the target server
  local h="$host" p="$port" a args=()
  for a in "$@"; do
    case "$a" in
      sluice_tbl_native|sluice_tbl_one|sluice_tbl_apart) h="$thost" p="$tport" ;;
      target:postgres) h="$thost" p="$tport" a=postgres ;;
    esac
    args+=("$a")
  done
  psql -X -q -v ON_ERROR_STOP=1 -h "$h" -p "$p" -U "$role" "${args[@]}"
}
at() { psql_ -At "$@"; }
now() { date +%s.%N; }
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
[ "$(at -d postgres -c "SHOW wal_level")" = logical ] || { echo "changes-tables: wal_level is not logical" >&2; exit 2; }

# --- setup (untimed) ---------------------------------------------------------------------------------------------
echo "changes-tables: $tables tables of $rows rows in the source (untimed)" >&2
if [ "$(at -d target:postgres -c "SELECT count(*) FROM pg_database WHERE datname = 'sluice_tbl_native'")" = 1 ]; then
  for sub in $(at -d sluice_tbl_native -c "SELECT subname FROM pg_subscription"); do
    psql_ -d sluice_tbl_native -c "ALTER SUBSCRIPTION $sub DISABLE" -c "ALTER SUBSCRIPTION $sub SET (slot_name = NONE)" \
      -c "DROP SUBSCRIPTION $sub"
  done
fi
for d in sluice_tbl_native sluice_tbl_one sluice_tbl_apart; do
  psql_ -d target:postgres -c "DROP DATABASE IF EXISTS $d WITH (FORCE)" -c "CREATE DATABASE $d"
done
for s in sub_tbl sluice_tbl_one sluice_tbl_apart; do
  at -d postgres -c "SELECT pg_drop_replication_slot('$s') FROM pg_replication_slots WHERE slot_name = '$s'" >/dev/null
done
psql_ -d postgres -c "DROP DATABASE IF EXISTS sluice_tbl_src WITH (FORCE)" -c "CREATE DATABASE sluice_tbl_src"
names=""
for i in $(seq 1 "$tables"); do
  psql_ -d sluice_tbl_src -c "CREATE TABLE t$i (id bigint PRIMARY KEY, qty int NOT NULL, note text, at timestamptz)" \
    -c "INSERT INTO t$i SELECT g, g % 100, md5(g::text), now() FROM generate_series(1, $rows) g"
  names="$names${names:+, }t$i"
done
psql_ -d sluice_tbl_src -c "VACUUM (FREEZE, ANALYZE)" -c "CREATE PUBLICATION pub_tbl FOR TABLE $names"
pg_dump -h "$host" -p "$port" -U "$role" --schema-only -t 'public.t*' sluice_tbl_src | psql_ -d sluice_tbl_native > /dev/null
url="jdbc:postgresql://$host:$port" turl="jdbc:postgresql://$thost:$tport"
spec() { # name parallel
  cat > "$work/$1.yaml" <<EOF
version: 1
name: changes-tables-$1
max-parallel-streams: $2
connections:
  src: { type: postgres, url: "$url/sluice_tbl_src", user: "$role" }
  dst: { type: postgres, url: "$turl/sluice_tbl_$1", user: "$role" }
streams:
  - name: t
    source: { connection: src, table: "public.t*", changes: { slot: sluice_tbl_$1, publication: pub_tbl } }
    target: { connection: dst, table: "public.{table}", create: if-missing }
    load-mode: truncate
EOF
}
spec one 1
spec apart "$tables"
"$root/sluice" plan "$work/one.yaml" > /dev/null # builds the jar and the start-up cache, untimed
at -d sluice_tbl_src -c "SELECT pg_create_logical_replication_slot('sub_tbl', 'pgoutput')" >/dev/null
psql_ -d sluice_tbl_native -c "CREATE SUBSCRIPTION sub_tbl CONNECTION 'host=$host port=$port dbname=sluice_tbl_src
  user=$role' PUBLICATION pub_tbl WITH (create_slot = false, slot_name = 'sub_tbl', copy_data = true)"
for s in one apart; do
  "$root/sluice" run "$work/$s.yaml" > "$work/copy-$s.log" 2>&1 || { tail -5 "$work/copy-$s.log" >&2; exit 1; }
done
until [ "$(at -d sluice_tbl_native -c "SELECT count(*) FROM pg_subscription_rel WHERE srsubstate <> 'r'")" = 0 ]; do
  sleep 0.2
done
grep -h "changes sluice_tbl_apart" "$work/copy-apart.log" | head -1 >&2
psql_ -d sluice_tbl_src <<SQL
CREATE PROCEDURE bench_changes(n int, tables int, rows bigint, round int) LANGUAGE plpgsql AS \$\$
DECLARE
  k int; j bigint;
BEGIN
  FOR i IN 0 .. n - 1 LOOP
    k := i % tables + 1;
    j := round::bigint * (n / tables) + i / tables;  -- this table's transaction number, across rounds
    EXECUTE format('INSERT INTO t%s SELECT 1000000000 + \$1 * 400 + g, g %% 100, md5(g::text), now() '
                   'FROM generate_series(0, 399) g', k) USING j;
    EXECUTE format('UPDATE t%s SET qty = qty + 1, note = ''updated'' WHERE id BETWEEN \$1 AND \$1 + 399', k)
      USING (j * 400) % (rows / 2) + 1;
    EXECUTE format('DELETE FROM t%s WHERE id BETWEEN \$1 AND \$1 + 199', k) USING rows / 2 + j * 200 + 1;
    COMMIT;
  END LOOP;
END \$\$;
SQL
txns=$((changes / 1000))
: > "$work/times.txt"
for round in $(seq 0 $((rounds - 1))); do
  psql_ -d sluice_tbl_native -c "ALTER SUBSCRIPTION sub_tbl DISABLE"
  until [ "$(at -d sluice_tbl_src -c "SELECT count(*) FROM pg_replication_slots WHERE active")" = 0 ]; do sleep 0.2; done
  echo "changes-tables: round $((round + 1)): $changes changes in $txns transactions (untimed)" >&2
  psql_ -d sluice_tbl_src -c "CALL bench_changes($txns, $tables, $rows, $round)"
  marker="mark-$(date +%s%N)"
  psql_ -d sluice_tbl_src -c "UPDATE t1 SET note = '$marker' WHERE id = 1"
  start="$(now)"
  psql_ -d sluice_tbl_native -c "ALTER SUBSCRIPTION sub_tbl ENABLE"
  until [ "$(at -d sluice_tbl_native -c "SELECT note FROM t1 WHERE id = 1")" = "$marker" ]; do sleep 0.05; done
  native="$(echo "$(now) - $start" | bc)"
  for s in one apart; do
    /usr/bin/time -o "$work/t" -f "%e" "$root/sluice" run "$work/$s.yaml" > "$work/$s.log" 2>&1 \
      || { tail -5 "$work/$s.log" >&2; exit 1; }
    eval "$s=$(cat "$work/t")"
    grep -h "changes sluice_tbl_$s:.*applied" "$work/$s.log" | tail -1 >&2 || true
  done
  echo "$native $one $apart" >> "$work/times.txt"
  printf "round %d: subscription %.1f s, Sluice one connection %.1f s, one per table %.1f s\n" $((round + 1)) \
    "$native" "$one" "$apart"
done

# --- checks and summary ------------------------------------------------------------------------------------------
for i in $(seq 1 "$tables"); do
  sum="SELECT count(*) || ' ' || sum(hashtext(t::text)::bigint) FROM t$i t"
  want="$(at -d sluice_tbl_src -c "$sum")"
  for d in sluice_tbl_native sluice_tbl_one sluice_tbl_apart; do
    [ "$(at -d "$d" -c "$sum")" = "$want" ] || { echo "changes-tables: t$i of $d differs from the source" >&2; exit 1; }
  done
done
native="$(awk '{ print $1 }' "$work/times.txt" | median)"
one="$(awk '{ print $2 }' "$work/times.txt" | median)"
apart="$(awk '{ print $3 }' "$work/times.txt" | median)"
made=$((txns * 1000 + 1))
echo
echo "$tables tables of $rows rows, $made changes a round, medians of $rounds rounds; every target equals the source"
printf "subscription %.1f s (%.0f changes/s); Sluice one connection %.1f s (%.0f/s); one per table %.1f s (%.0f/s)\n" \
  "$native" "$(echo "$made / $native" | bc -l)" "$one" "$(echo "$made / $one" | bc -l)" "$apart" \
  "$(echo "$made / $apart" | bc -l)"
printf "one per table against one connection: %.2fx; against the subscription: %.2fx\n" \
  "$(echo "$one / $apart" | bc -l)" "$(echo "$native / $apart" | bc -l)"
