#!/usr/bin/env bash
# Provisions a pg_dump of PostgreSQL 18 for the tests that compare schema dumps (PagilaDumpTest, full tier): pg_dump
# dumps no server newer than itself, the test kit's default server is 18, and Debian 12's client is 15. Debian sid's
# postgresql-client-18 needs a newer glibc than the host's, so its packages and their libraries (glibc included) are
# unpacked into one folder, without root, and pg_dump runs through that glibc's own loader.
#   bash .ci/provision-pg-dump.sh [folder]   (default .ci/cache/pg-dump-18)
# Prints, on its last line, a wrapper script that runs that pg_dump. Needs apt-get, dpkg-deb and the Debian archive
# (deb.debian.org). Idempotent: a folder whose wrapper answers is kept.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="${1:-${SLUICE_CI_CACHE:-$root/.ci/cache}/pg-dump-18}"
wrapper="$dir/pg_dump"
if [[ -x "$wrapper" ]] && "$wrapper" --version >/dev/null 2>&1; then
  "$wrapper" --version >&2
  echo "$wrapper"
  exit 0
fi
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[[ -r "$keyring" ]] || { echo "provision-pg-dump: $keyring is missing (install debian-archive-keyring)" >&2; exit 1; }
rm -rf "$dir"
apt_dir="$dir/apt" files="$dir/files"
mkdir -p "$apt_dir/etc/sources.list.d" "$apt_dir/etc/preferences.d" "$apt_dir/lists/partial" \
  "$apt_dir/cache/archives/partial" "$files" "$dir/debs"
: > "$apt_dir/status"
echo "deb [signed-by=$keyring] http://deb.debian.org/debian sid main" > "$apt_dir/etc/sources.list"
apt_opts=(-o "Dir::Etc=$apt_dir/etc" -o "Dir::State=$apt_dir" -o "Dir::State::Lists=$apt_dir/lists"
  -o "Dir::Cache=$apt_dir/cache" -o "Dir::State::status=$apt_dir/status" -o Debug::NoLocking=1
  -o "APT::Sandbox::User=$(id -un)")
apt-get "${apt_opts[@]}" -qq update >&2
# The client's dependency closure, libraries only: pg_dump needs no Perl (the wrappers of postgresql-client-common do)
mapfile -t packages < <(apt-cache "${apt_opts[@]}" depends --recurse --no-recommends --no-suggests --no-conflicts \
  --no-breaks --no-replaces --no-enhances postgresql-client-18 | grep -v '^[ <]' | sort -u |
  grep -E '^(postgresql-client-18|lib.*|zlib1g|gcc-[0-9]+-base)$' | grep -v '^libperl')
(cd "$dir/debs" && apt-get "${apt_opts[@]}" -qq download "${packages[@]}" >&2)
for deb in "$dir"/debs/*.deb; do
  dpkg-deb -x "$deb" "$files"
done
rm -rf "$dir/debs" "$apt_dir"
lib="$files/usr/lib/x86_64-linux-gnu"
cat > "$wrapper" <<WRAPPER
#!/bin/sh
# pg_dump 18 from Debian sid, on that release's glibc (made by .ci/provision-pg-dump.sh)
exec "$lib/ld-linux-x86-64.so.2" --library-path "$lib" "$files/usr/lib/postgresql/18/bin/pg_dump" "\$@"
WRAPPER
chmod +x "$wrapper"
"$wrapper" --version >&2
echo "$wrapper"
