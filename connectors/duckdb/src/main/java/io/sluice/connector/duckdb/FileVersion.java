package io.sluice.connector.duckdb;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;

/**
 * A file's version, {@code <bytes>@<modification time>}: what tells an incremental {@code new-files} stream that a file
 * of a known name was rewritten, and a reader that the file changed since it was planned. A local file's time has the
 * file system's full precision (nanoseconds on ext4, xfs), so a rewrite within the same second and of the same size
 * is a new version too; a remote object's comes from its listing (S3 gives seconds).
 */
final class FileVersion {
    private FileVersion() {
    }

    /** The version of a local file, or empty when it cannot be read (gone, no permission). */
    static Optional<String> local(Path file) {
        try {
            BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
            return Optional.of(attributes.size() + "@" + attributes.lastModifiedTime().toInstant());
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** The version of {@code file}, local or remote (its listing through DuckDB), or empty when it is not there. */
    static Optional<String> of(Connection connection, String file) {
        if (!file.contains("://")) {
            return local(Path.of(file));
        }
        try (Statement s = connection.createStatement();
             ResultSet rs = s.executeQuery("SELECT size, last_modified FROM read_blob(" + Sql.literal(file) + ")")) {
            return rs.next() ? Optional.of(rs.getLong(1) + "@" + rs.getString(2)) : Optional.empty();
        } catch (SQLException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * What the file of a partition planned as one version of it is now, when that is another version ("gone" when it
     * is not there); empty while it is the planned one, or when the partition is not one file's.
     */
    static Optional<String> changedSince(Connection connection, DuckDbPartition partition) {
        if (partition.version().isEmpty() || partition.file().isEmpty()) {
            return Optional.empty();
        }
        Optional<String> now = of(connection, partition.file().get());
        return now.equals(partition.version()) ? Optional.empty() : Optional.of(now.orElse("gone"));
    }
}
