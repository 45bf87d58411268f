package io.sluice.connector.postgres.ledger;

import io.sluice.connector.postgres.catalog.PostgresCatalog;
import io.sluice.connector.postgres.catalog.SqlQuote;
import io.sluice.connector.postgres.session.ControlConnection;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.ledger.LedgerStore;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static io.sluice.connector.postgres.ledger.LedgerTables.LEDGER_FIX_TAIL;
import static io.sluice.connector.postgres.ledger.LedgerTables.execute;
import static io.sluice.connector.postgres.ledger.LedgerTables.rollbackQuietly;
import static java.util.Objects.requireNonNull;

/**
 * The run ledger's DDL, by version: {@code ledger_version} holds one row per applied version, and
 * {@link #ensureReady()} applies the missing steps under an advisory lock, so two runs starting at once neither race
 * the DDL nor see half-made tables. A ledger of a newer release is refused rather than misread, and every privilege a
 * run needs is checked up front.
 */
public final class LedgerSchema {
    private final LedgerTables tables;

    LedgerSchema(LedgerTables tables) {
        this.tables = requireNonNull(tables, "tables is null");
    }

    private String table(String name) {
        return tables.table(name);
    }

    /**
     * The DDL of each ledger version, by version (index 0 is version 1). A later release appends a step (ALTER
     * TABLE ... ADD COLUMN, say) and bumps {@link LedgerStore#VERSION}; older ledgers get the missing steps.
     */
    private List<List<String>> migrations() {
        String version = table("ledger_version");
        String streams = table("run_streams");
        String partitions = table("run_partitions");
        String attempts = table("run_attempts");
        String marks = table("run_marks");
        return List.of(List.of(
                "CREATE TABLE IF NOT EXISTS " + version + " (version integer PRIMARY KEY, "
                        + "applied_at timestamptz NOT NULL DEFAULT now(), "
                        + "applied_by text NOT NULL DEFAULT current_user)",
                "CREATE TABLE IF NOT EXISTS " + streams + " ("
                        + "run_id text NOT NULL, "
                        + "stream text NOT NULL, "
                        + "spec_name text NOT NULL, "
                        + "spec_checksum text NOT NULL, "
                        + "definition text NOT NULL, "
                        + "target_table text NOT NULL, "
                        + "state text NOT NULL CHECK (state IN ('running', 'done', 'failed', 'interrupted')), "
                        + "snapshot_mode text NOT NULL, "
                        + "started_at timestamptz NOT NULL, "
                        + "finished_at timestamptz, "
                        + "truncated_at timestamptz, "
                        + "row_count bigint NOT NULL DEFAULT 0, "
                        + "starts integer NOT NULL DEFAULT 1, "
                        + "error text, "
                        + "PRIMARY KEY (run_id, stream))",
                "CREATE INDEX IF NOT EXISTS run_streams_by_spec ON " + streams + " (spec_name, started_at DESC)",
                "CREATE TABLE IF NOT EXISTS " + partitions + " ("
                        + "run_id text NOT NULL, "
                        + "stream text NOT NULL, "
                        + "partition_index integer, "
                        + "partition_id text NOT NULL, "
                        + "predicate text NOT NULL, "
                        + "checkpoint text NOT NULL, "
                        + "state text NOT NULL CHECK (state IN ('planned', 'done')), "
                        + "row_count bigint NOT NULL DEFAULT 0, "
                        + "byte_count bigint NOT NULL DEFAULT 0, "
                        + "attempts integer NOT NULL DEFAULT 0, "
                        + "started_at timestamptz, "
                        + "finished_at timestamptz, "
                        + "PRIMARY KEY (run_id, stream, partition_id))",
                "CREATE TABLE IF NOT EXISTS " + attempts + " ("
                        + "id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, "
                        + "run_id text NOT NULL, "
                        + "stream text NOT NULL, "
                        + "partition_id text NOT NULL, "
                        + "attempt integer NOT NULL, "
                        + "started_at timestamptz NOT NULL, "
                        + "finished_at timestamptz NOT NULL, "
                        + "outcome text NOT NULL CHECK (outcome IN ('retried', 'failed', 'cancelled')), "
                        + "error_code text, "
                        + "message text)",
                "CREATE INDEX IF NOT EXISTS run_attempts_by_partition ON " + attempts
                        + " (run_id, stream, partition_id)",
                "COMMENT ON TABLE " + streams + " IS 'Sluice run ledger: one row per stream of a run'",
                "COMMENT ON TABLE " + partitions + " IS 'Sluice run ledger: one row per planned partition; "
                        + "state done commits with the partition''s rows'",
                "COMMENT ON TABLE " + attempts + " IS 'Sluice run ledger: failed or cancelled partition attempts'"),
                // 2: what a run keeps besides partitions (a table it created, a shadow table, an incremental mark)
                List.of("CREATE TABLE IF NOT EXISTS " + marks + " ("
                                + "run_id text NOT NULL, "
                                + "stream text NOT NULL, "
                                + "name text NOT NULL, "
                                + "value text NOT NULL, "
                                + "updated_at timestamptz NOT NULL DEFAULT now(), "
                                + "PRIMARY KEY (run_id, stream, name))",
                        "COMMENT ON TABLE " + marks + " IS 'Sluice run ledger: named values a stream of a run keeps'"),
                // 3: which process of a joined run holds a partition, until when
                List.of("ALTER TABLE " + partitions + " ADD COLUMN IF NOT EXISTS claimed_by text, "
                        + "ADD COLUMN IF NOT EXISTS lease_until timestamptz"),
                // 4: a run of thousands of streams looks up each stream's earlier runs, and whether they finished
                List.of("CREATE INDEX IF NOT EXISTS run_streams_by_stream ON " + streams
                                + " (spec_name, stream, started_at DESC)",
                        "CREATE INDEX IF NOT EXISTS run_streams_unfinished ON " + streams
                                + " (run_id) WHERE state <> 'done'"),
                // 5: rows a partition set aside (rejects:), committed with it
                List.of("ALTER TABLE " + partitions + " ADD COLUMN IF NOT EXISTS rows_rejected bigint NOT NULL "
                        + "DEFAULT 0"),
                // 6: how far each change feed (changes:) got; the applied position commits with the applied rows
                List.of("CREATE TABLE IF NOT EXISTS " + table("change_feeds") + " ("
                                + "spec_name text NOT NULL, "
                                + "feed text NOT NULL, "
                                + "state text NOT NULL CHECK (state IN ('copying', 'applying')), "
                                + "position text NOT NULL, "
                                + "run_id text NOT NULL, "
                                + "updated_at timestamptz NOT NULL DEFAULT now(), "
                                + "PRIMARY KEY (spec_name, feed))",
                        "COMMENT ON TABLE " + table("change_feeds") + " IS 'Sluice run ledger: how far each change "
                                + "feed got; position commits with the changes applied'"),
                // 7: how far each table of a feed got when tables apply on several connections at once
                List.of("CREATE TABLE IF NOT EXISTS " + table("change_feed_tables") + " ("
                                + "spec_name text NOT NULL, "
                                + "feed text NOT NULL, "
                                + "table_name text NOT NULL, "
                                + "position text NOT NULL, "
                                + "PRIMARY KEY (spec_name, feed, table_name))",
                        "COMMENT ON TABLE " + table("change_feed_tables") + " IS 'Sluice run ledger: how far a "
                                + "table of a change feed got past the feed''s position; commits with its changes'"));
    }

