package io.sluice.connector.duckdb;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.sluice.connector.duckdb.DuckDbCode.DUCK017;
import static io.sluice.connector.duckdb.DuckDbCode.DUCK018;
import static java.util.Objects.requireNonNull;

/**
 * An Iceberg or Delta table ({@code iceberg:}/{@code delta:}): where it lives and which version the user asked for.
 * {@link #pin} fixes the version a run reads once, at plan time; every partition and a resumed run then read that
 * version through DuckDB's own scan (which applies the format's deletes and maps evolved columns by field id),
 * whatever is committed meanwhile.
 *
 * @param location         the table's folder, or for Iceberg one metadata file (as the user wrote it, resolved)
 * @param requestedVersion the {@code version:} option: an Iceberg snapshot id or a Delta version
 * @param where            the {@code where:} option: a DuckDB condition every read, count and compare keeps to
 */
record LakeTable(Format format, String location, OptionalLong requestedVersion, Optional<String> where) {
    enum Format {
        ICEBERG("iceberg", "snapshot"), DELTA("delta", "version");

        final String key;
        final String versionWord;

        Format(String key, String versionWord) {
            this.key = key;
            this.versionWord = versionWord;
        }
    }

    private static final String METADATA_SUFFIX = ".metadata.json";
    private static final String VERSION_HINT = "version-hint.text";
    private static final Pattern METADATA_NUMBER = Pattern.compile("^v?(\\d+)");
    private static final Pattern DELTA_COMMIT = Pattern.compile("(\\d{20})\\.json$");

    LakeTable {
        requireNonNull(format, "format is null");
        requireNonNull(location, "location is null");
        requireNonNull(requestedVersion, "requestedVersion is null");
        requireNonNull(where, "where is null");
    }

    private String trimmedLocation() {
        return location.endsWith("/") ? location.substring(0, location.length() - 1) : location;
    }

    /** The table's folder: the location, or for an Iceberg metadata file the folder above its metadata/ folder. */
    String folder() {
        String trimmed = trimmedLocation();
        if (format == Format.ICEBERG && trimmed.endsWith(METADATA_SUFFIX)) {
            String metadataFolder = trimmed.substring(0, Math.max(0, trimmed.lastIndexOf('/')));
            return metadataFolder.substring(0, Math.max(0, metadataFolder.lastIndexOf('/')));
        }
        return trimmed;
    }

    /**
     * One version of the table, as every partition reads it.
     *
     * @param metadata Iceberg: the metadata file's name without {@code .metadata.json}; Delta: empty
     * @param version  the snapshot id or Delta version; empty for an Iceberg table without any snapshot yet
     */
    record Pin(LakeTable table, Optional<String> metadata, OptionalLong version) {
        Pin {
            requireNonNull(table, "table is null");
            requireNonNull(metadata, "metadata is null");
            requireNonNull(version, "version is null");
        }

        /** The table function call reading this version. Paths are literals; the version is a number. */
        String scan() {
            String folder = Sql.literal(table.folder());
            return switch (table.format) {
                // allow_moved_paths: a table copied elsewhere (its manifests name the old absolute paths) still reads
                case ICEBERG -> "iceberg_scan(" + folder + ", version => " + Sql.literal(metadata.orElseThrow())
                        + ", allow_moved_paths => true" + (version.isPresent() ? ", snapshot_from_id => "
                        + version.getAsLong() : "") + ")";
                case DELTA -> "delta_scan(" + folder + ", version => " + version.orElseThrow() + ")";
            };
        }

        String query() {
            return "SELECT * FROM " + scan() + table.where.map(w -> " WHERE (" + w + ")").orElse("");
        }

        /** The rows of some data files of this version, their deletes applied (DuckDB reads only those files). */
        String forFiles(List<String> files) {
            return "SELECT * FROM " + scan() + " WHERE filename " + (files.size() == 1 ? "= " + Sql.literal(
                    files.get(0)) : "IN (" + String.join(", ", files.stream().map(Sql::literal).toList()) + ")")
                    + table.where.map(w -> " AND (" + w + ")").orElse("");
        }

