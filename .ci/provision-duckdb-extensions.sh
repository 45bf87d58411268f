#!/usr/bin/env bash
# Lays out the DuckDB extensions the tests load offline, from the PyPI wheels duckdb-extension-<name>==1.5.5:
#   .ci/cache/duckdb-extensions/v1.5.5/<platform>/<name>.duckdb_extension
# Idempotent: extensions already in place are not fetched again. Runs from any working directory.
# Usage: bash .ci/provision-duckdb-extensions.sh [extension-name ...]   (default: httpfs tpch postgres_scanner iceberg avro delta)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DUCKDB_VERSION=1.5.5   # must match duckdb_jdbc 1.5.5.x in the parent pom: 1.5.6 refuses these files
CACHE="${SLUICE_CI_CACHE:-$ROOT/.ci/cache}"
WHEELS="$CACHE/wheels"
DEST="${SLUICE_DUCKDB_EXTENSIONS:-$CACHE/duckdb-extensions}"

# DUCKDB_PLATFORM=linux_arm64 (say) fetches another platform's files: the distribution ships linux_amd64 and linux_arm64.
if [[ -n "${DUCKDB_PLATFORM:-}" ]]; then
  PLATFORM="$DUCKDB_PLATFORM"
else
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) PLATFORM=linux_amd64 ;;
    Linux-aarch64 | Linux-arm64) PLATFORM=linux_arm64 ;;
    Darwin-arm64) PLATFORM=osx_arm64 ;;
    Darwin-x86_64) PLATFORM=osx_amd64 ;;
    *) echo "provision-duckdb-extensions: unsupported platform $(uname -s)-$(uname -m)" >&2; exit 1 ;;
  esac
fi
case "$PLATFORM" in
  linux_amd64) WHEEL_PLATFORM=manylinux2014_x86_64 ;;
  linux_arm64) WHEEL_PLATFORM=manylinux2014_aarch64 ;;
  osx_arm64) WHEEL_PLATFORM=macosx_11_0_arm64 ;;
  osx_amd64) WHEEL_PLATFORM=macosx_10_15_x86_64 ;;
  *) echo "provision-duckdb-extensions: unsupported platform $PLATFORM" >&2; exit 1 ;;
esac
OUT="$DEST/v$DUCKDB_VERSION/$PLATFORM"

# shellcheck source=lib.sh
source "$ROOT/.ci/lib.sh"
PYTHON=""   # looked up on first fetch only: a provisioned cache needs no Python

extensions=("$@")
if [[ ${#extensions[@]} -eq 0 ]]; then
  extensions=(httpfs tpch postgres_scanner iceberg avro delta)
fi

mkdir -p "$OUT" "$WHEELS"
for name in "${extensions[@]}"; do
  target="$OUT/$name.duckdb_extension"
  if [[ -s "$target" ]]; then
    echo "duckdb extension $name: present ($target)"
    continue
  fi
  package="duckdb-extension-${name//_/-}==$DUCKDB_VERSION"
  echo "duckdb extension $name: fetching $package"
  if [[ -z "$PYTHON" ]]; then
    PYTHON="$(pip_python)" || {
      echo "provision-duckdb-extensions: DuckDB extension $name is not in $OUT, and fetching it needs python3 with pip" >&2
      echo "  fix: install python3-pip, or point SLUICE_DUCKDB_EXTENSIONS at a directory that holds" \
        "v$DUCKDB_VERSION/$PLATFORM/$name.duckdb_extension" >&2
      exit 1
    }
  fi
  PIP_DISABLE_PIP_VERSION_CHECK=1 "$PYTHON" -m pip download --quiet --no-input --progress-bar off \
    --no-deps --only-binary=:all: --platform "$WHEEL_PLATFORM" --dest "$WHEELS" "$package" || {
    echo "provision-duckdb-extensions: DuckDB extension $name is not in $OUT, and pip could not download $package" >&2
    echo "  fix: check the package index is reachable (pip's own message is above), or point SLUICE_DUCKDB_EXTENSIONS" \
      "at a directory that holds v$DUCKDB_VERSION/$PLATFORM/$name.duckdb_extension" >&2
    exit 1
  }
  wheel="$(ls -t "$WHEELS"/duckdb_extension_"$name"-"$DUCKDB_VERSION"-*"${WHEEL_PLATFORM#*_}"*.whl 2>/dev/null | head -n 1 || true)"
  if [[ -z "$wheel" ]]; then
    echo "provision-duckdb-extensions: pip did not leave a wheel for $package in $WHEELS" >&2
    exit 1
  fi
  # Extract to a temporary name, then rename: an interrupted run never leaves a truncated extension behind.
  "$PYTHON" - "$wheel" "$name" "v$DUCKDB_VERSION" "$target.part" <<'PY'
import shutil, sys, zipfile
wheel, name, version, out = sys.argv[1:]
suffix = f"/extensions/{version}/{name}.duckdb_extension"
with zipfile.ZipFile(wheel) as z:
    members = [m for m in z.namelist() if m.endswith(suffix)]
    if len(members) != 1:
        sys.exit(f"{wheel}: expected one *{suffix}, found {members}")
    with z.open(members[0]) as src, open(out, "wb") as dst:
        shutil.copyfileobj(src, dst)
PY
  mv -f "$target.part" "$target"
  echo "duckdb extension $name: installed $target"
done
