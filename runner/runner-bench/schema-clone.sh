#!/usr/bin/env bash
# A whole schema with its objects: Sluice (objects: all) against `pgcopydb clone` (docs/benchmarks.md, "A schema
# with its objects").
#   bash runner/runner-bench/schema-clone.sh [--scale 0.1] [--runs 3] [--jobs "1 4"]
# Needs a PostgreSQL server it may create databases and a role on (PGHOST, PGPORT, PGUSER; trust or PGPASSWORD),
# pgcopydb on the PATH and pg_dump/pg_restore of the server's version (pgcopydb runs them). Creates database
# sluice_clone_src: schema bench with TPC-H-shaped customer, part, orders and lineitem (150,000 x scale customers,
# 1,500,000 x scale orders, about four lines each, foreign keys, a standalone sequence behind a default), and the
# objects a migration carries: functions (SQL and PL/pgSQL), an aggregate, two views (one on the other), a
# materialized view over lineitem with a unique index, row and statement triggers, a rule, row-level security with a
# policy, comments. Then, per run and per jobs count J, alternating: drops and creates the target database
# sluice_clone_dst (untimed), runs ./sluice with one pattern stream (create: if-missing, objects: all, load-mode
# truncate, degree 1, max-parallel-streams J), checks the target, recreates it, runs `pgcopydb clone --table-jobs J
# --index-jobs J`, checks it. Each whole command timed by /usr/bin/time (wall, client user + sys CPU, JVM start
# included). Prints each run and the medians with Sluice/pgcopydb ratios.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
scale=0.1 runs=3 jobs="1 4"
while [ $# -gt 0 ]; do
  case "$1" in
    --scale) scale="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    *) sed -n '2,17p' "$0"; exit 2 ;;
  esac
done
command -v pgcopydb >/dev/null || { echo "schema-clone: pgcopydb is not on the PATH" >&2; exit 2; }
host="${PGHOST:-localhost}" port="${PGPORT:-5432}" role="${PGUSER:-postgres}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
psql_() { psql -X -q -v ON_ERROR_STOP=1 -h "$host" -p "$port" -U "$role" "$@"; }

customers=$(echo "150000 * $scale / 1" | bc) orders=$(echo "1500000 * $scale / 1" | bc)
echo "schema-clone: scale $scale ($orders orders) on $host:$port (setup, untimed)" >&2
psql_ -d postgres -c "DROP DATABASE IF EXISTS sluice_clone_src" -c "CREATE DATABASE sluice_clone_src" \
  -c "DO \$\$BEGIN CREATE ROLE sluice_bench_clerk; EXCEPTION WHEN duplicate_object THEN NULL; END\$\$"
psql_ -d sluice_clone_src <<SQL
CREATE SCHEMA bench;
CREATE SEQUENCE bench.part_key;
CREATE TABLE bench.customer (c_custkey int PRIMARY KEY, c_name text NOT NULL, c_nation int, c_acctbal numeric(12,2),
  c_comment text, c_updated timestamptz DEFAULT now());
CREATE TABLE bench.part (p_partkey int PRIMARY KEY DEFAULT nextval('bench.part_key'), p_name text, p_brand text,
  p_retailprice numeric(12,2));
CREATE TABLE bench.orders (o_orderkey bigint PRIMARY KEY, o_custkey int NOT NULL REFERENCES bench.customer,
  o_status char(1), o_totalprice numeric(12,2), o_orderdate date NOT NULL, o_comment text);
CREATE TABLE bench.lineitem (l_orderkey bigint NOT NULL REFERENCES bench.orders, l_linenumber int NOT NULL,
  l_partkey int REFERENCES bench.part, l_quantity numeric(12,2), l_extendedprice numeric(12,2), l_discount numeric(4,2),
  l_shipdate date, l_comment text, PRIMARY KEY (l_orderkey, l_linenumber));
CREATE INDEX lineitem_shipdate ON bench.lineitem (l_shipdate);
INSERT INTO bench.customer SELECT g, 'Customer#' || g, g % 25, (g % 10000) / 3.0, md5(g::text), now()
  FROM generate_series(1, $customers) g;
