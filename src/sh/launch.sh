#!/usr/bin/env bash
# Starts Sluice from its extracted layout (plain jars side by side, which start faster than the nested fat jar) with
# the JVM options and start-up cache below. Shared by ./sluice (a checkout, after it built) and bin/sluice (a
# distribution, where this file is lib/launch.sh). JAVA_HOME must be set to a Java 21+ runtime.
# Usage: launch.sh APP_JAR CACHE_DIR [JVM_OPTION...] -- SLUICE_ARGS...
#   APP_JAR    the application's jar in its extracted folder (beside lib/, and native/libduckdb_java.so when split out)
#   CACHE_DIR  where the start-up cache lives; "" or a folder that cannot be written: none is recorded
# The start-up cache, written by the first successful `plan` and mapped by later commands: on JDK 25+ an AOT cache
# (classes loaded and linked, lambdas resolved, method profiles), else a class-data-sharing archive (classes parsed
# and verified). SLUICE_STARTUP_CACHE=off turns it off. SLUICE_JAVA_OPTS replaces the default JVM options.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
app="$1"
extracted="$(dirname "$app")"
dir="$2"
shift 2
extra_opts=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
  extra_opts+=("$1")
  shift
done
[ $# -gt 0 ] && shift
java_major() {
  sh "$here/find-jdk.sh" --major "$1"
}

# SLUICE_JAVA_OPTS replaces the default JVM flags. SerialGC: a copy allocates one short-lived array per row, and
# with a small heap the serial collector cost ~30 % less CPU than G1 for the same wall time. CompileThresholdScaling=4:
# the JIT compiled hundreds of start-up methods that run a few thousand times and never again; at 4x the thresholds
# only the copy loops get there, and a run costs about 0.5 CPU-seconds less on both the PostgreSQL and the Parquet
# path (docs/benchmarks.md, "JVM options").
read -r -a java_opts <<<"${SLUICE_JAVA_OPTS:--XX:+UseSerialGC -XX:CompileThresholdScaling=4}"
# DuckDB loads a JNI library and its reader copies strings with the FFM API: both are restricted methods, which
# JDK 24+ allows only with a warning on stderr unless native access is enabled.
java_opts+=(--enable-native-access=ALL-UNNAMED)
# When main returns, the JVM waits up to 300 ms for threads running native code to stop; the virtual threads' socket
# poller always sits in epoll_wait, so every run paid the full 300 ms after its summary. JDK 22+ can skip the wait
# (such threads are stopped anyway when they come back into Java); JDK 21 has no such flag.
jdk_major="$(java_major "$JAVA_HOME")"
if [ "$jdk_major" -ge 22 ] 2>/dev/null; then
  java_opts+=(-XX:UserThreadWaitAttemptsAtExit=0)
fi
if [ -f "$extracted/native/libduckdb_java.so" ]; then
  java_opts+=(-Djava.library.path="$extracted/native")
fi
java_opts+=(${extra_opts[@]+"${extra_opts[@]}"})
command=""
for arg in "$@"; do
  case "$arg" in -*) ;; *) command="$arg"; break ;; esac
done

