#!/usr/bin/env bash
# Makes a release of Sluice, or rehearses one (--dry-run, which CI runs on every change):
#   bash src/release/release.sh VERSION [--dry-run] [--image]
# In a temporary worktree of HEAD (the checkout is not touched) it sets VERSION in every pom and in the Airflow
# provider, dates CHANGELOG.md's "Unreleased (VERSION)" section, builds the archives, checksums, SBOM and release
# notes (runner/runner-dist), the provider's wheel and sdist (checked with twine), and with --image the container
# images (amd64, arm64, and the OCI layout indexing both); then checks what it built: the checksums, `bin/sluice
# version` of the unpacked archive, the SBOM's version, the notes' heading. Artifacts: target/release/VERSION/ (target/release-dry-run/VERSION/ for a rehearsal).
# A real release also commits the version and the changelog in that worktree and tags it v<VERSION>; it pushes and
# publishes nothing: RELEASING.md says what to upload where (credentials stay outside the repository).
set -euo pipefail
usage() { echo "usage: bash src/release/release.sh VERSION [--dry-run] [--image]" >&2; exit 2; }
[[ $# -ge 1 ]] || usage
version="$1"; shift
dry_run=false image=false
for arg in "$@"; do
  case "$arg" in
    --dry-run) dry_run=true ;;
    --image) image=true ;;
    *) usage ;;
  esac
done
fail() { echo "release: $*" >&2; exit 1; }
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.]+)?$ ]] || fail "VERSION must look like 1.2.3 or 1.2.3-rc.1, not '$version'"
[[ "$version" != *-SNAPSHOT ]] || fail "a release version has no -SNAPSHOT"

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
if ! $dry_run; then
  [[ -z "$(git status --porcelain)" ]] || fail "the checkout has uncommitted changes: a release is made from a commit"
  ! git rev-parse -q --verify "refs/tags/v$version" >/dev/null || fail "tag v$version exists already"
fi
grep -Eq "^## (Unreleased \($version\)|$version)( |$)" CHANGELOG.md ||
  fail "CHANGELOG.md has no section '## Unreleased ($version)' (or '## $version'): write the release's entries first"

kind=release; $dry_run && kind=release-dry-run
out="$root/target/$kind/$version"
work="$(mktemp -d "${TMPDIR:-/tmp}/sluice-release-XXXXXX")"
cleanup() { git -C "$root" worktree remove --force "$work" >/dev/null 2>&1 || rm -rf "$work"; }
trap cleanup EXIT
git worktree add -q --detach "$work" HEAD
cd "$work"
export SLUICE_CI_CACHE="${SLUICE_CI_CACHE:-$root/.ci/cache}"   # the checkout's downloads, reused
step() { printf '\n== release %s: %s\n' "$version" "$*"; }

step "set the version"
profiles=(); $image && profiles=(-Pimage)
./mvnw -B -ntp -q org.codehaus.mojo:versions-maven-plugin:2.18.0:set -DnewVersion="$version" \
  -DgenerateBackupPoms=false -DprocessAllModules=true -Pimage
sed -i.bak -E "s|<project.build.outputTimestamp>.*</project.build.outputTimestamp>|<project.build.outputTimestamp>$(date -u +%Y-%m-%dT%H:%M:%SZ)</project.build.outputTimestamp>|" pom.xml
sed -i.bak -E "s/^version = \".*\"/version = \"$version\"/" src/airflow-provider/pyproject.toml
sed -i.bak -E "s/^## Unreleased \($version\)/## $version ($(date -u +%Y-%m-%d))/" CHANGELOG.md
rm -f pom.xml.bak src/airflow-provider/pyproject.toml.bak CHANGELOG.md.bak
[[ -z "$(git grep -l -- "-SNAPSHOT" -- '*pom.xml')" ]] || fail "a pom still names a -SNAPSHOT version"

step "build the distribution"
if $image; then
  ./mvnw -B -ntp package -DskipTests "${profiles[@]}" -pl runner/runner-dist,runner/runner-image -am
else
  ./mvnw -B -ntp package -DskipTests -pl runner/runner-dist -am
fi

step "build the Airflow provider"
# shellcheck source=../../.ci/lib.sh
source "$work/.ci/lib.sh"
python="$(pip_python)" || fail "no Python 3 with pip (Debian: apt-get install python3-pip)"
tools="$SLUICE_CI_CACHE/release-python"
if [[ ! -d "$tools/build" || ! -d "$tools/twine" || ! -d "$tools/setuptools" ]]; then
  "$python" -m pip install -q --disable-pip-version-check --root-user-action=ignore --no-warn-script-location \
    --target "$tools" build twine setuptools wheel
fi
provider="$work/target/provider"
# --no-isolation: the build backend (setuptools) comes from the same folder; no virtualenv needed
PYTHONPATH="$tools" "$python" -m build -q --sdist --wheel --no-isolation --outdir "$provider" src/airflow-provider
PYTHONPATH="$tools" "$python" -m twine check --strict "$provider"/*

step "check what was built"
dist="$work/runner/runner-dist/target"
(cd "$dist" && sha256sum -c SHA256SUMS)
unpacked="$work/target/unpacked"
mkdir -p "$unpacked"
tar xzf "$dist/sluice-$version.tar.gz" -C "$unpacked"
printed="$(HOME="$unpacked" "$unpacked/sluice-$version/bin/sluice" version)"
grep -q "$version" <<<"$printed" || fail "bin/sluice version printed '$printed', not $version"
grep -q "\"version\" *: *\"$version\"" "$unpacked/sluice-$version/sbom/bom.json" || fail "the SBOM does not name $version"
head -1 "$dist/sluice-$version-release-notes.md" | grep -qx "# Sluice $version" || fail "the release notes' heading"
[[ -f "$unpacked/sluice-$version/docs/index.html" ]] || fail "the archive holds no docs/index.html"
ls "$provider"/airflow_provider_sluice-"$version"-py3-none-any.whl "$provider"/airflow_provider_sluice-"$version".tar.gz >/dev/null

step "collect the artifacts"
rm -rf "$out"; mkdir -p "$out"
cp "$dist/sluice-$version.tar.gz" "$dist/sluice-$version.zip" "$dist/SHA256SUMS" "$dist/bom.json" \
  "$dist/sluice-$version-release-notes.md" "$provider"/* "$out/"
$image && cp "$work/runner/runner-image/target/sluice-image-$version.tar" \
  "$work/runner/runner-image/target/sluice-image-$version-arm64.tar" \
  "$work/runner/runner-image/target/sluice-image-$version-multiarch.tar" "$out/"

if ! $dry_run; then
  step "commit and tag"
  git add -A
  git -c user.name="${GIT_AUTHOR_NAME:-Sluice release}" -c user.email="${GIT_AUTHOR_EMAIL:-release@sluice.invalid}" \
    commit -q -m "Release $version"
  git tag -a "v$version" -m "Sluice $version"
  echo "tagged v$version at $(git rev-parse --short HEAD) (not on any branch: push the tag, then merge it, RELEASING.md)"
fi
step "done: $out"
ls -l "$out"
