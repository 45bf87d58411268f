#!/usr/bin/env bash
# The benchmark harness in one command (see docs/benchmarks.md). Builds the Sluice CLI jar and this module when
# missing or older than the sources, lays out the DuckDB extensions offline, then runs the harness:
#   bash runner/runner-bench/bench.sh [--scale 1] [--runs 3] [--scenarios REGEX] [--help]
# or the JMH micro-benchmarks (default: all of io.sluice.bench.jmh; JMH's own options pass through):
#   bash runner/runner-bench/bench.sh --jmh [REGEX] [-f 1 -wi 3 -i 5 ...]
# SLUICE_BENCH_NO_BUILD=1 skips the build step; SLUICE_BENCH_JAVA_OPTS adds JVM options to the harness JVM.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
module="$root/runner/runner-bench"
app_jar="$root/runner/runner-app/target/sluice.jar"
classpath_file="$module/target/runtime-classpath.txt"

java_major() { "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p'; }

find_java() {
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ] && [ "$(java_major "$JAVA_HOME/bin/java")" -ge 21 ] 2>/dev/null; then
    echo "$JAVA_HOME"; return
  fi
  local best="" best_v=0 dir v
  for dir in /usr/lib/jvm/* /opt/java/* /opt/jdk* "$HOME"/.sdkman/candidates/java/*; do
    [ -x "$dir/bin/java" ] && [ -x "$dir/bin/javac" ] || continue
    v="$(java_major "$dir/bin/java")"
    if [ "${v:-0}" -ge 21 ] 2>/dev/null && [ "$v" -gt "$best_v" ]; then best="$dir"; best_v="$v"; fi
  done
  [ -n "$best" ] || { echo "bench: needs a JDK 21 or newer; set JAVA_HOME" >&2; exit 2; }
  echo "$best"
}
export JAVA_HOME="$(find_java)"

# Stale when missing or when a pom or main source of the project is newer than it.
stale() {
  [ -f "$1" ] || return 0
  [ -n "$(find "$root/pom.xml" "$root/runner" "$root/connectors" -newer "$1" \
      \( -name pom.xml -o -path '*/src/main/*' \) -not -path '*/target/*' -type f -print -quit 2>/dev/null)" ]
}
if [ -z "${SLUICE_BENCH_NO_BUILD:-}" ] && { stale "$app_jar" || stale "$classpath_file"; }; then
  echo "bench: building the Sluice CLI and the harness (./mvnw install -DskipTests)..." >&2
  (cd "$root" && ./mvnw -B -q -pl runner/runner-app,runner/runner-bench -am install -DskipTests >&2)
fi
[ -f "$classpath_file" ] || { echo "bench: $classpath_file is missing; build failed?" >&2; exit 2; }
classpath="$module/target/classes:$(cat "$classpath_file")"
java_opts=(--enable-native-access=ALL-UNNAMED ${SLUICE_BENCH_JAVA_OPTS:-})

if [ "${1:-}" = "--jmh" ]; then
  shift
  if [ $# -eq 0 ]; then set -- 'io\.sluice\.bench\.jmh\.'; fi
  exec "$JAVA_HOME/bin/java" "${java_opts[@]}" -cp "$classpath" org.openjdk.jmh.Main "$@"
fi

# tpch is required; httpfs (S3 scenarios) and postgres_scanner (DuckDB baselines) are reported as skipped if absent.
bash "$root/.ci/provision-duckdb-extensions.sh" tpch >&2
bash "$root/.ci/provision-duckdb-extensions.sh" httpfs postgres_scanner >&2 \
  || echo "bench: httpfs/postgres_scanner could not be provisioned; those scenarios will be reported as skipped" >&2

# DuckDB as a whole process (PyPI's duckdb at the embedded engine's version), for the whole-process baselines.
if duckdb_python="$(bash "$module/provision-duckdb-python.sh" "$module/target/bench-work/duckdb-python")"; then
  export SLUICE_BENCH_DUCKDB_PYTHON="$duckdb_python"
else
  echo "bench: no Python with duckdb; the whole-process DuckDB baselines will be reported as skipped" >&2
fi

exec "$JAVA_HOME/bin/java" "${java_opts[@]}" -cp "$classpath" io.sluice.bench.BenchMain --repo "$root" "$@"
