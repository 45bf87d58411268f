package io.sluice.connector.duckdb;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static io.sluice.connector.duckdb.DuckDbCode.DUCK124;
import static java.util.Objects.requireNonNull;

/**
 * What one pinned table version's own metadata says about its data files: Iceberg's manifests (each data file's
 * {@code record_count}, and the delete files), Delta's log (each added file's {@code numRecords} statistic and the
 * rows its deletion vector removes). The plan checks the rows it counted through the scan against it, so a data file
 * rewritten, truncated or swapped after its commit fails the plan instead of loading other rows under an exact count.
 *
 * @param expectedRows live rows per data file by file name, where the metadata tells them
 * @param dataFiles    the data files the metadata lists
 * @param deleteFiles  Iceberg delete files (position or equality) of the version; 0 for Delta
 * @param unchecked    why the rows per file cannot be checked, if they cannot
 */
record LakeManifest(Map<String, Long> expectedRows, int dataFiles, int deleteFiles, Optional<String> unchecked) {
    LakeManifest {
        expectedRows = Map.copyOf(requireNonNull(expectedRows, "expectedRows is null"));
        requireNonNull(unchecked, "unchecked is null");
    }

    /** Reads the version's file list; a metadata function DuckDB cannot run leaves the rows unchecked, with why. */
    static LakeManifest read(Connection connection, LakeTable.Pin pin) {
        if (pin.version().isEmpty()) {
            return new LakeManifest(Map.of(), 0, 0, Optional.of("the table has no snapshot yet"));
        }
        LakeTable table = pin.table();
        String folder = Sql.literal(table.folder());
        long version = pin.version().getAsLong();
        String sql = switch (table.format()) {
            // status DELETED: a manifest entry of a file this snapshot removed, not part of it
            case ICEBERG -> "SELECT file_path, record_count, manifest_content = 'DATA' FROM iceberg_metadata("
                    + folder + ", version => " + Sql.literal(pin.metadata().orElseThrow())
                    + ", allow_moved_paths => true, snapshot_from_id => " + version + ") WHERE status <> 'DELETED'";
            case DELTA -> "SELECT data_file, cardinality - coalesce(delete_count, 0), true FROM delta_list_files("
                    + folder + ", version => " + version + ", delete_count => true)";
        };
        Map<String, Long> rows = new HashMap<>();
        Set<String> repeated = new HashSet<>();
        int data = 0;
        int deletes = 0;
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                if (!rs.getBoolean(3)) {
                    deletes++;
                    continue;
                }
                data++;
                long count = rs.getLong(2);
                boolean noCount = rs.wasNull();
                String name = name(rs.getString(1));
                if (noCount || count < 0 || rows.put(name, count) != null) {
                    repeated.add(name); // no statistic (Delta writers may omit it), or a name twice: not checked
                }
            }
        } catch (SQLException | RuntimeException e) {
            // the message is not shown: the plan is printed, and a storage error may name more than the table
            return new LakeManifest(Map.of(), 0, 0, Optional.of("DuckDB could not list the version's files"));
        }
        repeated.forEach(rows::remove);
        Optional<String> unchecked = deletes > 0
                ? Optional.of(deletes + " delete file(s): their rows are applied by the scan, not counted per file")
                : Optional.empty();
        return new LakeManifest(unchecked.isPresent() ? Map.of() : rows, data, deletes, unchecked);
    }

    /**
     * Checks the scan's live rows per file (before {@code where:}) against the metadata's.
     *
     * @return the plan's note on what was checked
     * @throws ConnectorException DUCK124 when a file's rows differ (nothing has been read or written yet)
     */
    String check(LakeTable.Pin pin, Map<String, LakeTable.FileRows> scannedRows) throws ConnectorException {
        if (unchecked.isPresent()) {
            return "rows per file not checked against the metadata: " + unchecked.get();
        }
        Map<String, Long> scanned = new HashMap<>();
        scannedRows.forEach((file, rows) -> scanned.merge(name(file), rows.rows(), Long::sum));
        int checked = 0;
        for (Map.Entry<String, Long> listed : expectedRows.entrySet()) {
            long read = scanned.getOrDefault(listed.getKey(), 0L);
            if (read != listed.getValue()) {
                throw new ConnectorException(ErrorKind.PREFLIGHT, DUCK124, pin.describe() + ": data file "
                        + listed.getKey() + " reads " + read + " rows, its metadata says " + listed.getValue()
                        + " (the file was changed after its commit, or the table is damaged); nothing was loaded",
                        "restore the file from the table's storage history or a backup, or load a version that "
                                + "does not hold it with version:");
            }
            checked++;
        }
        return "rows per file agree with the metadata's for " + checked + " of " + dataFiles + " data file(s)";
    }

    /** Summary for the plan: what the version's metadata lists. */
    String describe() {
        return "metadata lists " + dataFiles + " data file(s)" + (deleteFiles > 0 ? " and " + deleteFiles
                + " delete file(s)" : "");
    }

    /**
     * A data file's name: manifests keep the absolute path it was written at, the scan reads it where the table is
     * now (a table copied elsewhere); writers name data files uniquely.
     */
    private static String name(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }
}
