#!/usr/bin/env bash
# Starts Sluice from its extracted layout (plain jars side by side, which start faster than the nested fat jar) with
# the JVM options and start-up cache below. Shared by ./sluice (a checkout, after it built) and bin/sluice (a
# distribution, where this file is lib/launch.sh). JAVA_HOME must be set to a Java 21+ runtime.
# Usage: launch.sh APP_JAR CACHE_DIR [JVM_OPTION...] -- SLUICE_ARGS...
#   APP_JAR    the application's jar in its extracted folder (beside lib/, and native/libduckdb_java.so when split out)
#   CACHE_DIR  where the start-up cache lives; "" or a folder that cannot be written: none is recorded
# The start-up cache, made after the first successful `plan` or `run` and mapped by later commands: on JDK 25+ an AOT
# cache (classes loaded and linked, lambdas resolved, method profiles), else a class-data-sharing archive (classes
# parsed and verified). SLUICE_STARTUP_CACHE=off turns it off. SLUICE_JAVA_OPTS replaces the default JVM options.
set -euo pipefail
# Parameter expansions rather than dirname, sed and cut: each process started here is a millisecond or more of
# every command's start.
here="${BASH_SOURCE[0]%/*}"
[ "$here" != "${BASH_SOURCE[0]}" ] || here=.
here="$(cd "$here" && pwd)"
app="$1"
dir="$2"
shift 2
case "$app" in /*) ;; *) app="$PWD/$app" ;; esac # the training below runs in a folder of its own
case "$dir" in /* | "") ;; *) dir="$PWD/$dir" ;; esac
extracted="${app%/*}"
extra_opts=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
  extra_opts+=("$1")
  shift
done
[ $# -gt 0 ] && shift
# The runtime's feature release and build, from its release file (find-jdk.sh asks the JVM when there is none).
jdk_major="" jdk_runtime=""
if [ -f "$JAVA_HOME/release" ]; then
  while IFS= read -r line || [ -n "$line" ]; do
    case "$line" in
      JAVA_VERSION=*)
        jdk_major="${line#JAVA_VERSION=}"
        jdk_major="${jdk_major#\"}"
        jdk_major="${jdk_major%%[!0-9]*}"
        ;;
      JAVA_RUNTIME_VERSION=*) jdk_runtime="${line#JAVA_RUNTIME_VERSION=}" ;;
    esac
  done <"$JAVA_HOME/release"
fi
[ -n "$jdk_major" ] || jdk_major="$(sh "$here/find-jdk.sh" --major "$JAVA_HOME")"

# SLUICE_JAVA_OPTS replaces the default JVM flags. SerialGC: a copy allocates one short-lived array per row, and
# with a small heap the serial collector cost ~30 % less CPU than G1 for the same wall time. CompileThresholdScaling=4:
# the JIT compiled hundreds of start-up methods that run a few thousand times and never again; at 4x the thresholds
# only the copy loops get there, and a run costs about 0.5 CPU-seconds less on both the PostgreSQL and the Parquet
# path (docs/benchmarks.md, "JVM options"). The Tier4 thresholds (10x the JDK's, then scaled): the optimizing
# compiler still spent 1.3 of 4.7 CPU-seconds copying 1,000 small tables on the per-table code, which C1 runs well
# enough; a copy's loops pass even these within a fraction of a second (1,000 tables: about 13 % less CPU; lineitem
# and orders at SF 1 no slower; docs/benchmarks.md, "A thousand tables").
read -r -a java_opts <<<"${SLUICE_JAVA_OPTS:--XX:+UseSerialGC -XX:CompileThresholdScaling=4 \
-XX:Tier4InvocationThreshold=50000 -XX:Tier4MinInvocationThreshold=6000 -XX:Tier4CompileThreshold=150000 \
-XX:Tier4BackEdgeThreshold=400000}"
# DuckDB loads a JNI library and its reader copies strings with the FFM API: both are restricted methods, which
# JDK 24+ allows only with a warning on stderr unless native access is enabled.
java_opts+=(--enable-native-access=ALL-UNNAMED)
# When main returns, the JVM waits up to 300 ms for threads running native code to stop; the virtual threads' socket
# poller always sits in epoll_wait, so every run paid the full 300 ms after its summary. JDK 22+ can skip the wait
# (such threads are stopped anyway when they come back into Java); JDK 21 has no such flag.
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
record_opts=()
cache="" cache_tmp="" aot_config=""
# The JVM says nothing about its cache: a run's stdout and stderr are the user's (JSON summaries, JSON logs).
aot_quiet=(-XX:+UnlockDiagnosticVMOptions -XX:-DisplayVMOutput -Xlog:aot=off -Xlog:cds=off)
if [ "${SLUICE_STARTUP_CACHE:-on}" != off ]; then
  # One cache per JDK build and option set: the JVM refuses a cache made by another JDK or under other flags.
  key="$(printf '%s|%s|%s' "$JAVA_HOME" "$jdk_runtime" "${java_opts[*]}" | cksum)"
  key="${key%% *}"
  recordable=""
  # Recorded after a successful `plan` or `run`, never by the user's command: a JVM that records ran a copy of 1,000
  # tables 2.3x slower (124.6 s against 54.7 s), and a user's first run may be their biggest. The recording JVM is one
  # of its own that plans and runs a small pipeline on an embedded PostgreSQL (StartupTraining), so the cache holds
  # what a run uses whatever the user's spec reads.
  if { [ "$command" = plan ] || [ "$command" = run ]; } && [ -n "$dir" ] && [ ! -e "$dir/$key.failed" ] \
      && mkdir -p "$dir" 2>/dev/null && [ -w "$dir" ]; then
    recordable=1
  fi
  if [ "$jdk_major" -ge 25 ] 2>/dev/null; then
    # JDK 25's AOT cache (JEPs 483, 514, 515): against the archive below, an empty copy started about 0.1 s sooner
    # (10 alternating runs each: 0.54-0.62 s against 0.65-0.78 s; docs/operations.md, "Start-up").
    cache="$dir/$key.aot"
    if [ -f "$cache" ]; then
      cache_opts=(-XX:AOTCache="$cache" -Xlog:aot=off -Xlog:cds=off)
    elif [ -n "$recordable" ]; then
      # The training JVM records what it does; the cache is made from that afterwards (about 2 s, once).
      aot_config="$dir/$key.$$.aotconf"
      cache_tmp="$cache.$$.tmp"
      record_opts=(-XX:AOTMode=record -XX:AOTConfiguration="$aot_config" "${aot_quiet[@]}")
    fi
  else
    cache="$dir/$key.jsa"
    if [ -f "$cache" ]; then
      cache_opts=(-XX:SharedArchiveFile="$cache" -Xlog:cds=off)
    elif [ -n "$recordable" ]; then
      # Written by the training JVM when it exits, and moved into place only when complete.
      cache_tmp="$cache.$$.tmp"
      record_opts=(-XX:ArchiveClassesAtExit="$cache_tmp" -Xlog:cds=off)
    fi
  fi
fi

# A command that copies nothing (plan, lint, status, rejects, connectors, version) runs its per-table work once and
# exits: the optimizing compiler's work on it is never paid back (10,000 tables planned: 5.9 s of CPU with it, 3.3 s
# without). The start-up cache is the same either way (the JVM accepts a cache under either), and its key is the run's
# options. With SLUICE_JAVA_OPTS the user's options are used as they are.
command_opts=()
if [ -z "${SLUICE_JAVA_OPTS:-}" ]; then
  case "$command" in
    plan|lint|status|rejects|connectors|version) command_opts=(-XX:TieredStopAtLevel=1) ;;
  esac
fi

if [ -z "$cache_tmp" ]; then
  exec "$JAVA_HOME/bin/java" "${java_opts[@]}" "${command_opts[@]+"${command_opts[@]}"}" \
    "${cache_opts[@]+"${cache_opts[@]}"}" -jar "$app" "$@"
fi

# No cache yet: the command runs as a child (signals go on to it, so Ctrl-C and an orchestrator's SIGTERM still stop
# it cleanly; its exit code is ours), then the training JVM records the cache.
child="" stopping=""
trap 'stopping=1; [ -z "$child" ] || kill -TERM "$child" 2>/dev/null' TERM
trap 'stopping=1; [ -z "$child" ] || kill -INT "$child" 2>/dev/null' INT
# Runs "$@" as the child and waits for it, also through trapped signals; its exit status is in $status.
run_child() {
  status=0
  "$@" &
  child=$!
  wait "$child" || status=$?
  while kill -0 "$child" 2>/dev/null; do # wait returns early when a trapped signal arrives
    wait "$child" || status=$?
  done
  child=""
}
run_child "$JAVA_HOME/bin/java" "${java_opts[@]}" "${command_opts[@]+"${command_opts[@]}"}" -jar "$app" "$@" <&0
command_status=$status
# One process trains at a time (tasks started side by side on a new install would each start an embedded server);
# the others go on without a cache, as before it exists. A lock older than ten minutes was left by a killed launcher.
training="$dir/$key.training"
if [ "$command_status" -eq 0 ] && [ -z "$stopping" ] && { mkdir "$training" 2>/dev/null || {
      [ -n "$(find "$training" -maxdepth 0 -mmin +10 2>/dev/null)" ] && rm -rf "$training" && mkdir "$training"; }; }
then
  # In that folder, which is also its working directory, with no environment of the user's but the paths: no
  # telemetry, lineage, metrics or Boot settings reach a pipeline nobody asked for. Its output is nobody's.
  # (Not a subshell: the traps above must reach the training JVM too.)
  if cd "$training"; then
    training="$PWD"
    run_child env -i PATH="$PATH" HOME="${HOME:-$training}" ${TMPDIR:+TMPDIR="$TMPDIR"} \
      "$JAVA_HOME/bin/java" "${java_opts[@]}" "${record_opts[@]}" -Dsluice.startup-training="$training" \
      -jar "$app" </dev/null >/dev/null 2>&1
    cd / # the folder goes below
  fi
  # Stopped meanwhile (Ctrl-C, an orchestrator's SIGTERM): nothing more is started, nothing half-made is kept.
  if [ "$status" -eq 0 ] && [ -z "$stopping" ] && [ -n "$aot_config" ] && [ -s "$aot_config" ]; then
    # A cache that cannot be made is not tried again for this JDK and options: training costs every such run seconds.
    run_child "$JAVA_HOME/bin/java" "${java_opts[@]}" -XX:AOTMode=create -XX:AOTConfiguration="$aot_config" \
      -XX:AOTCache="$cache_tmp" "${aot_quiet[@]}" -jar "$app" </dev/null >/dev/null 2>&1
    [ "$status" -eq 0 ] || [ -n "$stopping" ] || touch "$dir/$key.failed"
  fi
  if [ "$status" -eq 0 ] && [ -z "$stopping" ] && [ -s "$cache_tmp" ]; then mv -f "$cache_tmp" "$cache"; fi
  rm -rf "$training"
fi
rm -f "$cache_tmp"
[ -z "$aot_config" ] || rm -f "$aot_config"
exit "$command_status"
