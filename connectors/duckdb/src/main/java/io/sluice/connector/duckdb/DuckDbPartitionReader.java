package io.sluice.connector.duckdb;

import io.sluice.spi.data.CopySink;
import io.sluice.spi.data.RejectedRow;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.read.BadRows;
import io.sluice.spi.read.PartitionReader;
import io.sluice.toolkit.copy.BinaryCopyEncoder;

import org.duckdb.DuckDBChunkedResult;
import org.duckdb.DuckDBConnection;
import org.duckdb.DuckDBDataChunkReader;
import org.duckdb.DuckDBPreparedStatement;

import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

import static io.sluice.connector.duckdb.DuckDbCode.DUCK120;
import static io.sluice.connector.duckdb.DuckDbCode.DUCK121;
import static java.util.Objects.requireNonNull;

/**
 * Reads one partition with DuckDB's chunk API (new in 1.5: vectors of up to 2048 rows with typed getters) and encodes
 * each value straight into binary COPY for its target column. Runs on a platform thread: DuckDB calls are JNI and
 * hold their carrier.
 */
final class DuckDbPartitionReader implements PartitionReader {
    /** 256 KiB per flush to the writer: measured best for this path (stack notes §3). */
    static final int BUFFER_BYTES = 1 << 18;

    private final DuckDbDatabase database;
    private final DuckDbPartition partition;
    private final DuckDbProjection projection;
    private final String sql;
    private volatile DuckDBPreparedStatement running;
    private volatile boolean cancelled;

    DuckDbPartitionReader(DuckDbDatabase database, DuckDbPartition partition, DuckDbProjection projection) {
        this.database = requireNonNull(database, "database is null");
        this.partition = requireNonNull(partition, "partition is null");
        this.projection = requireNonNull(projection, "projection is null");
        this.sql = projection.selectFrom(partition.relation());
    }

    @Override
    public long transferTo(CopySink sink) throws ConnectorException {
        return transferTo(sink, BadRows.FAIL);
    }

    /**
     * With {@code badRows} setting rows aside, a row whose value fails its conversion (too long, out of range,
     * unreadable, a NUL byte) is taken back from the COPY buffer and handed to {@link BadRows#reject} with its values
     * as read; the partition goes on.
     */
    @Override
    public long transferTo(CopySink sink, BadRows badRows) throws ConnectorException {
        requireNonNull(sink, "sink is null");
        requireNonNull(badRows, "badRows is null");
        ChunkErrors.require(); // before anything is read: without it a failed read could end like a finished one
        ColumnEncoder[] encoders = encoders();
        for (ColumnEncoder encoder : encoders) {
            if (encoder instanceof TextEncoders.TextEncoder text) {
                text.nulBytes(badRows.nulBytes());
            }
        }
        boolean setsAside = badRows.setsAside();
        byte[] kinds = kinds(encoders);
        try (DuckDBConnection connection = database.connect(DuckDbDatabase.isRemote(sql));
             DuckDBPreparedStatement statement = connection.prepare(sql)) {
            requireVersion(connection, "before it was read");
            running = statement;
            if (cancelled) {
                throw cancelledError();
            }
            BinaryCopyEncoder out = new BinaryCopyEncoder(sink, BUFFER_BYTES);
            if (setsAside) {
                out.keepRowsWhole();
            }
            try (DuckDBChunkedResult result = statement.query()) {
                int fields = encoders.length;
                long rowsBefore = 0;
                while (result.nextChunk()) {
                    if (cancelled) {
                        throw cancelledError();
                    }
                    DuckDBDataChunkReader chunk = result.chunk();
                    for (ColumnEncoder encoder : encoders) {
                        encoder.bind(chunk);
                    }
                    int rows = (int) chunk.rowCount();
                    int row = 0;
                    int field = 0;
                    while (row < rows) {
                        try {
                            for (; row < rows; row++) {
                                out.startRow(fields);
                                for (field = 0; field < fields; field++) {
                                    encode(encoders[field], kinds[field], row, out);
                                }
                            }
                        } catch (ConnectorException e) {
                            if (!setsAside || !DataErrors.isValueError(e)) { // e.g. the writer's own failure
                                throw atRow(e, rowsBefore + row + 1);
                            }
                            out.discardRow();
                            badRows.reject(new RejectedRow(rowsBefore + row + 1, Optional.of(RowValues.json(encoders,
                                    row, projection.conversions())), Optional.empty(),
                                    Optional.of(projection.conversions().get(field).sourceColumn()), e.code(),
                                    e.getMessage()));
                            row++;
                        }
                    }
                    rowsBefore += rows;
                }
                ChunkErrors.check(result);
            }
            if (cancelled) {
                throw cancelledError();
            }
            long rows = out.finish();
            requireVersion(connection, "while it was read"); // before the commit: a changed file's rows roll back
            return rows;
        } catch (SQLException e) {
            if (cancelled) {
                throw cancelledError();
            }
            throw DuckDbErrors.translate(e, DuckDbErrors.Phase.READ, partition.where(), database.redactor());
        } catch (RuntimeException e) {
            // the chunk API reports type and decoding problems unchecked
            throw new ConnectorException(ErrorKind.FAILED, DUCK120, "DuckDB reader failed on " + partition.where()
                    + ": " + database.redactor().redact(String.valueOf(e.getMessage())),
                    "report it with the query and the column types", e);
        } finally {
            running = null;
        }
    }

