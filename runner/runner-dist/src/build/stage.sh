#!/usr/bin/env bash
# Lays out the distribution's folder, target/stage/sluice-<version>/, which the assembly then packs as .tar.gz and .zip:
#   bin/sluice, bin/sluice.cmd      launchers: any Java 21+ runtime, from any directory, no Maven
#   lib/app/                        the application extracted from the Spring Boot jar (plain jars start faster)
#   lib/launch.sh, lib/find-jdk.sh  the JVM options and start-up cache ./sluice uses, and how it finds a Java
#   duckdb-extensions/              httpfs and aws for DuckDB 1.5.5, linux_amd64 and linux_arm64: no download at run time
#   plugins/                        connector jars a user adds (see plugins/README.md)
#   examples/                       the quickstarts, runnable on the embedded PostgreSQL
#   sbom/bom.json                   the CycloneDX bill of materials: lib/, the DuckDB extensions, the PostgreSQL server
#   share/man/man1/                 man pages of sluice and each command (sluice man-pages)
#   share/completions/              sluice.bash (also for zsh) and sluice.fish (sluice completion)
#   docs/                           the documentation as a static site (src/docs-site/build.sh): open docs/index.html
#   LICENSE, NOTICE, CHANGELOG.md, README.md
# Usage: stage.sh VERSION APP_JAR BOM OUT_DIR
set -euo pipefail
version="$1" app_jar="$2" bom="$3" out="$4"
module="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
root="$(cd "$module/../.." && pwd)"
JAVA_HOME="$(sh "$root/src/sh/find-jdk.sh" --quiet 21)"
home="$out/sluice-$version"
rm -rf "$home"
mkdir -p "$home/lib" "$home/sbom" "$home/examples"

"$JAVA_HOME/bin/java" -Djarmode=tools -jar "$app_jar" extract --destination "$home/lib/app" >/dev/null
app_name="$(basename "$app_jar")"
[ "$app_name" = sluice.jar ] || mv "$home/lib/app/$app_name" "$home/lib/app/sluice.jar"
# picocli's Java 5 class files rewritten as Java 8, so that the start-up cache can hold them (JDK 24+ builds; the
# bill of materials records the jar as modified): src/build/RetargetClasses.java.
if [ "$(sh "$root/src/sh/find-jdk.sh" --major "$JAVA_HOME")" -ge 24 ] 2>/dev/null; then
  "$JAVA_HOME/bin/java" "$root/src/build/RetargetClasses.java" "$home"/lib/app/lib/picocli-*.jar >/dev/null
fi
cp "$root/src/sh/launch.sh" "$root/src/sh/find-jdk.sh" "$home/lib/"
cp -R "$module/src/dist/." "$home/"
chmod 755 "$home/bin/sluice" "$home/lib/launch.sh" "$home/lib/find-jdk.sh"

# The extensions a run may load (httpfs for s3:// and https://, aws for the credential chain), for both Linux
# platforms the image is built for; fetched once into the build's cache from their PyPI wheels.
cache="${SLUICE_CI_CACHE:-$root/.ci/cache}/dist-duckdb-extensions"
for platform in linux_amd64 linux_arm64; do
  DUCKDB_PLATFORM="$platform" SLUICE_DUCKDB_EXTENSIONS="$cache" \
    bash "$root/.ci/provision-duckdb-extensions.sh" httpfs aws >/dev/null
done
mkdir -p "$home/duckdb-extensions"
cp -R "$cache/." "$home/duckdb-extensions/"

# Man pages and completion scripts, made by the application itself from its command line.
mkdir -p "$home/share/man/man1" "$home/share/completions"
"$JAVA_HOME/bin/java" -jar "$app_jar" man-pages "$home/share/man/man1"
"$JAVA_HOME/bin/java" -jar "$app_jar" completion bash > "$home/share/completions/sluice.bash"
"$JAVA_HOME/bin/java" -jar "$app_jar" completion fish > "$home/share/completions/sluice.fish"

# The documentation as a site (menu, search from disk, links checked): docs/index.html.
bash "$root/src/docs-site/build.sh" "$home/docs" >/dev/null

cp "$root/LICENSE" "$root/NOTICE" "$root/CHANGELOG.md" "$home/"
# The bill of materials gets what Maven's graph does not know (the extensions, the PostgreSQL server, jars the packaging
# adds) and fails the build if a jar under lib/ is still unlisted; the completed one ships and sits beside the archives.
"$JAVA_HOME/bin/java" -cp "$home/lib/app/lib/*" "$module/src/build/CompleteBom.java" "$bom" "$home"
cp "$bom" "$home/sbom/bom.json"
for f in quickstart.yaml quickstart-source.sql quickstart-target.sql quickstart-parquet.yaml \
    quickstart-parquet-target.sql; do
  cp "$root/examples/$f" "$home/examples/"
done
cp -R "$root/examples/data" "$home/examples/"
# The examples point their editor schema at the repository's specs/; in the distribution it sits beside them.
cp "$root/specs/sluice-spec-v1.schema.json" "$home/examples/"
sed -i.bak 's|\$schema=\.\./specs/sluice-spec-v1\.schema\.json|$schema=sluice-spec-v1.schema.json|' "$home"/examples/*.yaml
rm -f "$home"/examples/*.bak
echo "staged $home"
