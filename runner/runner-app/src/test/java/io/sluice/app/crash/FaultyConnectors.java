package io.sluice.app.crash;

import io.sluice.connector.duckdb.DuckDbConnectorFactory;
import io.sluice.connector.postgres.PostgresConnectorFactory;
import io.sluice.spi.connector.ConnectionConfig;
import io.sluice.spi.connector.Connector;
import io.sluice.spi.connector.ConnectorFactory;
import io.sluice.spi.connector.OptionSchema;
import io.sluice.spi.connector.Options;
import io.sluice.spi.connector.Problem;
import io.sluice.spi.connector.Role;
import io.sluice.spi.connector.SourceCapabilities;
import io.sluice.spi.connector.Sources;
import io.sluice.spi.connector.StreamShape;
import io.sluice.spi.connector.TargetCapabilities;
import io.sluice.spi.data.Column;
import io.sluice.spi.data.ColumnPair;
import io.sluice.spi.data.CopySink;
import io.sluice.spi.data.Digest;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.read.Consistency;
import io.sluice.spi.read.PartitionReader;
import io.sluice.spi.read.PartitionReaders;
import io.sluice.spi.read.PlanRequest;
import io.sluice.spi.read.Source;
import io.sluice.spi.read.SourcePartition;
import io.sluice.spi.read.SourceProjection;
import io.sluice.spi.read.SourceSession;
import io.sluice.toolkit.copy.BinaryCopyEncoder;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static java.util.Objects.requireNonNull;

/**
 * Source connectors for tests that wrap a real one (types {@code faulty-postgres} and {@code faulty-duckdb}, found
 * through ServiceLoader like any connector) and inject one fault into one partition's reader: the kinds of failure a
 * buggy encoder or driver shows, which no connector declares. Armed for one firing, so a resume runs clean.
 */
public final class FaultyConnectors {
    /** What the armed reader does instead of reading. */
    public enum Fault {
        /** Throws an IllegalStateException, as a bug in an encoder would. */
        RUNTIME_EXCEPTION,
        /** Throws an Error, as a class that failed to initialise would. */
        ERROR,
        /** Sends a valid COPY stream with no rows and returns 0, without an error: a reader that stopped early. */
        NO_ROWS,
        /**
         * Not a fault: holds the run still at that reader (after {@link #awaitBlocked()} returns) until
         * {@link #release()}, then reads as usual. For tests of what happens while a run is under way.
         */
        BLOCK
    }

    private static volatile java.util.concurrent.CountDownLatch blocked = new java.util.concurrent.CountDownLatch(1);
    private static volatile java.util.concurrent.CountDownLatch released = new java.util.concurrent.CountDownLatch(1);

    private record Armed(Fault fault, int onReader) {
    }

    private static final AtomicReference<Armed> ARMED = new AtomicReference<>();
    private static final AtomicInteger READERS_OPENED = new AtomicInteger();

    private FaultyConnectors() {
    }

    /** The {@code onReader}-th reader opened from now on (1 is the first) does {@code fault}, once. */
    public static void arm(Fault fault, int onReader) {
        READERS_OPENED.set(0);
        blocked = new java.util.concurrent.CountDownLatch(1);
        released = new java.util.concurrent.CountDownLatch(1);
        ARMED.set(new Armed(requireNonNull(fault, "fault is null"), onReader));
    }

    public static void disarm() {
        ARMED.set(null);
        released.countDown();
    }

    /** Waits until a reader armed with BLOCK holds its run still. */
    public static void awaitBlocked() throws InterruptedException {
        if (!blocked.await(2, java.util.concurrent.TimeUnit.MINUTES)) {
            throw new AssertionError("no reader reached the BLOCK fault");
        }
    }

    /** Lets the reader held by BLOCK go on. */
    public static void release() {
        released.countDown();
    }

    /** Whether the armed fault fired (it disarms itself when it does). */
    public static boolean fired() {
        return ARMED.get() == null;
    }

    public static final class Postgres extends Factory {
        public Postgres() {
            super(new PostgresConnectorFactory());
        }
    }

    public static final class DuckDb extends Factory {
        public DuckDb() {
            super(new DuckDbConnectorFactory());
        }
    }

    abstract static class Factory implements ConnectorFactory {
        private final ConnectorFactory real;