    /**
     * A partition planned as one version of its file reads that version or nothing: a file rewritten since the plan
     * (or during the read) would load rows the ledger records under another version, which a new-files stream would
     * then load again.
     */
    private void requireVersion(java.sql.Connection connection, String when) throws ConnectorException {
        Optional<String> now = FileVersion.changedSince(connection, partition);
        if (now.isPresent()) {
            throw new ConnectorException(ErrorKind.DATA, DuckDbCode.DUCK122, "file " + partition.file().orElseThrow()
                    + " changed " + when + ": the run planned version " + partition.version().orElseThrow()
                    + ", the file is " + now.get() + " now; its rows were not committed", "start a fresh run (not "
                    + "--resume): it plans the file as it is then, and a new-files stream records that version");
        }
    }

    private static final byte OTHER = 0;
    private static final byte TEXT = 1;
    private static final byte INTEGER = 2;
    private static final byte DECIMAL = 3;
    private static final byte DATE = 4;
    private static final byte MICROS = 5;

    /**
     * Each column's encoder class, for {@link #encode}. A row of text, integers, a decimal and a date makes the call
     * through the interface megamorphic: a dispatch stub per value and no inlining, 0.9 of the reader's 5.9 Java
     * CPU-seconds in a profile of a SF 10 orders load. A call site per class is monomorphic and the JIT inlines it.
     */
    private static byte[] kinds(ColumnEncoder[] encoders) {
        byte[] kinds = new byte[encoders.length];
        for (int i = 0; i < encoders.length; i++) {
            kinds[i] = switch (encoders[i]) {
                case TextEncoders.TextEncoder e -> TEXT;
                case NumberEncoders.IntegerEncoder e -> INTEGER;
                case NumberEncoders.DecimalEncoder e -> DECIMAL;
                case TemporalEncoders.DateEncoder e -> DATE;
                case TemporalEncoders.MicrosEncoder e -> MICROS;
                default -> OTHER;
            };
        }
        return kinds;
    }

    private static void encode(ColumnEncoder encoder, byte kind, int row, BinaryCopyEncoder out)
            throws ConnectorException {
        switch (kind) {
            case TEXT -> ((TextEncoders.TextEncoder) encoder).encode(row, out);
            case INTEGER -> ((NumberEncoders.IntegerEncoder) encoder).encode(row, out);
            case DECIMAL -> ((NumberEncoders.DecimalEncoder) encoder).encode(row, out);
            case DATE -> ((TemporalEncoders.DateEncoder) encoder).encode(row, out);
            case MICROS -> ((TemporalEncoders.MicrosEncoder) encoder).encode(row, out);
            default -> encoder.encode(row, out);
        }
    }

    /** A value's DATA error with the row it is in, counted from 1 in the order this partition reads its rows. */
    private static ConnectorException atRow(ConnectorException e, long row) {
        if (e.kind() != ErrorKind.DATA) {
            return e;
        }
        return new ConnectorException(e.kind(), e.code(), e.getMessage() + " (row " + row + " as read)",
                e.fix().orElse(null), e.getCause());
    }

    private ColumnEncoder[] encoders() {
        List<ColumnConversion> conversions = projection.conversions();
        ColumnEncoder[] encoders = new ColumnEncoder[conversions.size()];
        int vector = 0;
        for (int i = 0; i < encoders.length; i++) {
            ColumnConversion conversion = conversions.get(i);
            encoders[i] = conversion.factory().create(vector,
                    new ColumnOrigin(conversion.sourceColumn(), partition.where()));
            vector += conversion.carriers().size();
        }
        return encoders;
    }

    private ConnectorException cancelledError() {
        return new ConnectorException(ErrorKind.FAILED, DUCK121, "reading " + partition.where() + " was cancelled",
                null);
    }

    @Override
    public void cancel() {
        cancelled = true;
        DuckDBPreparedStatement statement = running;
        if (statement != null) {
            try {
                statement.cancel();
            } catch (SQLException | RuntimeException e) {
                // the flag alone stops the transfer at the next chunk
            }
        }
    }

    @Override
    public void close() {
        cancel();
    }
}
