#!/bin/sh
# Prints the home of a JDK (java and javac) of at least the given feature release, default 21:
#   1. JAVA_HOME, when it is one;
#   2. else the JDK of the `java` on PATH, when it is one;
#   3. else the newest one installed in the usual places (/usr/lib/jvm, /usr/java, /opt, macOS, SDKMAN, IntelliJ).
# Exits 1, saying what it found, when there is none. `find-jdk.sh --major DIR` prints the feature release of a JDK folder;
# `--runtime` accepts a Java runtime without javac (a distribution's bin/sluice runs, it does not build).
# `--quiet` first leaves out the note about passing over JAVA_HOME or PATH (the launcher, which runs often). Says on stderr when it passes over JAVA_HOME or PATH, so a
# build on another JDK than the user expects is never silent.
# Used by ./mvnw (Maven and the build need Java 21; a machine's default java may be older), ./sluice and .ci/run.
# POSIX sh: mvnw runs under /bin/sh.
set -eu
quiet=""
runtime=""
while [ "${1:-}" = --quiet ] || [ "${1:-}" = --runtime ]; do
  [ "$1" = --quiet ] && quiet=1
  [ "$1" = --runtime ] && runtime=1
  shift
done
min="${1:-21}"

# The feature release of a JDK folder (17, 21, 25), from its release file, read by the shell itself (the launcher
# runs this on every command; a sed per JDK cost a process start each); a JVM is asked only without one.
major() {
  v=""
  if [ -f "$1/release" ]; then
    while IFS= read -r line || [ -n "$line" ]; do
      case "$line" in
        JAVA_VERSION=*)
          v="${line#JAVA_VERSION=}"
          v="${v#\"}"
          v="${v%%[!0-9]*}"
          break
          ;;
      esac
    done <"$1/release"
  fi
  if [ -z "$v" ] && [ -x "$1/bin/java" ]; then
    v="$("$1/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = \([0-9]*\).*/\1/p')"
  fi
  case "$v" in
    '' | *[!0-9]*) echo 0 ;;
    *) echo "$v" ;;
  esac
}

if [ "${1:-}" = --major ]; then
  major "$2"
  exit 0
fi

is_jdk() {
  [ -x "$1/bin/java" ] && { [ -n "$runtime" ] || [ -x "$1/bin/javac" ]; } && [ "$(major "$1")" -ge "$min" ]
}

passed=""
if [ -n "${JAVA_HOME:-}" ]; then
  if is_jdk "$JAVA_HOME"; then
    echo "$JAVA_HOME"
    exit 0
  fi
  passed="JAVA_HOME=$JAVA_HOME is Java $(major "$JAVA_HOME")"
fi

if command -v java >/dev/null 2>&1; then
  path_java="$(readlink -f "$(command -v java)")"
  path_home="${path_java%/*}"
  path_home="${path_home%/*}"
  if is_jdk "$path_home"; then
    echo "$path_home"
    exit 0
  fi
  passed="${passed:+$passed; }the java on PATH is Java $(major "$path_home")"
fi

best=""
best_major=0
for dir in /usr/lib/jvm/* /usr/java/* /opt/java/* /opt/jdk* /Library/Java/JavaVirtualMachines/*/Contents/Home \
  "${HOME:-/nonexistent}"/.sdkman/candidates/java/* "${HOME:-/nonexistent}"/.jdks/*; do
  [ -d "$dir" ] || continue
  is_jdk "$dir" || continue
  m="$(major "$dir")"
  if [ "$m" -gt "$best_major" ]; then
    best="$dir"
    best_major="$m"
  fi
done

if [ -z "$best" ]; then
  echo "no JDK $min or newer found (${passed:-JAVA_HOME is unset}; none in /usr/lib/jvm, /usr/java, /opt, SDKMAN)." >&2
  echo "  fix: install one (e.g. apt-get install openjdk-21-jdk-headless) or set JAVA_HOME to one" >&2
  exit 1
fi
[ -n "$quiet" ] || echo "using the JDK $best_major at $best (${passed:-JAVA_HOME is unset})" >&2
echo "$best"