INSERT INTO bench.part (p_name, p_brand, p_retailprice) SELECT 'part ' || g, 'Brand#' || (g % 50), 900 + g % 1000
  FROM generate_series(1, 20000) g;
INSERT INTO bench.orders SELECT g, 1 + g % $customers, (ARRAY['O','F','P'])[1 + g % 3], (g % 100000) / 2.0,
  date '1992-01-01' + (g % 2400), repeat(md5(g::text), 2) FROM generate_series(1, $orders) g;
INSERT INTO bench.lineitem SELECT o, n, 1 + (o * n) % 20000, 1 + (o + n) % 50, (o % 9000) + n, (n % 10) / 100.0,
  date '1992-01-02' + ((o + n) % 2500), md5((o * n)::text) FROM generate_series(1, $orders) o,
  generate_series(1, 1 + (o % 7) / 2) n;
CREATE FUNCTION bench.touch() RETURNS trigger LANGUAGE plpgsql AS
  \$f\$BEGIN NEW.c_updated := now(); RETURN NEW; END\$f\$;
CREATE FUNCTION bench.audit() RETURNS trigger LANGUAGE plpgsql AS \$f\$BEGIN RETURN NULL; END\$f\$;
CREATE FUNCTION bench.revenue(p_order bigint) RETURNS numeric LANGUAGE sql STABLE AS
  'SELECT sum(l_extendedprice * (1 - l_discount)) FROM bench.lineitem WHERE l_orderkey = p_order';
CREATE FUNCTION bench.cat(acc text, x text) RETURNS text LANGUAGE sql IMMUTABLE AS
  \$f\$SELECT CASE WHEN acc IS NULL THEN x ELSE acc || ', ' || x END\$f\$;
CREATE AGGREGATE bench.list(text) (SFUNC = bench.cat, STYPE = text);
CREATE TRIGGER customer_touch BEFORE UPDATE ON bench.customer FOR EACH ROW EXECUTE FUNCTION bench.touch();
CREATE TRIGGER orders_audit AFTER INSERT OR DELETE ON bench.orders FOR EACH STATEMENT EXECUTE FUNCTION bench.audit();
CREATE VIEW bench.order_summary AS SELECT o.o_orderkey, o.o_orderdate, c.c_name, o.o_totalprice
  FROM bench.orders o JOIN bench.customer c ON c.c_custkey = o.o_custkey;
CREATE VIEW bench.big_orders AS SELECT * FROM bench.order_summary WHERE o_totalprice > 40000;
CREATE MATERIALIZED VIEW bench.shipped_by_month AS SELECT date_trunc('month', l_shipdate) AS month,
  count(*) AS lines, sum(l_extendedprice) AS revenue FROM bench.lineitem GROUP BY 1;
CREATE UNIQUE INDEX shipped_by_month_key ON bench.shipped_by_month (month);
CREATE RULE order_summary_delete AS ON DELETE TO bench.order_summary DO INSTEAD
  DELETE FROM bench.orders WHERE o_orderkey = OLD.o_orderkey;
ALTER TABLE bench.orders ENABLE ROW LEVEL SECURITY;
CREATE POLICY open_orders ON bench.orders FOR SELECT TO sluice_bench_clerk USING (o_status = 'O');
COMMENT ON VIEW bench.order_summary IS 'orders with their customer';
COMMENT ON FUNCTION bench.revenue(bigint) IS 'an order''s revenue';
COMMENT ON MATERIALIZED VIEW bench.shipped_by_month IS 'filled after the load';
VACUUM ANALYZE;
SQL
check="SELECT (SELECT count(*) FROM bench.customer) + (SELECT count(*) FROM bench.part)
  + (SELECT count(*) FROM bench.orders) + (SELECT count(*) FROM bench.lineitem) || ' rows, '
  || (SELECT count(*) FROM pg_class WHERE relnamespace = 'bench'::regnamespace AND relkind IN ('v', 'm')) || ' views, '
  || (SELECT count(*) FROM pg_proc WHERE pronamespace = 'bench'::regnamespace) || ' routines, '
  || (SELECT count(*) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
      WHERE c.relnamespace = 'bench'::regnamespace AND NOT t.tgisinternal) || ' triggers, '
  || (SELECT count(*) FROM pg_policy) || ' policies, '
  || (SELECT count(*) FROM pg_constraint WHERE connamespace = 'bench'::regnamespace) || ' constraints, '
  || (SELECT count(*) FROM pg_indexes WHERE schemaname = 'bench') || ' indexes, '
  || (SELECT sum(lines) FROM bench.shipped_by_month) || ' lines in the materialized view'"
