package io.sluice.spi.changes;

import io.sluice.spi.error.ConnectorException;

import java.time.Duration;

/**
 * The row changes of a source's tables since a position, read in commit order (for PostgreSQL: a logical replication
 * slot's pgoutput stream). Whole transactions only; a transaction that ended at or before the position the feed was
 * opened from is never handed out again, so a position recorded with the applied rows makes every change apply once.
 * Read by one thread; {@link #confirm} may come from another (the applier's), and takes effect with the reading.
 */
public interface ChangeFeed extends AutoCloseable {
    /** For people, e.g. {@code slot sluice_orders}. No secrets. */
    String describe();

    /** Where the source is now: a run that catches up applies every change committed up to it. */
    String currentPosition() throws ConnectorException;

    /**
     * The next whole transactions, in commit order, up to about {@code maxChanges} changes or {@code maxBytes} of
     * them as the source sent them, whichever comes first (a bigger transaction comes in parts, {@link
     * ChangeBatch#partial()}, so memory stays bounded by wide rows too), waiting at most {@code wait} for the first;
     * an empty batch when none came. It reads on in order: the caller stops once {@link #reached} says so.
     */
    ChangeBatch next(int maxChanges, long maxBytes, Duration wait) throws ConnectorException;

    /**
     * Called now and then by the thread that reads while it waits to hand a batch on (the applier is behind): a feed
     * whose source ends a quiet stream after a while tells it the reader is alive. The reading thread's call, like
     * {@link #next}.
     */
    default void keepAlive() throws ConnectorException {
    }

    /**
     * How the feed's positions order, when it can tell: a run that applies changes to several tables at once records
     * how far each table got and compares positions when it goes on. Empty (the default): changes apply through one
     * connection.
     */
    default java.util.Optional<java.util.Comparator<String>> positionOrder() {
        return java.util.Optional.empty();
    }

    /** Whether everything the source committed up to {@code position} has been handed out. */
    boolean reached(String position);

    /** How many bytes of the source's log lie between what was handed out and {@code position}; 0 when reached. */
    long bytesBehind(String position);

    /**
     * Tells the source the changes up to {@code position} are applied and kept: it may forget them. Thread-safe: the
     * reading thread passes it on with its next read, or when the feed closes.
     */
    void confirm(String position) throws ConnectorException;

    /**
     * The values the source's sequences behind its tables' columns reached (serial and identity columns), by table
     * (as {@link ChangeRelation#name()}) and column: for a cut-over, the target's are set past them. Empty when the
     * source has none to tell.
     */
    default java.util.Map<String, java.util.Map<String, Long>> sequenceValues() throws ConnectorException {
        return java.util.Map.of();
    }

    /** Ends reading. Never fails. */
    @Override
    void close();
}