        /**
         * Each data file of this version with its live rows, counted through the scan (deletes applied; DuckDB
         * reads footers and delete files, and for {@code where:} its columns), in file order.
         */
        Map<String, FileRows> fileRows(Connection connection) throws SQLException {
            Map<String, FileRows> files = new LinkedHashMap<>();
            try (Statement s = connection.createStatement();
                 ResultSet rs = s.executeQuery("SELECT filename, count(*), " + table.where.map(w -> "count(*) FILTER "
                         + "(WHERE (" + w + "))").orElse("count(*)") + " FROM " + scan()
                         + " GROUP BY filename ORDER BY filename")) {
                while (rs.next()) {
                    files.put(rs.getString(1), new FileRows(rs.getLong(2), rs.getLong(3)));
                }
            }
            return files;
        }

        /** What the ledger keeps for the next run of a new-snapshots stream: {@code iceberg:<id>}, {@code delta:<n>}. */
        String token() {
            return table.format.key + ":" + (version.isPresent() ? Long.toString(version.getAsLong()) : "none");
        }

        String describe() {
            return table.format.key + " table " + table.folder() + " at " + table.format.versionWord + " "
                    + (version.isPresent() ? Long.toString(version.getAsLong()) : "(none: no snapshot yet)")
                    + table.where.map(w -> " where " + w).orElse("");
        }
    }

    /** Fixes the version to read: the requested one, else the newest committed now. */
    Pin pin(Connection connection) throws SQLException, ConnectorException {
        return switch (format) {
            case ICEBERG -> pinIceberg(connection);
            case DELTA -> pinDelta(connection);
        };
    }

    private Pin pinIceberg(Connection connection) throws SQLException, ConnectorException {
        String metadata = metadataName(connection);
        List<Snapshot> snapshots = snapshots(connection, metadata);
        if (requestedVersion.isPresent()) {
            long wanted = requestedVersion.getAsLong();
            if (snapshots.stream().noneMatch(s -> s.id() == wanted)) {
                List<String> ids = snapshots.stream().map(s -> Long.toString(s.id())).toList();
                throw new ConnectorException(ErrorKind.PREFLIGHT, DUCK017, "iceberg table " + folder() + " has no "
                        + "snapshot " + wanted + " in metadata " + metadata + " (its newest snapshots: " + (ids.isEmpty()
                        ? "none" : String.join(", ", ids.subList(Math.max(0, ids.size() - 10), ids.size()))) + ")",
                        "set version: to one of its snapshot ids, or remove version: to load the newest");
            }
            return new Pin(this, Optional.of(metadata), OptionalLong.of(wanted));
        }
        return new Pin(this, Optional.of(metadata), snapshots.isEmpty() ? OptionalLong.empty()
                : OptionalLong.of(snapshots.get(snapshots.size() - 1).id()));
    }

    /**
     * The data files one partition reads at a pinned version: one file, or a group of small ones read together.
     */
    record PinnedFiles(Pin pin, List<String> files) {
        PinnedFiles {
            requireNonNull(pin, "pin is null");
            files = List.copyOf(requireNonNull(files, "files is null"));
            if (files.isEmpty()) {
                throw new IllegalArgumentException("no files");
            }
        }

        String relation() {
            return pin.forFiles(files);
        }

        String predicate() {
            return files.size() == 1 ? "file " + files.get(0) : files.size() + " files " + files.get(0) + " .. "
                    + files.get(files.size() - 1);
        }

        /** The one file it reads, named in data errors; empty for a group (the partition's id says which). */
        Optional<String> file() {
            return files.size() == 1 ? Optional.of(files.get(0)) : Optional.empty();
        }
    }

    /**
     * One data file's live rows.
     *
     * @param rows the rows of the version (its deletes applied)
     * @param kept those {@code where:} keeps (all without one)
     */
    record FileRows(long rows, long kept) {
    }

    /** One snapshot of an Iceberg table's history, as its metadata lists it. */
    record Snapshot(long id, long sequence, String operation) {
    }

    /** The snapshots {@code metadata} lists, oldest first (by sequence number). */
    List<Snapshot> snapshots(Connection connection, String metadata) throws SQLException {
        List<Snapshot> snapshots = new ArrayList<>();
        try (Statement s = connection.createStatement();
             ResultSet rs = s.executeQuery("SELECT snapshot_id, sequence_number, operation FROM iceberg_snapshots("
                     + Sql.literal(folder()) + ", version => " + Sql.literal(metadata) + ") ORDER BY sequence_number")) {
            while (rs.next()) {
                snapshots.add(new Snapshot(rs.getLong(1), rs.getLong(2), String.valueOf(rs.getString(3))));
            }
        }
        return snapshots;
    }