expected="$(psql_ -d sluice_clone_src -At -c "$check")"
echo "schema-clone: source has $expected" >&2
fresh_target() { psql_ -d postgres -c "DROP DATABASE IF EXISTS sluice_clone_dst" -c "CREATE DATABASE sluice_clone_dst"; }
same() {
  local got; got="$(psql_ -d sluice_clone_dst -At -c "$check")"
  [ "$got" = "$expected" ] || { echo "$1 left the target with $got, the source has $expected" >&2; exit 1; }
}
url="jdbc:postgresql://$host:$port"
for j in $jobs; do
  cat > "$work/clone-$j.yaml" <<EOF
version: 1
name: schema-clone-$j
connections:
  src: { type: postgres, url: "$url/sluice_clone_src", user: "$role" }
  dst: { type: postgres, url: "$url/sluice_clone_dst", user: "$role" }
streams:
  - name: bench
    source: { connection: src, table: "bench.*" }
    target: { connection: dst, table: "bench.{table}", create: if-missing, objects: all }
    distribution: { method: none }
    degree: 1
    load-mode: truncate
max-parallel-streams: $j
EOF
done
# Builds the jar first if needed and makes the JVM's start-up cache (a plan records it), untimed, as for a user's runs.
fresh_target
"$root/sluice" plan "$work/clone-${jobs%% *}.yaml" >/dev/null
pg_uri="postgres://$role@$host:$port"
results="$work/results.txt"
for run in $(seq 1 "$runs"); do
  for j in $jobs; do
    fresh_target
    /usr/bin/time -o "$work/t" -f "%e %U %S" "$root/sluice" run "$work/clone-$j.yaml" > "$work/sluice.log" 2>&1 \
      || { tail -5 "$work/sluice.log" >&2; exit 1; }
    same sluice
    read -r wall cpu_user cpu_sys < "$work/t"
    echo "run $run sluice-mps$j wall $wall cpu $(echo "$cpu_user + $cpu_sys" | bc)" | tee -a "$results"
    fresh_target
    rm -rf "$work/pgcopydb"
    /usr/bin/time -o "$work/t" -f "%e %U %S" pgcopydb clone --source "$pg_uri/sluice_clone_src" \
      --target "$pg_uri/sluice_clone_dst" --table-jobs "$j" --index-jobs "$j" --dir "$work/pgcopydb" \
      > "$work/pgcopydb.log" 2>&1 || { tail -5 "$work/pgcopydb.log" >&2; exit 1; }
    same pgcopydb
    read -r wall cpu_user cpu_sys < "$work/t"
    echo "run $run pgcopydb-jobs$j wall $wall cpu $(echo "$cpu_user + $cpu_sys" | bc)" | tee -a "$results"
  done
done
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
echo "medians of $runs runs, scale $scale ($expected):"
for j in $jobs; do
  sw=$(awk -v k="sluice-mps$j" '$3 == k {print $5}' "$results" | median)
  sc=$(awk -v k="sluice-mps$j" '$3 == k {print $7}' "$results" | median)
  pw=$(awk -v k="pgcopydb-jobs$j" '$3 == k {print $5}' "$results" | median)
  pc=$(awk -v k="pgcopydb-jobs$j" '$3 == k {print $7}' "$results" | median)
  printf '  %s jobs: sluice wall %.2f s cpu %.2f s | pgcopydb wall %.2f s cpu %.2f s | wall %.2fx cpu %.2fx\n' \
    "$j" "$sw" "$sc" "$pw" "$pc" "$(echo "$sw / $pw" | bc -l)" "$(echo "$sc / $pc" | bc -l)"
done
