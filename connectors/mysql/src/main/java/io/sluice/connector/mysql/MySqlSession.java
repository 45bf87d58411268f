package io.sluice.connector.mysql;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.read.Consistency;
import io.sluice.spi.read.PartitionReader;
import io.sluice.spi.read.SourcePartition;
import io.sluice.spi.read.SourceProjection;
import io.sluice.spi.read.SourceRows;
import io.sluice.spi.read.SourceSession;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

import static java.util.Objects.requireNonNull;

/**
 * What a stream's readers share. With {@code consistency: snapshot} every reader reads one moment of the source, as
 * mydumper does it: while a lock keeps writers out ({@code LOCK TABLES ... READ} on a table source, {@code FLUSH
 * TABLES WITH READ LOCK} on a query, which may read any table), each of the degree's connections starts {@code START
 * TRANSACTION WITH CONSISTENT SNAPSHOT}; then the lock goes, a moment later. The readers take those connections in
 * turn. Each transaction opens the table at once, so its metadata lock keeps the table from being altered or
 * truncated under the read (an ALTER or TRUNCATE waits for the run; a query's tables are locked as its reads reach
 * them). One reader needs no lock: its one transaction is one moment. A table of an engine without snapshots
 * (MyISAM, Aria, MEMORY) keeps the lock until the session closes, as mydumper does: writers wait for the read. With
 * {@code none} each partition reads on a connection of its own whatever is there when it starts.
 */
final class MySqlSession implements SourceSession {
    private final MySqlSource source;
    private final MySqlSettings settings;
    private final BlockingQueue<Connection> snapshot;
    private final List<Connection> all;
    /** Snapshot connections not closed after a failed read: when none is left the snapshot is gone. */
    private final java.util.concurrent.atomic.AtomicInteger alive;
    /** LOCK TABLES ... READ kept for the session's life on a table without snapshots (MyISAM); null otherwise. */
    private final Connection heldLock;

    private MySqlSession(MySqlSource source, MySqlSettings settings, List<Connection> snapshot, Connection heldLock) {
        this.source = source;
        this.heldLock = heldLock;
        this.settings = settings;
        this.all = List.copyOf(snapshot);
        this.alive = new java.util.concurrent.atomic.AtomicInteger(snapshot.size());
        this.snapshot = snapshot.isEmpty() ? null : new ArrayBlockingQueue<>(snapshot.size(), false, snapshot);
    }

    static MySqlSession open(MySqlSource source, MySqlSettings settings, Consistency consistency, int readers)
            throws ConnectorException {
        requireNonNull(source, "source is null");
        requireNonNull(settings, "settings is null");
        if (consistency != Consistency.SNAPSHOT) {
            return new MySqlSession(source, settings, List.of(), null);
        }
        List<Connection> connections = new ArrayList<>();
        Connection lock = null;
        boolean held = false;
        try {
            connections.add(settings.connect());
            // A MyISAM (or other unversioned) table has no snapshot to start: the lock itself is the moment, held
            // until the session closes, even for one reader reading several partitions.
            held = source.unversioned(connections.getFirst());
            if (readers > 1 || held) {
                lock = settings.connect();
                try (Statement s = lock.createStatement()) {
                    if (held) {
                        // idle for the whole read: the server must not drop it (and the lock with it) meanwhile
                        s.execute("SET SESSION wait_timeout = 31536000");
                    }
                    s.execute(source.isTable() ? "LOCK TABLES " + source.qualified() + " READ"
                            : "FLUSH TABLES WITH READ LOCK");
                } catch (SQLException e) {
                    if (isPrivilegeRefusal(e)) {
                        throw lockRefused(source, settings, readers, settings.redactor().redact(e.getMessage()), e);
                    }
                    throw e;
                }
            }
            for (int i = 0; i < Math.max(1, readers); i++) {
                if (i > 0) {
                    connections.add(settings.connect());
                }
                try (Statement s = connections.get(i).createStatement()) {
                    s.execute("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ");
                    s.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY");
                    if (source.isTable()) {
                        // Opening the table takes its metadata lock for the transaction's life: from now on an
                        // ALTER or TRUNCATE waits for the run instead of changing the table under its snapshot.
                        s.executeQuery("SELECT 1 FROM " + source.qualified() + " LIMIT 0").close();
                    }
                }
            }
            if (lock != null && !held) {
                try (Statement s = lock.createStatement()) {
                    s.execute("UNLOCK TABLES");
                }
            }
            MySqlSession session = new MySqlSession(source, settings, connections, held ? lock : null);
            if (held) {
                lock = null; // the session holds it until it closes
            }
            return session;
        } catch (SQLException e) {
            connections.forEach(MySqlSession::closeQuietly);
            throw MySqlErrors.translate(e, "cannot take one snapshot of " + source.describe(), settings.redactor());
        } catch (ConnectorException | RuntimeException e) {
            connections.forEach(MySqlSession::closeQuietly);
            throw e;
        } finally {
            if (lock != null) {
                closeQuietly(lock);
            }
        }
    }

