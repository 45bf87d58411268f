#!/usr/bin/env bash
# Release notes from CHANGELOG.md: the section of VERSION (its heading names it, "## 0.1.0" or "## Unreleased (0.1.0)"),
# under a title naming the version, with the checksums and the install commands a download page needs.
# Usage: release-notes.sh VERSION CHANGELOG OUT
set -euo pipefail
version="$1" changelog="$2" out="$3"
release="${version%-SNAPSHOT}"
section="$(awk -v v="$release" '
  /^## / { if (inside) exit; if (index($0, v) > 0) { inside = 1; next } }
  inside { print }
' "$changelog")"
if [ -z "$(printf '%s' "$section" | tr -d '[:space:]')" ]; then
  echo "release-notes: CHANGELOG.md has no section for $release (a heading such as '## $release' or '## Unreleased ($release)')" >&2
  exit 1
fi
{
  echo "# Sluice $version"
  echo
  echo "Install: unpack \`sluice-$version.tar.gz\` (or \`.zip\`) anywhere and run \`bin/sluice\`; it needs a Java 21+"
  echo "runtime. Check a download with \`sha256sum -c SHA256SUMS\`. The container image: \`docker load -i"
  echo "sluice-image-$version.tar\` (linux/amd64; \`-arm64.tar\` for linux/arm64; \`-multiarch.tar\`, an OCI layout of"
  echo "both, pushed under one tag with \`skopeo copy --all oci-archive:...\`). What is inside: \`sbom/bom.json\` (CycloneDX)."
  echo
  printf '%s\n' "$section"
} >"$out"
echo "release notes: $out"
