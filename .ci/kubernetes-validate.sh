#!/usr/bin/env bash
# Validates the Kubernetes examples (examples/kubernetes/*.yaml) offline against the Kubernetes API schema, strictly
# (an unknown field is an error): kubernetes-validate from PyPI carries the schemas, so no cluster and no download
# of schemas at run time. Installed into a virtualenv under .ci/cache/ (reused). Exits non-zero on any failure.
# Knobs: SLUICE_CI_CACHE (default .ci/cache), K8S_VERSIONS (default "1.30.0 1.33.0": the oldest and a recent release
# that have everything the example uses, backoffLimitPerIndex among it).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$ROOT/.ci/lib.sh"
VALIDATOR_VERSION=1.37.0
CACHE="${SLUICE_CI_CACHE:-$ROOT/.ci/cache}"
VENV="$CACHE/kubernetes-validate-$VALIDATOR_VERSION"

if [[ ! -x "$VENV/bin/kubernetes-validate" ]]; then
  PYTHON="$(pip_python)" || { echo "no Python 3 with pip; install python3-pip" >&2; exit 1; }
  rm -rf "$VENV"
  "$PYTHON" -m venv "$VENV"
  timeout 600 "$VENV/bin/pip" install -q --disable-pip-version-check "kubernetes-validate==$VALIDATOR_VERSION" \
    </dev/null || { echo "pip could not install kubernetes-validate==$VALIDATOR_VERSION" >&2; exit 1; }
fi

status=0
for version in ${K8S_VERSIONS:-1.30.0 1.33.0}; do
  for file in "$ROOT"/examples/kubernetes/*.yaml; do
    # --strict: unknown fields fail; the tool exits non-zero when a resource does not validate.
    "$VENV/bin/kubernetes-validate" --strict --no-warn -k "$version" "$file" || status=1
  done
done
exit "$status"