    /** Access denied (database, global or table privilege): the lock's privilege is missing. */
    static boolean isPrivilegeRefusal(SQLException e) {
        return e.getErrorCode() == 1044 || e.getErrorCode() == 1227 || e.getErrorCode() == 1142;
    }

    /** The lock that starts the readers' one moment is not allowed: which privilege, and the two ways on. */
    static ConnectorException lockRefused(MySqlSource source, MySqlSettings settings, int readers, String evidence,
                                          Throwable cause) {
        return new ConnectorException(ErrorKind.PREFLIGHT, MySqlCode.MY103, source.describe() + ": " + readers
                + " readers need one moment of the source, and taking it needs " + (source.isTable()
                ? "the LOCK TABLES privilege" : "the RELOAD privilege (FLUSH TABLES WITH READ LOCK)") + ": "
                + evidence, (source.isTable() ? "GRANT LOCK TABLES ON <database>.* TO <user>;"
                : "GRANT RELOAD ON *.* TO <user>;") + " or degree: 1 (one transaction is one moment); or "
                + "consistency: none (each partition then reads what is committed when it starts, so rows changed "
                + "during the run may be read at different moments)", cause);
    }

    @Override
    public String snapshotMode() {
        return snapshot == null ? "none" : heldLock != null ? "snapshot (" + source.describe() + " keeps no snapshot "
                + "of its own: LOCK TABLES ... READ held until the read ends, so writers wait until then)"
                : "snapshot (" + all.size() + " transactions started together)";
    }

    @Override
    public PartitionReader openReader(SourcePartition partition, SourceProjection projection)
            throws ConnectorException {
        requireNonNull(partition, "partition is null");
        requireNonNull(projection, "projection is null");
        String sql = source.readStatement(partition, projection);
        if (snapshot == null) {
            return new MySqlPartitionReader(settings.connect(), true, sql, (MySqlSource.MySqlProjection) projection,
                    settings, partition.predicate(), (c, usable) -> { });
        }
        Connection c = borrow(true);
        return new MySqlPartitionReader(c, false, sql, (MySqlSource.MySqlProjection) projection, settings,
                partition.predicate(), this::handBack);
    }

    /**
     * A connection of the snapshot, waiting for one a reader hands back ({@code wait}), or failing with MY204 when
     * every one is held (a listing keeps its own until closed: it must not wait on itself); without a snapshot, a
     * new one.
     */
    Connection borrow(boolean wait) throws ConnectorException {
        if (snapshot == null) {
            return settings.connect();
        }
        if (!wait) {
            Connection c = snapshot.poll();
            if (c == null) {
                throw new ConnectorException(ErrorKind.PREFLIGHT, MySqlCode.MY204, source.describe() + ": every "
                        + "one of the snapshot's " + all.size() + " connections is in use, and a listing would hold "
                        + "one more", "compare with a higher degree, or with consistency: none");
            }
            return c;
        }
        Connection c = null;
        try {
            // As many as the degree: a reader waits only when the runner runs more, or one is being handed back.
            while (c == null) {
                if (alive.get() == 0) {
                    throw new ConnectorException(ErrorKind.FAILED, MySqlCode.MY104, source.describe() + ": every "
                            + "connection of the snapshot broke, and a new one would read another moment",
                            "run again with --resume: the partitions done stay done");
                }
                c = snapshot.poll(1, java.util.concurrent.TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConnectorException(ErrorKind.FAILED, MySqlCode.MY105, "interrupted while waiting for a "
                    + "snapshot connection", "nothing to fix: the run is stopping");
        }
        return c;
    }

    /** Gives back what {@link #borrow} gave: to the snapshot when {@code usable}, else closed. */
    void handBack(Connection c, boolean usable) {
        if (snapshot == null) {
            closeQuietly(c);
        } else if (usable) {
            snapshot.add(c);
        } else {
            closeQuietly(c);
            alive.decrementAndGet();
        }
    }

    @Override
    public java.util.Optional<SourceRows> rows() {
        return java.util.Optional.of(new MySqlRows(this, source, settings));
    }

    @Override
    public void close() {
        all.forEach(MySqlSession::closeQuietly);
        if (heldLock != null) {
            closeQuietly(heldLock); // its lock goes with it
        }
    }

    static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException | RuntimeException ignored) {
            // closing: nothing left to do with it
        }
    }
}
