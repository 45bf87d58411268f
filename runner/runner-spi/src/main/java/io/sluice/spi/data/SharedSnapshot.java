package io.sluice.spi.data;

/**
 * One snapshot of a source connection that several streams of a run read together
 * ({@link io.sluice.spi.read.SnapshotGroup#exportSnapshot}), so the tables they copy show one moment of the source, as pg_dump's do: taken once, after the locks that keep
 * every table read from being truncated or altered under it, and held until closed (the run's end).
 */
public interface SharedSnapshot extends AutoCloseable {
    /** For plans and the ledger, e.g. {@code 00000003-0000001B-1}. */
    String id();

    /**
     * Where the changes after this snapshot start, when it was exported by {@link io.sluice.spi.changes.ChangeSource#startChanges}: the
     * position a change feed opened from applies exactly the changes the copy did not see.
     */
    default java.util.Optional<String> changesFrom() {
        return java.util.Optional.empty();
    }

    /** Ends the snapshot: no session can read in it afterwards. Never fails. */
    @Override
    void close();
}
