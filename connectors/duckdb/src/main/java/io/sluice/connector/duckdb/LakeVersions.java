package io.sluice.connector.duckdb;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.read.TableVersions;

import org.duckdb.DuckDBConnection;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Collectors;

import static io.sluice.connector.duckdb.DuckDbCode.DUCK019;
import static io.sluice.connector.duckdb.DuckDbCode.DUCK020;
import static java.util.Objects.requireNonNull;

/**
 * An Iceberg or Delta source's versions for {@code incremental: { new-snapshots: true }}: the data files the
 * versions after the last done run's added are the pinned version's files that the loaded version did not have
 * (data files are never rewritten in place), so this lists the loaded version's. That is exact only for a history of appends, so any version in
 * between that deleted, overwrote or rewrote files (an Iceberg snapshot whose operation is not {@code append}, a
 * Delta commit with a {@code remove} action, compaction included) refuses the plan.
 */
final class LakeVersions implements TableVersions {
    @FunctionalInterface
    interface Pins {
        LakeTable.Pin pin() throws ConnectorException;
    }

    private final Pins pins;
    private final DuckDbDatabase database;

    LakeVersions(Pins pins, DuckDbDatabase database) {
        this.pins = requireNonNull(pins, "pins is null");
        this.database = requireNonNull(database, "database is null");
    }

    @Override
    public String describePinned() throws ConnectorException {
        return pins.pin().describe();
    }

    @Override
    public String pinnedToken() throws ConnectorException {
        return pins.pin().token();
    }

    /** The data files of the loaded version, as partition ids; the pinned version's were counted by the plan. */
    @Override
    public Set<String> loadedBy(String loadedToken) throws ConnectorException {
        LakeTable.Pin pin = pins.pin();
        LakeTable table = pin.table();
        String prefix = table.format().key + ":";
        if (!loadedToken.startsWith(prefix)) {
            throw cannotFollow(pin, "the last done run of this stream loaded " + loadedToken + ", not a version of "
                    + "this " + table.format().key + " table");
        }
        String loaded = loadedToken.substring(prefix.length());
        if (loaded.equals("none") || pin.version().isEmpty()) {
            return Set.of(); // nothing loaded before, or nothing to load now
        }
        try (DuckDBConnection connection = database.connect(DuckDbDatabase.isRemote(table.folder()))) {
            long from = parse(loaded, pin);
            requireAppendsOnly(connection, pin, from);
            Set<String> ids = new LinkedHashSet<>();
            for (String file : new LakeTable.Pin(table, pin.metadata(), OptionalLong.of(from)).fileRows(connection)
                    .keySet()) {
                ids.add("file:" + table.relative(file));
            }
            return ids;
        } catch (SQLException e) {
            throw DuckDbErrors.translate(e, DuckDbErrors.Phase.PREFLIGHT, pin.describe(), database.redactor());
        }
    }

    private static long parse(String loaded, LakeTable.Pin pin) throws ConnectorException {
        try {
            return Long.parseLong(loaded);
        } catch (NumberFormatException e) {
            throw cannotFollow(pin, "the ledger's mark of the last loaded version is not a number: " + loaded);
        }
    }

    private void requireAppendsOnly(Connection connection, LakeTable.Pin pin, long from)
            throws SQLException, ConnectorException {
        long to = pin.version().getAsLong();
        if (from == to) {
            return;
        }
        List<String> others = switch (pin.table().format()) {
            case ICEBERG -> icebergNonAppends(connection, pin, from, to);
            case DELTA -> deltaNonAppends(connection, pin, from, to);
        };
        if (!others.isEmpty()) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, DUCK020, pin.table().format().key + " table "
                    + pin.table().folder() + " changed by more than appends since " + pin.table().format().versionWord
                    + " " + from + ", which the last done run loaded: " + String.join(", ", others.subList(0,
                    Math.min(5, others.size()))) + (others.size() > 5 ? ", ..." : "") + "; loading only the new "
                    + "files would keep deleted or rewritten rows, or load rows twice; nothing was read",
                    "run once with --full-refresh (with load-mode truncate it reloads the table; merge with a "
                            + "merge-key updates rows, delete-missing removes the deleted ones); later runs then "
                            + "follow appends again");
        }
    }

    /** The snapshots after {@code from} up to {@code to} whose operation is not append, as "snapshot id (op)". */
    private static List<String> icebergNonAppends(Connection connection, LakeTable.Pin pin, long from, long to)
            throws SQLException, ConnectorException {
        Map<Long, LakeTable.Snapshot> snapshots = new LinkedHashMap<>();
        for (LakeTable.Snapshot s : pin.table().snapshots(connection, pin.metadata().orElseThrow())) {
            snapshots.put(s.id(), s);
        }
        if (!snapshots.containsKey(from)) {
            throw cannotFollow(pin, "snapshot " + from + ", which the last done run loaded, is no longer in the "
                    + "table's metadata " + pin.metadata().orElseThrow() + " (expired?), so what was added since "
                    + "cannot be told");
        }
        long fromSequence = snapshots.get(from).sequence();
        long toSequence = snapshots.get(to).sequence();
        if (toSequence < fromSequence) {
            throw cannotFollow(pin, "snapshot " + to + " is older than snapshot " + from + ", which the last done run "
                    + "loaded");
        }
        List<String> others = new ArrayList<>();
        for (LakeTable.Snapshot s : snapshots.values()) {
            if (s.sequence() > fromSequence && s.sequence() <= toSequence && !s.operation().equalsIgnoreCase("append")) {
                others.add("snapshot " + s.id() + " (" + s.operation() + ")");
            }
        }
        return others;
    }

    /** The Delta versions after {@code from} up to {@code to} whose commit removes a file, as "version n (remove)". */
    private static List<String> deltaNonAppends(Connection connection, LakeTable.Pin pin, long from, long to)
            throws SQLException, ConnectorException {
        if (to < from) {
            throw cannotFollow(pin, "version " + to + " is older than version " + from + ", which the last done run "
                    + "loaded");
        }
        String log = pin.table().folder() + "/_delta_log/";
        Set<String> present = new LinkedHashSet<>(DuckDbPlanner.strings(connection, "SELECT file FROM glob("
                + Sql.literal(log + "*.json") + ")"));
        List<String> commits = new ArrayList<>();
        for (long v = from + 1; v <= to; v++) {
            String file = log + String.format("%020d", v) + ".json";
            if (!present.contains(file)) {
                throw cannotFollow(pin, "the commit of version " + v + " (" + file + ") is gone from the log, so "
                        + "whether it only appended cannot be told");
            }
            commits.add(file);
        }
        String list = commits.stream().map(Sql::literal).collect(Collectors.joining(", ", "[", "]"));
        List<String> others = new ArrayList<>();
        for (String file : DuckDbPlanner.strings(connection, "SELECT DISTINCT filename FROM read_ndjson_objects("
                + list + ", filename = true) WHERE json_extract(json, '$.remove') IS NOT NULL ORDER BY filename")) {
            String name = file.substring(file.lastIndexOf('/') + 1);
            others.add("version " + Long.parseLong(name.substring(0, name.indexOf('.'))) + " (removes files)");
        }
        return others;
    }

    private static ConnectorException cannotFollow(LakeTable.Pin pin, String why) {
        return new ConnectorException(ErrorKind.INVALID_SPEC, DUCK019, "new-snapshots cannot follow "
                + pin.describe() + ": " + why + "; nothing was read", "run once with --full-refresh: it loads the "
                + "pinned version whole and records it for the next run");
    }
}
