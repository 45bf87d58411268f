package io.sluice.connector.mysql;

import io.sluice.spi.data.CopySink;
import io.sluice.spi.data.RejectedRow;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.read.BadRows;
import io.sluice.spi.read.PartitionReader;
import io.sluice.toolkit.JsonText;
import io.sluice.toolkit.copy.BinaryCopyEncoder;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Streams one partition's rows from the driver ({@link MySqlSource#FETCH_ROWS} at a time, never the whole result) and
 * encodes them into binary COPY as they come.
 */
final class MySqlPartitionReader implements PartitionReader {
    private final Connection connection;
    private final boolean owned;
    private final String sql;
    /** An array: a list's iterator would be an object per row. */
    private final ValueEncoder[] encoders;
    private final MySqlSettings settings;
    private final String predicate;
    private final java.util.function.BiConsumer<Connection, Boolean> release;
    private volatile Statement statement;
    private volatile boolean cancelled;
    /** The server or the connection failed: it is not handed to another reader. */
    private boolean broken;
    private boolean closed;

    MySqlPartitionReader(Connection connection, boolean owned, String sql, MySqlSource.MySqlProjection projection,
                         MySqlSettings settings, String predicate,
                         java.util.function.BiConsumer<Connection, Boolean> release) {
        this.connection = requireNonNull(connection, "connection is null");
        this.owned = owned;
        this.sql = requireNonNull(sql, "sql is null");
        this.encoders = requireNonNull(projection, "projection is null").encoders().stream()
                .map(ValueEncoder::forReader).toArray(ValueEncoder[]::new);
        this.settings = requireNonNull(settings, "settings is null");
        this.predicate = requireNonNull(predicate, "predicate is null");
        this.release = requireNonNull(release, "release is null");
    }

    @Override
    public long transferTo(CopySink sink) throws ConnectorException {
        return transferTo(sink, BadRows.FAIL);
    }

    /**
     * As {@link #transferTo(CopySink)}; with {@code rejects:} a row whose value cannot be loaded (a zero date, a NUL
     * in text: MY301, MY303) is set aside with its values and the column, and the read goes on; {@code nul-bytes:
     * strip} removes NUL characters from text instead.
     */
    @Override
    public long transferTo(CopySink sink, BadRows badRows) throws ConnectorException {
        requireNonNull(sink, "sink is null");
        requireNonNull(badRows, "badRows is null");
        BinaryCopyEncoder out = new BinaryCopyEncoder(sink);
        boolean setsAside = badRows.setsAside();
        if (setsAside) {
            out.keepRowsWhole();
        }
        ValueEncoder[] encoders = this.encoders;
        if (badRows.nulBytes() == BadRows.NulBytes.STRIP) {
            encoders = java.util.Arrays.stream(encoders).map(ValueEncoder::strippingNul).toArray(ValueEncoder[]::new);
        }
        long row = 0;
        try (Statement s = connection.createStatement(ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY)) {
            statement = s;
            s.setFetchSize(MySqlSource.FETCH_ROWS);
            try (ResultSet rs = s.executeQuery(sql)) {
                int fields = encoders.length;
                while (rs.next()) {
                    row++;
                    out.startRow(fields);
                    int i = 0;
                    try {
                        for (; i < fields; i++) {
                            encoders[i].encode(rs, out);
                        }
                    } catch (ConnectorException e) {
                        if (!setsAside || e.kind() != ErrorKind.DATA) {
                            throw e;
                        }
                        out.discardRow();
                        badRows.reject(new RejectedRow(row, java.util.Optional.of(json(rs, encoders)),
                                java.util.Optional.empty(), java.util.Optional.of(encoders[i].column), e.code(),
                                e.getMessage()));
                    }
                }
            }
            return out.finish();
        } catch (SQLException e) {
            broken = true;
            if (cancelled) {
                throw new ConnectorException(ErrorKind.FAILED, MySqlCode.MY105, "the read of "
                        + predicate + " was cancelled", "nothing to fix: the run stopped it", e);
            }
            throw MySqlErrors.translate(e, "cannot read " + predicate + " (row " + row + ")", settings.redactor());
        } catch (ConnectorException e) {
            throw new ConnectorException(e.kind(), e.code(), e.getMessage() + " (row " + row + " of "
                    + ("TRUE".equals(predicate) ? "the read" : predicate) + ")", e.fix().orElse(null), e);
        } finally {
            statement = null;
        }
    }

    /** A set-aside row's values as the server sent them, as JSON text by column. */
    private static String json(ResultSet rs, ValueEncoder[] encoders) throws SQLException {
        StringBuilder json = new StringBuilder("{");
        for (int i = 0; i < encoders.length; i++) {
            String value = rs.getString(encoders[i].index);
            json.append(i == 0 ? "" : ", ").append(JsonText.quote(encoders[i].column)).append(": ")
                    .append(value == null ? "null" : JsonText.value(value));
        }
        return json.append('}').toString();
    }

    @Override
    public void cancel() {
        cancelled = true;
        Statement s = statement;
        if (s != null) {
            try {
                s.cancel(); // KILL QUERY on a connection of the driver's own
            } catch (SQLException ignored) {
                // the read ends with its own error, or already ended
            }
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (owned) {
            MySqlSession.closeQuietly(connection);
        } else {
            // A cancelled or broken read may leave the connection mid-result: never handed to another reader.
            release.accept(connection, !broken && !cancelled);
        }
    }
}
