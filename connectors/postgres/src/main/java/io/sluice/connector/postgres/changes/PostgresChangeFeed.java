package io.sluice.connector.postgres.changes;

import io.sluice.connector.postgres.catalog.PostgresCatalog;
import io.sluice.connector.postgres.catalog.PostgresCode;
import io.sluice.connector.postgres.catalog.ResolvedTable;
import io.sluice.connector.postgres.catalog.SqlQuote;
import io.sluice.connector.postgres.session.ControlConnection;
import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.connector.postgres.session.PostgresErrors;
import io.sluice.spi.changes.ChangeBatch;
import io.sluice.spi.changes.ChangeFeed;
import io.sluice.spi.changes.ChangeRelation;
import io.sluice.spi.changes.RowChange;
import io.sluice.spi.data.Column;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;

import org.postgresql.PGConnection;
import org.postgresql.replication.LogSequenceNumber;
import org.postgresql.replication.PGReplicationStream;

import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static java.util.Objects.requireNonNull;

/**
 * A slot's pgoutput stream read from a position: whole transactions, those that ended at or before the position
 * skipped (the slot may hand them out again when its confirmation lagged the ledger's), a transaction held until its
 * COMMIT arrives.
 */
public final class PostgresChangeFeed implements ChangeFeed {
    /** How long one wait for the server sleeps; the stream has no blocking read with a deadline. */
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    private final PostgresConnections connections;
    private final ChangeSlot slot;
    private final Connection replication;
    private final PGReplicationStream stream;
    private final PgOutputDecoder decoder;
    private final java.util.Map<Long, PgOutputDecoder.Type> typeNames = new java.util.HashMap<>();
    private final long from;
    /** The tables the feed carries (their sequences are read for a cut-over). */
    private final List<ResolvedTable> tables;
    /** The transaction being read, until its COMMIT; null between transactions. */
    private List<RowChange> open;
    /** The size of {@link #open}'s messages as they came. */
    private long openBytes;
    /** The end of the last whole transaction read (or {@link #from}). */
    private long handedOut;
    /** Parts of the open transaction were handed out already: its COMMIT ends a partial run of batches. */
    private boolean inPart;
    /** 1 while the open transaction is one applied before (skipped whole), else 0. */
    private int skipping;
    /** What the applier confirmed last (any thread). */
    private volatile LogSequenceNumber confirmed;
    /** What was passed on to the server last (the reading thread). */
    private long sent;
    /** When a status update went to the server last (the reading thread). */
    private long statusSent = System.nanoTime();
    private static final long KEEP_ALIVE_NANOS = TimeUnit.SECONDS.toNanos(5);

    private PostgresChangeFeed(PostgresConnections connections, ChangeSlot slot, Connection replication,
                               PGReplicationStream stream, long from,
                               List<ResolvedTable> tables,
                               ChangeRelation.ValueFormat format) {
        this.decoder = new PgOutputDecoder(this::typeName, format, this::described);
        this.connections = connections;
        this.tables = List.copyOf(tables);
        this.slot = slot;
        this.replication = replication;
        this.stream = stream;
        this.from = from;
        this.handedOut = from;
    }

    /** Starts streaming {@code slot} from {@code from} (an LSN the ledger recorded). */
    public static PostgresChangeFeed open(PostgresConnections connections, ChangeSlot slot, String from,
                                          List<ResolvedTable> tables)
            throws ConnectorException {
        requireNonNull(connections, "connections is null");
        requireNonNull(slot, "slot is null");
        LogSequenceNumber start = LogSequenceNumber.valueOf(requireNonNull(from, "from is null"));
        if (start == LogSequenceNumber.INVALID_LSN) {
            throw new IllegalArgumentException("not a position: " + from);
        }
        ChangeRelation.ValueFormat format = format(connections, tables);
        Connection replication = connections.openReplication("the changes of slot " + slot.slot());
        try {
            var builder = replication.unwrap(PGConnection.class).getReplicationAPI()
                    .replicationStream().logical()
                    .withSlotName(slot.slot())
                    .withStartPosition(start)
                    .withSlotOption("proto_version", "1")
                    .withSlotOption("publication_names", SqlQuote.identifier(slot.publication()))
                    .withStatusInterval(10, TimeUnit.SECONDS);
            if (format == ChangeRelation.ValueFormat.POSTGRESQL_BINARY) {
                builder = builder.withSlotOption("binary", "true");
            }
            PGReplicationStream stream = builder.start();
            return new PostgresChangeFeed(connections, slot, replication, stream, start.asLong(), tables, format);
        } catch (SQLException e) {
            PostgresConnections.closeQuietly(replication);
            if ("55006".equals(e.getSQLState())) {
                throw new ConnectorException(ErrorKind.FAILED, PostgresCode.PG608, "the slot " + slot.slot()
                        + " is in use by another session: another run of this spec is following its changes",
                        "let that run finish (a --follow run stops on SIGTERM), or end its session");
            }
            if ("42704".equals(e.getSQLState())) {
                throw new ConnectorException(ErrorKind.PREFLIGHT, PostgresCode.PG603, "the slot " + slot.slot()
                        + " no longer exists on the source: " + e.getMessage(), "copy again from a new slot: "
                        + "sluice run <spec> --restart-changes");
            }
            throw connections.errors().translate(e, PostgresErrors.Phase.COPY, "cannot read the changes of slot "
                    + slot.slot());
        }
    }

