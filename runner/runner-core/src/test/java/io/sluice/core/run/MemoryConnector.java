package io.sluice.core.run;

import io.sluice.spi.connector.Connector;
import io.sluice.spi.connector.Options;
import io.sluice.spi.connector.Sources;
import io.sluice.spi.connector.Targets;
import io.sluice.spi.data.Column;
import io.sluice.spi.data.ColumnPair;
import io.sluice.spi.data.CopyFormat;
import io.sluice.spi.data.CopySink;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.read.Consistency;
import io.sluice.spi.read.PartitionReader;
import io.sluice.spi.read.PlanRequest;
import io.sluice.spi.read.Source;
import io.sluice.spi.read.SourcePartition;
import io.sluice.spi.read.SourceProjection;
import io.sluice.spi.read.SourceSession;
import io.sluice.spi.write.LoadPlan;
import io.sluice.spi.write.LoadRequest;
import io.sluice.spi.write.PartitionWriter;
import io.sluice.spi.write.PlannedLoad;
import io.sluice.spi.write.Target;
import io.sluice.spi.write.TargetTable;
import io.sluice.toolkit.copy.BinaryCopyEncoder;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An in-memory source and target for testing the executor's scheduling: partitions of given sizes, with faults
 * injected per partition. It speaks the real binary COPY framing through {@link BinaryCopyEncoder}.
 */
final class MemoryConnector implements Connector {
    /** What a partition does when read. */
    enum Fault { NONE, TRANSIENT_ONCE, PERMANENT, BLOCK_UNTIL_CANCELLED, WRITER_DROPS_A_ROW }

    record Part(String id, long rows, Fault fault) implements SourcePartition {
        @Override
        public String predicate() {
            return "part " + id;
        }

        @Override
        public long estimatedRows() {
            return rows;
        }

        @Override
        public long estimatedBytes() {
            return rows * 10;
        }
    }

    final List<Part> parts;
    final List<String> started = new CopyOnWriteArrayList<>();
    final Map<String, Long> committed = new ConcurrentHashMap<>();
    final AtomicInteger aborted = new AtomicInteger();
    final AtomicInteger truncates = new AtomicInteger();
    final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();
    final CountDownLatch blocked = new CountDownLatch(1);

    MemoryConnector(List<Part> parts) {
        this.parts = List.copyOf(parts);
    }

    @Override
    public java.util.Optional<Sources> sources() {
        return java.util.Optional.of(this::source);
    }

    /** The source side of a stream, from its validated {@code source:} options. */
    public Source source(Options options) {
        return new Source() {
            @Override
            public String describe() {
                return "memory";
            }

            @Override
            public List<Column> columns() {
                return List.of(Column.of("id", "bigint"));
            }

            @Override
            public SourceProjection project(List<ColumnPair> pairs) {
                return new SourceProjection() {
                    @Override
                    public CopyFormat format() {
                        return CopyFormat.BINARY;
                    }

                    @Override
                    public List<String> expressions() {
                        return List.of("id");
                    }
                };
            }

            @Override
            public List<SourcePartition> plan(PlanRequest request) {
                return new ArrayList<>(parts);
            }

            @Override
            public String readStatement(SourcePartition partition, SourceProjection projection) {
                return "read " + partition.id();
            }

            @Override
            public SourceSession openSession(Consistency consistency) {
                return new SourceSession() {
                    @Override
                    public String snapshotMode() {
                        return "none";
                    }

                    @Override
                    public PartitionReader openReader(SourcePartition partition, SourceProjection projection) {
                        return reader((Part) partition);
                    }

                    @Override
                    public void close() {
                    }
                };
            }
        };
    }

    private int number(Part part) {
        return parts.indexOf(part);
    }

    private PartitionReader reader(Part part) {
        return new PartitionReader() {
            private volatile boolean cancelled;

            @Override
            public long transferTo(CopySink sink) throws ConnectorException {
                started.add(part.id());
                int attempt = attempts.computeIfAbsent(part.id(), k -> new AtomicInteger()).incrementAndGet();
                if (part.fault() == Fault.TRANSIENT_ONCE && attempt == 1) {
                    throw new ConnectorException(ErrorKind.TRANSIENT, "MEM001", "connection reset", null);
                }
                if (part.fault() == Fault.PERMANENT) {
                    throw new ConnectorException(ErrorKind.DATA, "MEM002", "value too long in column \"id\"",
                            "make the column wider");
                }
                BinaryCopyEncoder encoder = new BinaryCopyEncoder(sink);
                for (long i = 0; i < part.rows(); i++) {
                    encoder.startRow(1);
                    encoder.writeInt8(number(part) * 1_000_000L + i);
                }
                if (part.fault() == Fault.BLOCK_UNTIL_CANCELLED) {
                    blocked.countDown();
                    while (!cancelled) {
                        Thread.onSpinWait();
                    }
                    throw new ConnectorException(ErrorKind.FAILED, "MEM003", "cancelled", null);
                }
                return encoder.finish();
            }

            @Override
            public void cancel() {
                cancelled = true;
            }

            @Override
            public void close() {
            }
        };
    }

    @Override
    public java.util.Optional<Targets> targets() {
        return java.util.Optional.of(this::target);
    }

    /** The target side of a stream, from its validated {@code target:} options. */
    public Target target(Options options) {
        return new Target() {
            @Override
            public String describe() {
                return "memory";
            }

            @Override
            public TargetTable table() {
                return new TargetTable("memory", List.of(Column.of("id", "bigint")));
            }

            @Override
            public PlannedLoad planLoad(LoadRequest request, Source source) {
                return load();
            }
        };
    }

    /** The load of the memory target: every request loads the same way. */
    PlannedLoad load() {
        TargetTable table = new TargetTable("memory", List.of(Column.of("id", "bigint")));
        return new PlannedLoad() {
            @Override
            public LoadPlan plan() {
                return LoadPlan.of(table);
            }

            @Override
            public void truncate() {
                truncates.incrementAndGet();
            }

            @Override
            public String writeStatement(List<Column> columns, CopyFormat format) {
                return "write";
            }

            @Override
            public PartitionWriter openWriter(List<Column> columns, CopyFormat format) {
                return writer();
            }
        };
    }

    private PartitionWriter writer() {
        return new PartitionWriter() {
            private long bytes;
            private String partId = "(empty)";

            @Override
            public void write(byte[] buffer, int offset, int length) {
                if (bytes == 0 && length >= 33) {
                    // The first row's value carries the partition number: header 19 bytes, field count 2, length 4.
                    long value = java.nio.ByteBuffer.wrap(buffer, offset + 25, 8).getLong();
                    partId = parts.get((int) (value / 1_000_000L)).id();
                }
                bytes += length;
            }

            @Override
            public long finish() {
                // 19 bytes of header+trailer, 14 per one-column int8 row
                long rows = (bytes - 19) / 14;
                boolean drops = parts.stream().anyMatch(p -> p.id().equals(partId)
                        && p.fault() == Fault.WRITER_DROPS_A_ROW);
                return drops ? rows - 1 : rows;
            }

            @Override
            public void commit() {
                committed.merge(partId, (bytes - 19) / 14, Long::sum);
            }

            @Override
            public void abort() {
                aborted.incrementAndGet();
            }

            @Override
            public void close() {
            }
        };
    }

    @Override
    public void close() {
    }
}
