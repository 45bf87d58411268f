package io.sluice.toolkit.compare;

import io.sluice.spi.data.Digest;
import io.sluice.spi.data.HashedRow;

import java.math.BigInteger;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/** Reading compare's statements over JDBC, whatever the engine: a listed row, and digests by bucket. */
public final class ResultSetRows {
    private ResultSetRows() {
    }

    /**
     * The current row of a listing ({@code k1..}, then {@code h1..}): {@code keyCount} key texts, then
     * {@code columnCount} value hashes, {@code null} for NULL values.
     */
    public static HashedRow row(ResultSet rows, int keyCount, int columnCount) throws SQLException {
        List<String> key = new ArrayList<>(keyCount);
        for (int i = 1; i <= keyCount; i++) {
            key.add(rows.getString(i));
        }
        List<Long> hashes = new ArrayList<>(columnCount);
        for (int i = keyCount + 1; i <= keyCount + columnCount; i++) {
            long hash = rows.getLong(i);
            hashes.add(rows.wasNull() ? null : hash);
        }
        return new HashedRow(key, hashes);
    }

    /** The {@code count} digests of rows {@code (bucket, count, checksum as text)}; buckets without rows are zero. */
    public static List<Digest> bucketDigests(ResultSet rows, int count) throws SQLException {
        List<Digest> digests = new ArrayList<>(Collections.nCopies(count, Digest.zero(Digest.Level.CHECKSUM)));
        while (rows.next()) {
            digests.set(rows.getInt(1), new Digest(rows.getLong(2), Optional.of(new BigInteger(rows.getString(3)))));
        }
        return digests;
    }
}