    /**
     * Whether values of type {@code $1} read the same on another database in binary form: a built-in type with a
     * binary form, and not one of the reg* types (their binary form is the source's oid, their text a name).
     */
    static final String BINARY_SAFE = "(SELECT $1 < 16384 AND t.typsend <> 0 AND t.typreceive <> 0 AND e.typname "
            + "NOT LIKE 'reg%' FROM pg_type t JOIN pg_type e ON e.oid = CASE WHEN t.typelem <> 0 AND t.typlen = -1 "
            + "THEN t.typelem ELSE t.oid END WHERE t.oid = $1)";

    /**
     * Binary values when the source sends them (PostgreSQL 14 and later) and every column of the feed's tables is of a
     * built-in type with a binary form: the walsender skips the types' output functions, the target their input
     * functions, the client every conversion. A user type (an enum, a domain, a composite) may differ between the two
     * databases, and its binary form can carry the source's type oids: text then, as PostgreSQL's own subscriptions
     * do by default. A reg* type (regclass, say) has a binary form, the source's oid, which names something else
     * on the target: text too.
     */
    private static ChangeRelation.ValueFormat format(PostgresConnections connections,
                                                     List<ResolvedTable> tables)
            throws ConnectorException {
        StringBuilder oids = new StringBuilder("ARRAY[0");
        for (ResolvedTable table : tables) {
            oids.append(", ").append(table.oid());
        }
        oids.append("]::oid[]");
        try (ControlConnection control = connections.control("choosing the change stream's format");
             Statement s = control.connection().createStatement();
             ResultSet rs = s.executeQuery("SELECT current_setting('server_version_num')::int >= 140000 AND NOT "
                     + "EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = ANY (" + oids + ") AND a.attnum > 0 "
                     + "AND NOT a.attisdropped AND NOT " + BINARY_SAFE.replace("$1", "a.atttypid") + ")")) {
            rs.next();
            return rs.getBoolean(1) ? ChangeRelation.ValueFormat.POSTGRESQL_BINARY : ChangeRelation.ValueFormat.TEXT;
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "cannot read the types of the "
                    + "tables the changes come from");
        }
    }

    /** The source's name for a type and whether it travels in binary, asked once per type and modifier. */
    private PgOutputDecoder.Type typeName(int oid, int modifier) {
        return typeNames.computeIfAbsent(((long) oid << 32) | (modifier & 0xffffffffL), k -> {
            try (ControlConnection control = connections.control("naming a type of the change stream");
                 java.sql.PreparedStatement p = control.connection().prepareStatement("SELECT format_type(?::oid, ?), "
                         + "coalesce(" + BINARY_SAFE.replace("$1", "?::oid") + ", false)")) {
                p.setLong(1, Integer.toUnsignedLong(oid));
                p.setInt(2, modifier);
                p.setLong(3, Integer.toUnsignedLong(oid));
                p.setLong(4, Integer.toUnsignedLong(oid));
                try (ResultSet rs = p.executeQuery()) {
                    rs.next();
                    return new PgOutputDecoder.Type(rs.getString(1), rs.getBoolean(2));
                }
            } catch (SQLException | ConnectorException e) {
                throw new IllegalStateException("cannot name type " + Integer.toUnsignedString(oid) + ": "
                        + e.getMessage(), e);
            }
        });
    }

    /** A table's columns as the source's catalog has them now, with what the rows from before each was added hold. */
    private java.util.Map<String, Column> described(int relationOid) {
        try (ControlConnection control = connections.control("describing a table of the change stream")) {
            java.util.Map<String, Column> columns = new java.util.HashMap<>();
            for (Column c : new PostgresCatalog(control.connection())
                    .columns(Integer.toUnsignedLong(relationOid))) {
                columns.put(c.name(), c);
            }
            return columns;
        } catch (SQLException | ConnectorException e) {
            throw new IllegalStateException("cannot describe the columns of relation " + Integer.toUnsignedString(
                    relationOid) + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String describe() {
        return "slot " + slot.slot();
    }

    @Override
    public String currentPosition() throws ConnectorException {
        try (ControlConnection control = connections.control("reading the source's position");
             Statement s = control.connection().createStatement();
             ResultSet rs = s.executeQuery("SELECT pg_current_wal_flush_lsn()::text")) {
            rs.next();
            return rs.getString(1);
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "cannot read the source's "
                    + "position");
        }
    }

    @Override
    public java.util.Map<String, java.util.Map<String, Long>> sequenceValues() throws ConnectorException {
        java.util.Map<String, java.util.Map<String, Long>> values = new java.util.LinkedHashMap<>();
        try (ControlConnection control = connections.control("reading the source's sequences");
             java.sql.PreparedStatement p = control.connection().prepareStatement("SELECT a.attname, "
                     + "pg_sequence_last_value(pg_get_serial_sequence(?, a.attname)::regclass) FROM pg_attribute a "
                     + "WHERE a.attrelid = ? AND a.attnum > 0 AND NOT a.attisdropped "
                     + "AND pg_get_serial_sequence(?, a.attname) IS NOT NULL")) {
            for (ResolvedTable table : tables) {
                p.setString(1, table.quoted());
                p.setLong(2, table.oid());
                p.setString(3, table.quoted());
                try (ResultSet rs = p.executeQuery()) {
                    while (rs.next()) {
                        long value = rs.getLong(2);
                        if (!rs.wasNull()) {
                            values.computeIfAbsent(table.quoted(), t -> new java.util.LinkedHashMap<>())
                                    .put(rs.getString(1), value);
                        }
                    }
                }
            }
            return values;
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "cannot read the source's "
                    + "sequences");
        }
    }

    @Override
    public ChangeBatch next(int maxChanges, long maxBytes, Duration wait) throws ConnectorException {
        requireNonNull(wait, "wait is null");
        List<RowChange> batch = new ArrayList<>();
        List<ChangeBatch.Commit> commits = new ArrayList<>();
        long batchBytes = 0;
        int transactions = 0;
        long end = handedOut;
        long deadline = System.nanoTime() + wait.toNanos();
        try {
            passConfirmations(false);
            while (true) {
                ByteBuffer message = stream.readPending();
                if (message == null) {
                    // Hand out what is whole rather than wait for more; wait only while nothing is.
                    if (transactions > 0 || System.nanoTime() - deadline >= 0) {
                        if (transactions == 0) {
                            passConfirmations(true);
                        }
                        break;
                    }
                    java.util.concurrent.locks.LockSupport.parkNanos(POLL_NANOS);
                    continue;
                }
                int size = message.remaining();
                PgOutputDecoder.Message decoded = decoder.decode(message);
                switch (decoded) {
                    case PgOutputDecoder.Begin begin -> {
                        open = new ArrayList<>();
                        // A transaction that ends at or before the position was applied: its parts are not handed
                        // out (its COMMIT drops it); begin.finalLsn is its commit record's start.
                        skipping = begin.finalLsn() < Math.max(from, handedOut) ? 1 : 0;
                    }
                    case PgOutputDecoder.Change change -> {
                        if (open == null) {
                            throw new IllegalStateException("a change outside a transaction");
                        }
                        if (skipping == 1) {
                            continue; // applied before: its COMMIT drops it
                        }
                        open.addAll(change.changes());
                        openBytes += size;
                        if (open.size() >= maxChanges || batchBytes + openBytes >= maxBytes) {
                            if (!batch.isEmpty()) {
                                // The whole transactions first; the big one goes on in the next batches.
                                return batch(batch, end, transactions, commits);
                            }
                            // Memory stays bounded: a transaction bigger than a batch is handed out in parts.
                            List<RowChange> part = open;
                            open = new ArrayList<>();
                            openBytes = 0;
                            inPart = true;
                            return new ChangeBatch(part, LogSequenceNumber.valueOf(end).asString(), 0, true);
                        }
                    }
                    case PgOutputDecoder.Commit commit -> {
                        if (open == null) {
                            throw new IllegalStateException("a COMMIT without its BEGIN");
                        }
                        if (inPart || (commit.endLsn() > from && commit.endLsn() > handedOut)) {
                            batch.addAll(open);
                            batchBytes += openBytes;
                            transactions++;
                            end = commit.endLsn();
                            handedOut = end;
                            // The end of a transaction whose first parts went out before is not this batch's to tell.
                            if (!inPart) {
                                commits.add(new ChangeBatch.Commit(batch.size(), LogSequenceNumber.valueOf(end)
                                        .asString()));
                            }
                        }
                        open = null;
                        openBytes = 0;
                        inPart = false;
                        if (batch.size() >= maxChanges || batchBytes >= maxBytes) {
                            return batch(batch, end, transactions, commits);
                        }
                    }
                    case PgOutputDecoder.Other other -> {
                    }
                }
            }
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.COPY, "the change stream of slot "
                    + slot.slot() + " broke off");
        } catch (PgOutputDecoder.NotBinarySafe e) {
            throw new ConnectorException(ErrorKind.FAILED, PostgresCode.PG610, "the change stream of slot "
                    + slot.slot() + ": " + e.getMessage() + "; nothing of this batch was applied", "run again: a new "
                    + "stream reads the feed's values in text form, from where the ledger stands");
        } catch (RuntimeException e) {
            throw new ConnectorException(ErrorKind.FAILED, PostgresCode.PG606, "the change stream of slot "
                    + slot.slot() + " carried what Sluice cannot read: " + e.getMessage(), "report this as a bug, "
                    + "with the source's PostgreSQL version", e);
        }
        return batch(batch, end, transactions, commits);
    }

    private static ChangeBatch batch(List<RowChange> changes, long end, int transactions,
                                     List<ChangeBatch.Commit> commits) {
        return new ChangeBatch(changes, LogSequenceNumber.valueOf(end).asString(), transactions, false,
                commits.size() == transactions ? commits : List.of());
    }

    @Override
    public java.util.Optional<java.util.Comparator<String>> positionOrder() {
        return java.util.Optional.of(java.util.Comparator.comparingLong(p -> LogSequenceNumber.valueOf(p).asLong()));
    }

    @Override
    public boolean reached(String position) {
        long wanted = LogSequenceNumber.valueOf(position).asLong();
        // The stream's last received position also moves on keepalives: the server says it sent everything up to
        // there. Only a position between transactions counts.
        return open == null && (handedOut >= wanted || stream.getLastReceiveLSN().asLong() >= wanted);
    }

    @Override
    public long bytesBehind(String position) {
        long wanted = LogSequenceNumber.valueOf(position).asLong();
        return Math.max(0, wanted - Math.max(handedOut, open == null ? stream.getLastReceiveLSN().asLong() : 0));
    }

    /** Confirmed by the applier, passed on to the server by the reading thread (the stream is not thread-safe). */
    @Override
    public void confirm(String position) {
        confirmed = LogSequenceNumber.valueOf(position);
    }

    /** The source's walsender ends a stream it has not heard from in wal_sender_timeout (60 s by default). */
    @Override
    public void keepAlive() throws ConnectorException {
        try {
            passConfirmations(false);
            if (System.nanoTime() - statusSent > KEEP_ALIVE_NANOS) {
                stream.forceUpdateStatus();
                statusSent = System.nanoTime();
            }
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.COPY, "the change stream of slot "
                    + slot.slot() + " broke off");
        }
    }

    /** On the reading thread: what the applier confirmed since, and when nothing is pending, all that was read. */
    private void passConfirmations(boolean idle) throws SQLException {
        LogSequenceNumber lsn = confirmed;
        if (idle && open == null && stream.getLastReceiveLSN().asLong() > handedOut && lsn != null
                && lsn.asLong() >= handedOut) {
            // Every transaction read is applied and nothing is open: what lies between (other databases' WAL, say)
            // holds nothing for this feed, and the slot need not keep it.
            lsn = stream.getLastReceiveLSN();
        }
        if (lsn != null && lsn.asLong() > sent) {
            stream.setFlushedLSN(lsn);
            stream.setAppliedLSN(lsn);
            stream.forceUpdateStatus();
            statusSent = System.nanoTime();
            sent = lsn.asLong();
        }
    }

    @Override
    public void close() {
        try {
            passConfirmations(false); // the last batch's confirmation, when the reading ended before it came
        } catch (SQLException | RuntimeException ignored) {
            // the next run reads from the ledger's position; the slot may hand out again what it applied
        }
        try {
            stream.close();
        } catch (SQLException | RuntimeException ignored) {
            // closing the connection ends the stream anyway
        }
        PostgresConnections.closeQuietly(replication);
    }
}