        Factory(ConnectorFactory real) {
            this.real = requireNonNull(real, "real is null");
        }

        @Override
        public String name() {
            return "faulty-" + real.name();
        }

        @Override
        public String description() {
            return "tests only: " + real.name() + " with a fault injected into one reader";
        }

        @Override
        public Set<Role> roles() {
            return Set.of(Role.SOURCE);
        }

        @Override
        public OptionSchema connectionOptions() {
            return real.connectionOptions();
        }

        @Override
        public OptionSchema sourceOptions() {
            return real.sourceOptions();
        }

        @Override
        public SourceCapabilities sourceCapabilities() {
            return real.sourceCapabilities();
        }

        @Override
        public TargetCapabilities targetCapabilities() {
            return real.targetCapabilities();
        }

        @Override
        public List<Problem> lintStream(StreamShape stream) {
            return real.lintStream(stream);
        }

        @Override
        public Connector create(ConnectionConfig config) {
            Connector connector = real.create(config);
            return new Connector() {
                @Override
                public Optional<Sources> sources() {
                    return connector.sources().map(real -> options -> new FaultySource(real.open(options)));
                }

                @Override
                public void close() {
                    connector.close();
                }
            };
        }
    }

    private record FaultySource(Source real) implements Source {
        @Override
        public String describe() {
            return real.describe();
        }

        @Override
        public List<Column> columns() throws ConnectorException {
            return real.columns();
        }

        @Override
        public SourceProjection project(List<ColumnPair> pairs) throws ConnectorException {
            return real.project(pairs);
        }

        @Override
        public List<SourcePartition> plan(PlanRequest request) throws ConnectorException {
            return real.plan(request);
        }

        @Override
        public Optional<SourcePartition> restore(String checkpoint) throws ConnectorException {
            return real.restore(checkpoint);
        }

        @Override
        public String readStatement(SourcePartition partition, SourceProjection projection) {
            return real.readStatement(partition, projection);
        }

        @Override
        public Set<io.sluice.spi.data.RelationIdentity> relations() throws ConnectorException {
            return real.relations();
        }

        @Override
        public void waitForLocks(io.sluice.spi.data.LockWaits waits) {
            real.waitForLocks(waits);
        }

        @Override
        public SourceSession openSession(Consistency consistency) throws ConnectorException {
            SourceSession session = real.openSession(consistency);
            return new SourceSession() {
                @Override
                public String snapshotMode() {
                    return session.snapshotMode();
                }

                @Override
                public PartitionReader openReader(SourcePartition partition, SourceProjection projection)
                        throws ConnectorException {
                    return faulty(session.openReader(partition, projection));
                }

                @Override
                public PartitionReaders openReaders(SourceProjection projection) {
                    PartitionReaders readers = session.openReaders(projection);
                    return new PartitionReaders() {
                        @Override
                        public PartitionReader open(SourcePartition partition) throws ConnectorException {
                            return faulty(readers.open(partition));
                        }

                        @Override
                        public void close() {
                            readers.close();
                        }
                    };
                }

                @Override
                public Optional<Digest> digest(SourcePartition partition, SourceProjection projection,
                                               Digest.Level level) throws ConnectorException {
                    return session.digest(partition, projection, level);
                }

                @Override
                public void close() {
                    session.close();
                }
            };
        }
    }

    private static PartitionReader faulty(PartitionReader real) {
        Armed armed = ARMED.get();
        if (armed == null || READERS_OPENED.incrementAndGet() != armed.onReader()
                || !ARMED.compareAndSet(armed, null)) {
            return real;
        }
        return new PartitionReader() {
            @Override
            public long transferTo(CopySink sink) throws ConnectorException {
                return switch (armed.fault()) {
                    case RUNTIME_EXCEPTION -> throw new IllegalStateException("injected: an encoder bug");
                    case ERROR -> throw new ExceptionInInitializerError("injected: a class failed to initialise");
                    case NO_ROWS -> new BinaryCopyEncoder(sink).finish();
                    case BLOCK -> {
                        blocked.countDown();
                        try {
                            released.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            throw new IllegalStateException("interrupted while held by BLOCK", e);
                        }
                        yield real.transferTo(sink);
                    }
                };
            }

            @Override
            public void cancel() {
                real.cancel();
            }

            @Override
            public void close() {
                real.close();
            }
        };
    }
}