cache_opts=()
cache="" cache_tmp="" aot_config=""
# The JVM says nothing about its cache: a run's stdout and stderr are the user's (JSON summaries, JSON logs).
aot_quiet=(-XX:+UnlockDiagnosticVMOptions -XX:-DisplayVMOutput -Xlog:aot=off -Xlog:cds=off)
if [ "${SLUICE_STARTUP_CACHE:-on}" != off ]; then
  # One cache per JDK build and option set: the JVM refuses a cache made by another JDK or under other flags.
  key="$(printf '%s|%s|%s' "$JAVA_HOME" "$(sed -n 's/^JAVA_RUNTIME_VERSION=//p' "$JAVA_HOME/release" 2>/dev/null)" \
      "${java_opts[*]}" | cksum | cut -d' ' -f1)"
  recordable=""
  # Recorded by a `plan`, not a `run`: a JVM that records ran a copy of 1,000 tables 2.3x slower (124.6 s against
  # 54.7 s), and a user's first run may be their biggest. A plan connects, describes and plans: most of what a
  # run loads; with sluice.startup-training it also loads the rest of Sluice's and PgJDBC's classes (StartupTraining).
  if [ "$command" = plan ] && [ -n "$dir" ] && [ ! -e "$dir/$key.failed" ] && mkdir -p "$dir" 2>/dev/null \
      && [ -w "$dir" ]; then
    recordable=1
  fi
  if [ "$jdk_major" -ge 25 ] 2>/dev/null; then
    # JDK 25's AOT cache (JEPs 483, 514, 515): against the archive below, an empty copy started about 0.1 s sooner
    # (10 alternating runs each: 0.54-0.62 s against 0.65-0.78 s; docs/operations.md, "Start-up").
    cache="$dir/$key.aot"
    if [ -f "$cache" ]; then
      cache_opts=(-XX:AOTCache="$cache" -Xlog:aot=off -Xlog:cds=off)
    elif [ -n "$recordable" ]; then
      # This plan records what it loads; the cache is made from that after it succeeded (about 2 s, once).
      aot_config="$dir/$key.$$.aotconf"
      cache_tmp="$cache.$$.tmp"
      cache_opts=(-XX:AOTMode=record -XX:AOTConfiguration="$aot_config" "${aot_quiet[@]}"
        -Dsluice.startup-training=true)
    fi
  else
    cache="$dir/$key.jsa"
    if [ -f "$cache" ]; then
      cache_opts=(-XX:SharedArchiveFile="$cache" -Xlog:cds=off)
    elif [ -n "$recordable" ]; then
      # Written by this run when it exits, and moved into place only when complete.
      cache_tmp="$cache.$$.tmp"
      cache_opts=(-XX:ArchiveClassesAtExit="$cache_tmp" -Xlog:cds=off -Dsluice.startup-training=true)
    fi
  fi
fi

# A command that copies nothing (plan, lint, status, rejects, connectors, version) runs its per-table work once and
# exits: the optimizing compiler's work on it is never paid back (10,000 tables planned: 5.9 s of CPU with it, 3.3 s
# without). The start-up cache is the same either way, so a plan that records it keeps the run's options, and the
# cache's key is theirs. With SLUICE_JAVA_OPTS the user's options are used as they are.
if [ -z "$cache_tmp" ] && [ -z "${SLUICE_JAVA_OPTS:-}" ]; then
  case "$command" in
    plan|lint|status|rejects|connectors|version) java_opts+=(-XX:TieredStopAtLevel=1) ;;
  esac
fi

if [ -z "$cache_tmp" ]; then
  exec "$JAVA_HOME/bin/java" "${java_opts[@]}" "${cache_opts[@]}" -jar "$app" "$@"
fi

# Recording run: the cache is finished after the JVM exits, then moved into place, so java runs as a child; signals
# go on to it (Ctrl-C and an orchestrator's SIGTERM still stop the copy cleanly) and its exit code is ours.
"$JAVA_HOME/bin/java" "${java_opts[@]}" "${cache_opts[@]}" -jar "$app" "$@" <&0 &
child=$!
trap 'kill -TERM "$child" 2>/dev/null' TERM
trap 'kill -INT "$child" 2>/dev/null' INT
status=0
wait "$child" || status=$?
while kill -0 "$child" 2>/dev/null; do # wait returns early when a trapped signal arrives
  wait "$child" || status=$?
done
# Kept only from a plan that succeeded: one that stopped early never loaded the planner's classes.
if [ "$status" -eq 0 ] && [ -n "$aot_config" ] && [ -s "$aot_config" ]; then
  # A cache that cannot be made is not tried again for this JDK and options: recording costs every run ~2 s.
  "$JAVA_HOME/bin/java" "${java_opts[@]}" -XX:AOTMode=create -XX:AOTConfiguration="$aot_config" \
      -XX:AOTCache="$cache_tmp" "${aot_quiet[@]}" -jar "$app" </dev/null >/dev/null 2>&1 || touch "$dir/$key.failed"
fi
if [ "$status" -eq 0 ] && [ -s "$cache_tmp" ]; then mv -f "$cache_tmp" "$cache"; else rm -f "$cache_tmp"; fi
[ -z "$aot_config" ] || rm -f "$aot_config"
exit "$status"
