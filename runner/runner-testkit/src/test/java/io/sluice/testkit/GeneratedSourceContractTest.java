package io.sluice.testkit;

import io.sluice.spi.data.Column;
import io.sluice.spi.data.ColumnPair;
import io.sluice.spi.data.CopyFormat;
import io.sluice.spi.data.CopySink;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.read.Consistency;
import io.sluice.spi.read.PartitionReader;
import io.sluice.spi.read.PlanRequest;
import io.sluice.spi.read.Source;
import io.sluice.spi.read.SourcePartition;
import io.sluice.spi.read.SourceProjection;
import io.sluice.spi.read.SourceSession;
import io.sluice.toolkit.copy.BinaryCopyEncoder;

import java.util.ArrayList;
import java.util.List;

/**
 * Runs the contract suite against a small source that generates its rows, so the suite itself is tested against a
 * real SPI implementation and a real PostgreSQL, independent of the connectors' progress.
 */
class GeneratedSourceContractTest extends SourceContractTest {
    private static final long ROWS = 10_000;

    @Override
    protected Source createSource() {
        return new GeneratedSource(ROWS);
    }

    @Override
    protected long expectedRows() {
        return ROWS;
    }

    /** Rows (id bigint, label text, amount double precision, null every 7th row) split into id ranges. */
    record GeneratedSource(long rows) implements Source {
        @Override
        public String describe() {
            return "generate_series(0, " + (rows - 1) + ")";
        }

        @Override
        public List<Column> columns() {
            return List.of(new Column("id", "bigint", 20, false, Column.Generation.NONE),
                    new Column("label", "text", 25, true, Column.Generation.NONE),
                    new Column("amount", "double precision", 701, true, Column.Generation.NONE));
        }

        @Override
        public SourceProjection project(List<ColumnPair> pairs) {
            List<String> expressions = pairs.stream().map(p -> p.source().name()).toList();
            return new SourceProjection() {
                @Override
                public CopyFormat format() {
                    return CopyFormat.BINARY;
                }

                @Override
                public List<String> expressions() {
                    return expressions;
                }
            };
        }

        @Override
        public List<SourcePartition> plan(PlanRequest request) {
            long rowsPerPartition = request.rowsPerPartition();
            long count = Math.max(request.degree(), (rows + rowsPerPartition - 1) / rowsPerPartition);
            List<SourcePartition> partitions = new ArrayList<>();
            for (long i = 0; i < count; i++) {
                partitions.add(new Range(rows * i / count, rows * (i + 1) / count));
            }
            return partitions;
        }

        @Override
        public String readStatement(SourcePartition partition, SourceProjection projection) {
            return "generate " + partition.predicate();
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
                    return new RangeReader((Range) partition);
                }

                @Override
                public void close() {
                }
            };
        }
    }

    record Range(long from, long to) implements SourcePartition {
        @Override
        public String id() {
            return "range:" + from + "-" + to;
        }

        @Override
        public String predicate() {
            return "id >= " + from + " AND id < " + to;
        }

        @Override
        public long estimatedRows() {
            return to - from;
        }

        @Override
        public long estimatedBytes() {
            return -1;
        }
    }

    static final class RangeReader implements PartitionReader {
        private final Range range;
        private volatile boolean cancelled;

        RangeReader(Range range) {
            this.range = range;
        }

        @Override
        public long transferTo(CopySink sink) throws ConnectorException {
            // A tiny buffer so streams split mid-value, which sinks must handle.
            BinaryCopyEncoder encoder = new BinaryCopyEncoder(sink, 100);
            for (long id = range.from(); id < range.to(); id++) {
                if (cancelled) {
                    throw new ConnectorException(io.sluice.spi.error.ErrorKind.FAILED, "GEN001", "cancelled", null);
                }
                encoder.startRow(3);
                encoder.writeInt8(id);
                encoder.writeText("row " + id + " \u00e9\u20ac");
                if (id % 7 == 0) {
                    encoder.writeNull();
                } else {
                    encoder.writeFloat8(id / 4.0);
                }
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
    }
}