    /**
     * The metadata file a run reads: the one named by the location, else the one {@code version-hint.text} names,
     * else the highest-numbered one (pyiceberg and other catalogs write {@code 00005-<uuid>.metadata.json} and no
     * hint). DuckDB refuses to guess on its own; here the guess is pinned and shown in the plan.
     */
    private String metadataName(Connection connection) throws SQLException, ConnectorException {
        String trimmed = trimmedLocation();
        if (trimmed.endsWith(METADATA_SUFFIX)) {
            String name = trimmed.substring(trimmed.lastIndexOf('/') + 1);
            return name.substring(0, name.length() - METADATA_SUFFIX.length());
        }
        // One listing of metadata/ (a glob without a wildcard is a GET on S3, and a missing hint a 404 error)
        List<String> names = new ArrayList<>();
        boolean hint = false;
        for (String file : DuckDbPlanner.strings(connection, "SELECT file FROM glob(" + Sql.literal(folder()
                + "/metadata/*") + ")")) {
            String name = file.substring(file.lastIndexOf('/') + 1);
            hint |= name.equals(VERSION_HINT);
            if (name.endsWith(METADATA_SUFFIX)) {
                names.add(name.substring(0, name.length() - METADATA_SUFFIX.length()));
            }
        }
        if (names.isEmpty()) {
            throw new ConnectorException(ErrorKind.PREFLIGHT, DUCK018, "no Iceberg metadata file in " + folder()
                    + "/metadata (looked for *" + METADATA_SUFFIX + ")", "set iceberg: to the table's folder (the "
                    + "one holding metadata/ and data/) or to one of its metadata files");
        }
        Optional<String> hinted = (hint ? versionHint(connection) : Optional.<String>empty()).flatMap(h -> names.contains("v" + h) ? Optional.of("v" + h)
                : names.contains(h) ? Optional.of(h) : Optional.empty());
        if (hinted.isPresent()) {
            return hinted.get();
        }
        String newest = null;
        long newestNumber = -1;
        for (String name : names) {
            Matcher m = METADATA_NUMBER.matcher(name);
            long number = m.find() ? Long.parseLong(m.group(1)) : -1;
            if (number > newestNumber) {
                newest = name;
                newestNumber = number;
            }
        }
        if (newest == null) {
            throw new ConnectorException(ErrorKind.PREFLIGHT, DUCK018, "cannot tell which metadata file of "
                    + folder() + " is the newest: none is numbered (" + String.join(", ", names.subList(0,
                    Math.min(5, names.size()))) + ")", "set iceberg: to the metadata file to read");
        }
        return newest;
    }

    private Optional<String> versionHint(Connection connection) throws SQLException {
        return DuckDbPlanner.strings(connection, "SELECT content FROM read_text(" + Sql.literal(folder()
                + "/metadata/" + VERSION_HINT) + ")").stream().findFirst().map(String::strip).filter(h -> !h.isEmpty());
    }

    private Pin pinDelta(Connection connection) throws SQLException, ConnectorException {
        long newest = -1;
        for (String file : DuckDbPlanner.strings(connection, "SELECT file FROM glob(" + Sql.literal(folder()
                + "/_delta_log/*.json") + ")")) {
            Matcher m = DELTA_COMMIT.matcher(file);
            if (m.find()) {
                newest = Math.max(newest, Long.parseLong(m.group(1)));
            }
        }
        if (newest < 0) {
            throw new ConnectorException(ErrorKind.PREFLIGHT, DUCK018, "no Delta log in " + folder()
                    + "/_delta_log (no <version>.json commit file)", "set delta: to the table's folder, the one "
                    + "holding _delta_log");
        }
        if (requestedVersion.isPresent()) {
            long wanted = requestedVersion.getAsLong();
            if (wanted < 0 || wanted > newest) {
                throw new ConnectorException(ErrorKind.PREFLIGHT, DUCK017, "delta table " + folder() + " has no "
                        + "version " + wanted + " (its newest is " + newest + ")", "set version: to 0.." + newest
                        + ", or remove version: to load the newest");
            }
            return new Pin(this, Optional.empty(), OptionalLong.of(wanted));
        }
        return new Pin(this, Optional.empty(), OptionalLong.of(newest));
    }

    /** A short name for a file of the table, for partition ids: its path below the table's folder. */
    String relative(String file) {
        String folder = folder();
        for (String prefix : new String[] {folder + "/", "file://" + folder + "/"}) {
            if (file.startsWith(prefix)) {
                return file.substring(prefix.length());
            }
        }
        return file;
    }
}
