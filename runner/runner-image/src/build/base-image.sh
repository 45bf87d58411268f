#!/usr/bin/env bash
# Builds the base of Sluice's image for one architecture, without root, a Docker daemon or a registry, as a
# `docker save` tarball Jib reads (tar://): the files of a short list of Debian 13 (trixie) packages (C and C++
# libraries, a shell and the few commands the launcher uses, time zones, CA certificates; no package manager) and a
# Java 25 runtime jlinked from Debian's OpenJDK jmods for that architecture with the modules Sluice needs, in
# /opt/java. Nothing of the target architecture is run, so the arm64 base builds on an amd64 machine; the same
# packages give the same bytes (BaseImage.java). docs/operations.md, "Container image".
# Usage: base-image.sh ARCH OUT_TAR DIST_LIB    ARCH amd64|arm64; DIST_LIB the distribution's lib/app/lib (commons-
# compress for BaseImage.java). The jlink is $JAVA_HOME's (or the java on PATH's), which must be a JDK 25 as the jmods
# are. Debian's archive by apt, as any user, with a state folder of its own under $SLUICE_CI_CACHE/image-apt/ARCH
# (kept: packages are downloaded once); SLUICE_DEBIAN_MIRROR and SLUICE_DEBIAN_SECURITY_MIRROR pick other mirrors.
set -euo pipefail
arch="$1" out="$2" dist_lib="$3"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../../.." && pwd)"
case "$arch" in
  amd64) triplet=x86_64-linux-gnu ;;
  arm64) triplet=aarch64-linux-gnu ;;
  *) echo "base-image: unknown architecture '$arch'; fix: amd64 or arm64" >&2; exit 2 ;;
esac
# What the image runs: the JVM and DuckDB's and its extensions' native code (C and C++ runtimes, zlib), the launcher
# (bash; rm, mkdir, mv, touch, env, find, sed, cut, readlink, dirname), /bin/sh, time zones, CA certificates, and what
# those link. base-files gives /etc/os-release, netbase /etc/services and /etc/protocols. The check below fails the
# build when a library any of them links is missing.
packages=(base-files netbase tzdata ca-certificates libc6 libgcc-s1 libstdc++6 zlib1g bash dash coreutils findutils
  sed grep libacl1 libattr1 libselinux1 libpcre2-8-0 libgmp10 libtinfo6 libssl3t64 libcap2 libzstd1 liblzma5 libsystemd0)
# jdeps --print-module-deps over the distribution's jars, and: JAAS's Kerberos login (PgJDBC's GSS), every charset a
# source may declare, jcmd and attach (thread dumps and JFR of a running container).
modules=java.base,java.compiler,java.desktop,java.instrument,java.naming,java.net.http,java.prefs,java.scripting
modules+=,java.security.jgss,java.sql,jdk.jfr,jdk.management,jdk.net,jdk.unsupported,jdk.security.auth,jdk.charsets
modules+=,jdk.jcmd,jdk.attach
# java.desktop's natives for windows, sound, fonts and images: Sluice uses only java.beans of it, and they link
# X11, ALSA, FreeType and libjpeg, which the image does not have.
no_desktop=""
for lib in libawt_xawt libjawt libjsound libsplashscreen libfontmanager libjavajpeg liblcms; do
  no_desktop+=",**/$lib.so"
done

java_home="${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}"
jlink="$java_home/bin/jlink"
[ -x "$jlink" ] || { echo "base-image: no jlink in $java_home; fix: set JAVA_HOME to a JDK 25" >&2; exit 1; }
jdk_version="$("$java_home/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.version = //p')"
[[ "$jdk_version" == 25* ]] || {
  echo "base-image: the runtime is linked from Debian's OpenJDK 25 jmods, which needs a JDK 25's jlink; $java_home is" \
    "$jdk_version; fix: set JAVA_HOME to a JDK 25" >&2
  exit 1
}

