package io.sluice.spi;

import java.util.List;

/**
 * The writing side of one stream. Lifecycle: {@link #table()} (preflight) -&gt; {@link #prepare} once -&gt; one writer
 * per partition (through {@link #openWriters} per worker), each committed or aborted on its own.
 */
public interface Target {
    /** The target object for people, e.g. its qualified name. No secrets. */
    String describe();

    /** The table and its columns. Fails with PREFLIGHT when it is missing or the user may not write it. */
    TargetTable table() throws ConnectorException;

    /** Readies the target for the load mode once per run (e.g. TRUNCATE), committed before writers open. */
    void prepare(LoadMode mode) throws ConnectorException;

    /** The exact statement a writer runs for these columns, for {@code sluice plan}. */
    String writeStatement(List<Column> columns, CopyFormat format);

    /** Opens a writer in its own transaction; may be called from several threads at once. */
    PartitionWriter openWriter(List<Column> columns, CopyFormat format) throws ConnectorException;

    /**
     * Writers for one worker, which writes its partitions one after another, each in its own transaction. Targets
     * that connect per writer override this to keep the connection between partitions; the default opens each
     * writer on its own.
     */
    default PartitionWriters openWriters(List<Column> columns, CopyFormat format) {
        java.util.Objects.requireNonNull(columns, "columns is null");
        java.util.Objects.requireNonNull(format, "format is null");
        return new PartitionWriters() {
            @Override
            public PartitionWriter open() throws ConnectorException {
                return openWriter(columns, format);
            }

            @Override
            public void close() {
            }
        };
    }

    /**
     * The digest of the target table's rows over {@code columns}, restricted by {@code predicate} (a partition's
     * {@link SourcePartition#portablePredicate()}) when given. Must render values like the source's digest does for
     * the same types. Empty when the target cannot compute it at that level.
     */
    default java.util.Optional<Digest> digest(List<Column> columns, java.util.Optional<String> predicate,
                                              Digest.Level level) throws ConnectorException {
        return java.util.Optional.empty();
    }

    /**
     * The run ledger this target keeps next to the data, if it can keep one. Without a ledger a spec must say
     * {@code ledger: off}, and runs cannot be resumed.
     */
    default java.util.Optional<io.sluice.spi.ledger.RunLedger> ledger() {
        return java.util.Optional.empty();
    }
}
