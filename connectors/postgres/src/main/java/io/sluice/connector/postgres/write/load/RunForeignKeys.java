package io.sluice.connector.postgres.write.load;

import io.sluice.connector.postgres.catalog.TablesAhead;
import io.sluice.connector.postgres.catalog.TargetCatalog;
import io.sluice.connector.postgres.session.ControlConnection;
import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.connector.postgres.session.PostgresErrors;
import io.sluice.connector.postgres.session.TableLocks;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.ledger.LedgerTransaction;
import io.sluice.spi.ledger.LoadMarks;
import io.sluice.spi.write.LoadMode;
import io.sluice.spi.write.LoadPlan;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * One table's foreign keys to the run's other tables ({@link ForeignKeys}): a created table's, from its definition,
 * recorded when it is created; an existing table's, held off (dropped, with their marks) before the first stream of
 * a truncate. Either way they are added once every stream is done. Also takes over what an unfinished earlier run of
 * the spec owed on the table.
 */
public final class RunForeignKeys {
    private final LoadTable table;
    private final Optional<CreatedDefinition> definition;
    private volatile List<ForeignKeys.Key> keys = List.of();
    /** The table exists and has those keys: they are dropped before the first stream. */
    private volatile boolean holds;
    /** The table as read ahead of planning (its owner, whether it has foreign keys at all), if it was. */
    private final Optional<TablesAhead.Table> ahead;

    RunForeignKeys(LoadTable table, Optional<CreatedDefinition> definition,
                   Optional<TablesAhead.Table> ahead) {
        this.table = requireNonNull(table, "table is null");
        this.definition = requireNonNull(definition, "definition is null");
        this.ahead = requireNonNull(ahead, "ahead is null");
    }

    /**
     * Plans the foreign keys between this table and the run's other tables ({@code copies}: the copies' names by
     * source relation): a created table's from its definition; an existing table's from its catalog, held off while
     * the streams load.
     */
    LoadPlan.AcrossStreams plan(Map<String, String> copies) throws ConnectorException {
        List<String> notes = new ArrayList<>();
        if (definition.isPresent()) {
            keys = definition.get().foreignKeys(copies, notes);
            return new LoadPlan.AcrossStreams(List.of(), ForeignKeys.statements(keys), notes);
        }
        // A truncate empties parents that the run's other tables refer to, which PostgreSQL refuses while the keys
        // stand; other modes keep a table's keys as they are. Only the table's owner may drop them.
        if (table.existing().isEmpty() || table.request().mode() != LoadMode.TRUNCATE || copies.isEmpty()) {
            return LoadPlan.AcrossStreams.NONE;
        }
        // Read ahead: a table without foreign keys, or not this user's, needs no read of its keys.
        if (ahead.isPresent() && (!ahead.get().hasForeignKeys() || !ahead.get().ownedByUser())) {
            return LoadPlan.AcrossStreams.NONE;
        }
        PostgresConnections connections = table.connections();
        // One lease for both reads: the keys need qualified names, and the owner reads the same on any session.
        try (ControlConnection qualifying = connections.qualifying("reading the foreign keys of " + table.quoted())) {
            if (!new TargetCatalog(qualifying.connection()).look(table.existing().get().oid()).ownedByUser()) {
                return LoadPlan.AcrossStreams.NONE;
            }
            keys = ForeignKeys.between(qualifying.connection(), table.existing().get().oid(), table.quoted(),
                    List.copyOf(copies.values()));
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "reading the foreign keys of "
                    + table.quoted());
        }
        holds = !keys.isEmpty();
        if (holds) {
            notes.add("its foreign keys to tables of this run are held off while the streams load (so the tables "
                    + "load in any order and can be emptied), then added back and validated");
        }
        return new LoadPlan.AcrossStreams(keys.stream().map(ForeignKeys.Key::drop).toList(),
                ForeignKeys.statements(keys), notes);
    }

    /**
     * Before the first stream: a table an unfinished earlier run of the spec created with its definition has that
     * run's unfinished builds and foreign keys taken over; an existing table's foreign keys to the run's tables are
     * recorded and dropped. One transaction, with the marks.
     */
    void beforeStreams(LoadMarks marks) throws ConnectorException {
        if (table.existing().isEmpty()) {
            return;
        }
        Map<String, Map<String, String>> earlier = marks.ofUnfinishedEarlierRuns();
        if (!holds && earlier.isEmpty()) {
            return;
        }
        table.inTransaction("holding the foreign keys of " + table.quoted() + " off for the run", (c, tx) -> {
            Map<String, String> done = marks.reading().apply(tx);
            if (!done.containsKey(CreatedDefinition.TABLE) && !done.containsKey(ForeignKeys.TABLE)) {
                done = adoptUnfinished(earlier, done, marks, tx);
            }
            if (holds && !done.containsKey(ForeignKeys.HELD)) {
                table.locks().lock(c, List.of(table.quoted()), TableLocks.Mode.ACCESS_EXCLUSIVE,
                        "drop its foreign keys for the run", ErrorKind.PREFLIGHT);
                ForeignKeys.hold(c, table.quoted(), keys, done, marks, tx);
            }
        });
    }

    /** In the transaction that creates the table: the keys it owes, recorded with it. */
    void recordCreated(Map<String, String> done, LoadMarks marks, LedgerTransaction tx) throws ConnectorException {
        if (!keys.isEmpty()) {
            ForeignKeys.record(table.quoted(), keys, done, marks, tx);
        }
    }

    /**
     * What unfinished earlier runs left to do on this table (builds of a table they created, foreign keys they owe),
     * written into this run's marks; returns the marks as they are now.
     */
    Map<String, String> adoptUnfinished(Map<String, Map<String, String>> earlier, Map<String, String> done,
                                        LoadMarks marks, LedgerTransaction tx) throws ConnectorException {
        Map<String, String> now = new HashMap<>(done);
        for (Map<String, String> run : earlier.values()) {
            if (run.containsKey(CreatedDefinition.BUILDS) && !run.containsKey(CreatedDefinition.BUILT)
                    && !now.containsKey(CreatedDefinition.BUILDS)) {
                for (Map.Entry<String, String> mark : run.entrySet()) {
                    if (mark.getKey().startsWith("definition.")) {
                        marks.writing(mark.getKey(), mark.getValue()).apply(tx);
                        now.put(mark.getKey(), mark.getValue());
                    }
                }
            }
            if (ForeignKeys.owed(run)) {
                ForeignKeys.record(table.quoted(), ForeignKeys.recorded(run), now, marks, tx);
                now = marks.reading().apply(tx);
            }
        }
        return now;
    }
}