    void ensureReady() throws ConnectorException {
        try (ControlConnection control = tables.control()) {
            Connection c = control.connection();
            // Fast path without DDL: a user who may not CREATE can still use a ledger an administrator made.
            if (installedVersion(c) == LedgerStore.VERSION) {
                checkPrivileges(c);
                return;
            }
            c.setAutoCommit(false);
            try {
                // DDL on tables other runs use waits the stream's lock-timeout, not the ledger session's first try.
                execute(c, "SET LOCAL lock_timeout = '" + Math.max(1, tables.locks().timeout().toMillis()) + "ms'");
                try (PreparedStatement lock = c.prepareStatement(
                        "SELECT pg_advisory_xact_lock(hashtextextended(?, 0))")) {
                    lock.setString(1, "sluice ledger " + tables.schema());
                    lock.execute();
                }
                if (!schemaExists(c)) {
                    execute(c, "CREATE SCHEMA IF NOT EXISTS " + tables.quotedSchema());
                }
                int installed = installedVersion(c); // again: another run may have finished it while we waited
                List<List<String>> steps = migrations();
                for (int v = installed + 1; v <= LedgerStore.VERSION; v++) {
                    for (String sql : steps.get(v - 1)) {
                        execute(c, sql);
                    }
                    execute(c, "INSERT INTO " + table("ledger_version") + " (version) VALUES (" + v + ")");
                }
                c.commit();
            } catch (SQLException | ConnectorException | RuntimeException e) {
                rollbackQuietly(c);
                throw e;
            }
            checkPrivileges(c);
        } catch (SQLException e) {
            throw tables.failure(e, "cannot set up the run ledger in schema " + tables.quotedSchema());
        }
    }