state="${SLUICE_CI_CACHE:-$root/.ci/cache}/image-apt/$arch"
mkdir -p "$state/lists/partial" "$state/archives/partial" "$state/empty"
: >"$state/status"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -s "$keyring" ] || { echo "base-image: $keyring is missing; fix: apt-get install debian-archive-keyring" >&2; exit 1; }
cat >"$state/sources.list" <<EOF
deb [signed-by=$keyring] ${SLUICE_DEBIAN_MIRROR:-http://deb.debian.org/debian} trixie main
deb [signed-by=$keyring] ${SLUICE_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security} trixie-security main
EOF
apt_opts=(-o "Dir::State=$state" -o "Dir::State::Lists=$state/lists" -o "Dir::State::status=$state/status"
  -o "Dir::Cache=$state" -o "Dir::Cache::Archives=$state/archives" -o "Dir::Etc::SourceList=$state/sources.list"
  -o "Dir::Etc::SourceParts=$state/empty" -o "Dir::Etc::Preferences=$state/empty/none"
  -o "Dir::Etc::PreferencesParts=$state/empty" -o "APT::Architecture=$arch" -o "APT::Architectures=$arch"
  -o Debug::NoLocking=1 -o APT::Sandbox::User="$(id -un)" -o Acquire::Languages=none -o "Dir::Etc::Trusted=$keyring"
  -o APT::Get::AllowUnauthenticated=false -q=2)
apt-get "${apt_opts[@]}" update >&2 || { echo "base-image: apt-get update of the Debian archive failed" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
debs=()
# apt checks each file against the hash the signed index gives; a file already there is not fetched again
(cd "$state/archives" && apt-get "${apt_opts[@]}" download "${packages[@]}" openjdk-25-jdk-headless >&2) ||
  { echo "base-image: could not download the Debian packages ($arch): ${packages[*]} openjdk-25-jdk-headless" >&2
    exit 1; }
# the downloaded file of package $1 at the version apt would install now (older ones stay in the cache folder)
deb_of() {
  local version f
  version="$(apt-cache "${apt_opts[@]}" policy "$1" | sed -n 's/^ *Candidate: //p')"
  for f in "$state/archives/$1"_*.deb; do
    [ "$(dpkg-deb -f "$f" Version)" != "$version" ] || { echo "$f"; return 0; }
  done
  echo "base-image: $1 $version ($arch) was not downloaded" >&2
  return 1
}
for p in "${packages[@]}"; do debs+=("$(deb_of "$p")"); done
jdk_deb="$(deb_of openjdk-25-jdk-headless)"

dpkg-deb --fsys-tarfile "$jdk_deb" | tar -x -C "$work" --wildcards '*/jmods/*'
jmods="$(echo "$work"/usr/lib/jvm/java-25-openjdk-"$arch"/jmods)"
# --strip-java-debug-attributes, not --strip-debug: that one also runs this machine's objcopy over the other
# architecture's libraries (Debian's are stripped already, their symbols in separate .debuginfo files, left out)
"$jlink" --module-path "$jmods" --add-modules "$modules" --strip-java-debug-attributes --no-header-files \
  --no-man-pages "--exclude-files=**.debuginfo$no_desktop" --output "$work/java" >&2

# Every library a binary links must be in the image: unpack the packages into a scratch folder and ask each ELF file.
check="$work/check"
mkdir -p "$check"
for deb in "${debs[@]}"; do dpkg-deb -x "$deb" "$check"; done
missing="$(
  provided="$(find "$check" "$work/java" \( -type f -o -type l \) -name '*.so*' -printf '%f\n' | sort -u)"
  find "$check" "$work/java" -type f \( -name '*.so*' -o -perm -u+x \) -print0 |
    { xargs -0 readelf -d 2>/dev/null || true; } | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort -u |
    while read -r lib; do grep -qxF "$lib" <<<"$provided" || echo "$lib"; done
)"
[ -z "$missing" ] || {
  echo "base-image: libraries linked but not in the image ($arch): $missing; fix: add their packages to base-image.sh" >&2
  exit 1
}

"$java_home/bin/java" -cp "$dist_lib/*" "$here/BaseImage.java" "$arch" 1 "$work/java" \
  "openjdk-25-jdk-headless=$(dpkg-deb -f "$jdk_deb" Version)" "$out" "${debs[@]}"
