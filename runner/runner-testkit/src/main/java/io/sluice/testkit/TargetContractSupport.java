package io.sluice.testkit;

import io.sluice.spi.connector.TargetCapabilities;
import io.sluice.spi.data.Column;
import io.sluice.spi.data.CopyFormat;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.error.SpiCode;
import io.sluice.spi.ledger.LedgerWork;
import io.sluice.spi.write.LoadMode;
import io.sluice.spi.write.LoadRequest;
import io.sluice.spi.write.PartitionWriter;
import io.sluice.spi.write.PlannedLoad;
import io.sluice.spi.write.ReplacingLoads;
import io.sluice.spi.write.ReplacingTransaction;
import io.sluice.spi.write.Target;
import io.sluice.toolkit.copy.BinaryCopyEncoder;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * What {@link TargetContractTest} and {@link RunLedgerContractTest} need of a target, and how they write rows.
 *
 * <p>Each test asks for a table of its own ({@link #newTable()}: a name unique in the JVM, then
 * {@link TargetFixture#createTable}) with two columns in this order: {@code id}, a 64-bit integer, and {@code label}, text
 * that may be NULL. Rows go in as the runner sends them: a PostgreSQL COPY stream in {@link #format()}, split at
 * arbitrary bytes, into a writer of {@link Target#table()}'s columns.
 */
public abstract class TargetContractSupport {
    private static final AtomicInteger TABLES = new AtomicInteger();
    /** Small, so streams split mid-value, which writers must handle. */
    private static final int CHUNK_BYTES = 100;

    /** The connector's tables and targets for this suite. */
    protected abstract TargetFixture fixture();

    protected final void createTable(String table) throws Exception {
        fixture().createTable(table);
    }

    protected final TargetCapabilities capabilities() {
        return fixture().capabilities();
    }

    protected final Target target(String table) throws Exception {
        return fixture().target(table);
    }

    /**
     * An append load of {@code table}, planned as the runner plans one (the suites' two columns as its source): the
     * handle the suites write through.
     */
    protected final PlannedLoad load(String table) throws Exception {
        return target(table).planLoad(LoadRequest.of(LoadMode.APPEND), ContractSource.INSTANCE);
    }

    protected final List<ContractRow> readRows(String table) throws Exception {
        return fixture().readRows(table);
    }

    /** The COPY format rows are written in: binary, as the runner uses unless the target reads only text. */
    protected CopyFormat format() {
        return CopyFormat.BINARY;
    }

    /** A table name no other test in this JVM uses (lower case, so it needs no quoting), not created yet. */
    protected static String newName(String prefix) {
        return prefix + "_" + ProcessHandle.current().pid() + "_" + TABLES.incrementAndGet();
    }

    /** A new, empty table of the suites' shape; returns its name. */
    protected final String newTable() throws Exception {
        String table = newName("contract");
        createTable(table);
        return table;
    }

    /** Rows with ids {@code from} (inclusive) to {@code to} (exclusive); every fifth label NULL, others not ASCII. */
    protected static List<ContractRow> rows(long from, long to) {
        List<ContractRow> rows = new ArrayList<>();
        for (long id = from; id < to; id++) {
            rows.add(new ContractRow(id, id % 5 == 0 ? Optional.empty() : Optional.of("row " + id + " \u00e9\u20ac")));
        }
        return rows;
    }

    @SafeVarargs
    protected static List<ContractRow> concat(List<ContractRow>... parts) {
        List<ContractRow> all = new ArrayList<>();
        for (List<ContractRow> part : parts) {
            all.addAll(part);
        }
        return all;
    }

    /** The rows of {@code table} by id, to compare with what was written. */
    protected final List<ContractRow> sortedRows(String table) throws Exception {
        List<ContractRow> rows = new ArrayList<>(readRows(table));
        rows.sort(Comparator.comparingLong(ContractRow::id));
        return rows;
    }

    /** Asserts that {@code table} holds exactly {@code expected} (in any order), saying briefly how it differs. */
    protected final void assertRows(List<ContractRow> expected, String table, String message) throws Exception {
        List<ContractRow> wanted = new ArrayList<>(expected);
        wanted.sort(Comparator.comparingLong(ContractRow::id));
        List<ContractRow> actual = sortedRows(table);
        if (actual.equals(wanted)) {
            return;
        }
        int i = 0;
        while (i < wanted.size() && i < actual.size() && wanted.get(i).equals(actual.get(i))) {
            i++;
        }
        fail(message + ": expected " + summary(wanted) + " but " + table + " holds " + summary(actual)
                + "; first difference at row " + i + ": expected "
                + (i < wanted.size() ? wanted.get(i) : "no row") + ", found " + (i < actual.size() ? actual.get(i)
                : "no row"));
    }

    /** E.g. {@code 15 rows, ids 0-9, 100-104}; a repeated id shows as a range of its own. */
    protected static String summary(List<ContractRow> sortedRows) {
        if (sortedRows.isEmpty()) {
            return "no rows";
        }
        List<String> ranges = new ArrayList<>();
        long start = sortedRows.getFirst().id();
        long previous = start;
        for (ContractRow row : sortedRows.subList(1, sortedRows.size())) {
            if (row.id() != previous + 1) {
                ranges.add(start == previous ? Long.toString(start) : start + "-" + previous);
                start = row.id();
            }
            previous = row.id();
        }
        ranges.add(start == previous ? Long.toString(start) : start + "-" + previous);
        return sortedRows.size() + " rows, ids " + String.join(", ", ranges);
    }

    /** Streams {@code rows} into {@code writer} and ends the COPY, checking that {@code finish()} counts them all. */
    protected final void writeAndFinish(PartitionWriter writer, List<ContractRow> rows) throws ConnectorException {
        write(writer, rows);
        assertEquals(rows.size(), writer.finish(), "finish() must return the rows the target took");
    }

    /** Streams {@code rows} (header, tuples, trailer) into {@code writer} without ending the COPY. */
    protected final void write(PartitionWriter writer, List<ContractRow> rows) throws ConnectorException {
        if (format() == CopyFormat.BINARY) {
            BinaryCopyEncoder encoder = new BinaryCopyEncoder(writer, CHUNK_BYTES);
            for (ContractRow row : rows) {
                encoder.startRow(2);
                encoder.writeInt8(row.id());
                if (row.label().isPresent()) {
                    encoder.writeText(row.label().get());
                } else {
                    encoder.writeNull();
                }
            }
            encoder.finish();
            return;
        }
        StringBuilder text = new StringBuilder();
        for (ContractRow row : rows) {
            // the labels hold no tab, newline or backslash, so they need no escaping
            text.append(row.id()).append('\t').append(row.label().orElse("\\N")).append('\n');
        }
        byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);
        for (int offset = 0; offset < bytes.length; offset += CHUNK_BYTES) {
            writer.write(bytes, offset, Math.min(CHUNK_BYTES, bytes.length - offset));
        }
    }

    /** Writes {@code rows} through a writer of its own and commits them (no ledger row). */
    protected final void commit(PlannedLoad target, List<Column> columns, List<ContractRow> rows)
            throws ConnectorException {
        try (PartitionWriter writer = target.openWriter(columns, format())) {
            writeAndFinish(writer, rows);
            writer.commit();
        }
    }

    /** The result of a task run on another thread, with its failure (an assertion too) as the test's own. */
    protected static <T> T result(Future<T> task) throws Exception {
        try {
            return task.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception cause) {
                throw cause;
            }
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw e;
        }
    }

    /** The target's one-transaction load, as the runner opens it for a load of unknown size. */
    protected final ReplacingTransaction replacing(PlannedLoad target, List<Column> columns,
                                                   Optional<LedgerWork<Boolean>> first) throws ConnectorException {
        ReplacingLoads loads = target.replacingLoads().orElseThrow(() -> new ConnectorException(ErrorKind.FAILED,
                SpiCode.SPI004, target.plan().table().qualifiedName() + " cannot load in one transaction",
                "declare replacesInOneTransaction in the factory's capabilities"));
        return loads.open(columns, format(), first, Long.MAX_VALUE);
    }
}