    /** 0 when there is no ledger yet; refuses a ledger a newer release wrote. */
    private int installedVersion(Connection c) throws SQLException, ConnectorException {
        // CASE, not AND: the privilege functions fail on a schema that does not exist.
        try (PreparedStatement p = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL, "
                + "CASE WHEN to_regnamespace(?) IS NULL THEN false WHEN NOT has_schema_privilege(to_regnamespace(?), "
                + "'USAGE') THEN false ELSE has_table_privilege(to_regclass(?), 'SELECT') END")) {
            p.setString(1, table("ledger_version"));
            p.setString(2, tables.quotedSchema());
            p.setString(3, tables.quotedSchema());
            p.setString(4, table("ledger_version"));
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                if (!rs.getBoolean(1)) {
                    return 0;
                }
                if (!rs.getBoolean(2)) {
                    checkPrivileges(c); // names every missing grant at once
                }
            }
        }
        int version;
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT coalesce(max(version), 0) FROM " + table("ledger_version"))) {
            rs.next();
            version = rs.getInt(1);
        }
        if (version > LedgerStore.VERSION) {
            throw new ConnectorException(ErrorKind.PREFLIGHT, PostgresLedgerStore.LEDGER_TOO_NEW, "the run ledger in schema "
                    + tables.quotedSchema() + " has version " + version + ", written by a newer Sluice; this release knows "
                    + "version " + LedgerStore.VERSION + " and will not guess at it", "run the newer Sluice, "
                    + LEDGER_FIX_TAIL);
        }
        return version;
    }

    private boolean schemaExists(Connection c) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("SELECT count(*) FROM pg_namespace WHERE nspname = ?")) {
            p.setString(1, tables.schema());
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                return rs.getLong(1) > 0;
            }
        }
    }

    /** Every privilege a run needs, checked up front: a writer must not find out only when its commit fails. */
    private void checkPrivileges(Connection c) throws SQLException, ConnectorException {
        String[][] needed = {
                {"run_streams", "SELECT"}, {"run_streams", "INSERT"}, {"run_streams", "UPDATE"},
                {"run_partitions", "SELECT"}, {"run_partitions", "INSERT"}, {"run_partitions", "UPDATE"},
                {"run_attempts", "SELECT"}, {"run_attempts", "INSERT"},
                {"run_marks", "SELECT"}, {"run_marks", "INSERT"}, {"run_marks", "UPDATE"},
                {"ledger_version", "SELECT"}};
        // One round trip for all of them: each stream of a run checks (17 round trips a stream were 2.5 min of a
        // run of 10,000 tables before its first stream).
        String[] tableNames = new String[needed.length];
        String[] privileges = new String[needed.length];
        for (int i = 0; i < needed.length; i++) {
            tableNames[i] = table(needed[i][0]);
            privileges[i] = needed[i][1];
        }
        List<String> missing = new ArrayList<>();
        // Without USAGE on the schema the tables' privileges are not asked: that is the one thing to grant first.
        try (PreparedStatement p = c.prepareStatement("SELECT u.usage, CASE WHEN u.usage THEN ARRAY(SELECT n.p "
                + "|| ' ON TABLE ' || n.t FROM unnest(?::text[], ?::text[]) WITH ORDINALITY AS n(t, p, i) "
                + "WHERE NOT has_table_privilege(n.t, n.p) ORDER BY n.i) END "
                + "FROM (SELECT has_schema_privilege(?, 'USAGE') AS usage) u")) {
            p.setArray(1, c.createArrayOf("text", tableNames));
            p.setArray(2, c.createArrayOf("text", privileges));
            p.setString(3, tables.schema());
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                if (!rs.getBoolean(1)) {
                    missing.add("USAGE ON SCHEMA " + tables.quotedSchema());
                } else {
                    missing.addAll(List.of((String[]) rs.getArray(2).getArray()));
                }
            }
        }
        if (!missing.isEmpty()) {
            String user = SqlQuote.identifier(new PostgresCatalog(c).currentUser());
            throw new ConnectorException(ErrorKind.PREFLIGHT, PostgresLedgerStore.LEDGER_UNUSABLE, "user " + user + " may not use the "
                    + "run ledger in schema " + tables.quotedSchema() + ": lacks " + String.join(", ", missing),
                    String.join("; ", missing.stream().map(m -> "GRANT " + m + " TO " + user).toList()) + "; "
                            + LEDGER_FIX_TAIL);
        }
    }
}
