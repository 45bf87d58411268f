package io.sluice.connector.postgres;

import io.sluice.connector.postgres.catalog.QualifiedName;
import io.sluice.connector.postgres.changes.PostgresChangeApplier;
import io.sluice.connector.postgres.ledger.PostgresLedgerStore;
import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.connector.postgres.session.PostgresErrors;
import io.sluice.spi.changes.ChangeBatch;
import io.sluice.spi.changes.ChangeRelation;
import io.sluice.spi.changes.RowChange;
import io.sluice.spi.data.Column;
import io.sluice.spi.data.SchemaChanges;
import io.sluice.testkit.TestingPostgres;
import io.sluice.toolkit.Redactor;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A resumed copy reads its partitions at two moments, so the changes replayed after it meet rows twice or not at all:
 * a replayed batch converges on the source's state where a batch of changes only takes the target as it is.
 */
class ChangeReplayTest {
    private static final ChangeRelation LINES = new ChangeRelation("public.lines", List.of("order_id", "line", "qty"),
            List.of(true, true, false), List.of("integer", "integer", "integer"), ChangeRelation.ValueFormat.TEXT);

    private static TestingPostgres server;

    @BeforeAll
    static void start() {
        server = TestingPostgres.start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void aReplayedKeyMoveLandsWhetherTheCopyHeldItsOldKeyItsNewOneBothOrNeither() throws Exception {
        String database = server.createDatabase("replay_moves");
        sql(database, "CREATE TABLE lines (order_id int, line int, qty int, PRIMARY KEY (order_id, line))",
                "INSERT INTO lines VALUES (1, 1, 10)", // only the old key: copied before the move
                "INSERT INTO lines VALUES (2, 11, 20)", // only the new key: copied after it
                "INSERT INTO lines VALUES (3, 1, 30), (3, 11, 31)", // both: two partitions of two moments
                "INSERT INTO lines VALUES (5, 1, 50)"); // already there: an insert the copy holds
        // order 4: neither (its old version's partition copied after the move, its new one's before)
        ChangeBatch batch = new ChangeBatch(List.of(move(1), move(2), move(3), move(4), insert(5, 1, 51)), "0/1", 1);
        apply(database, batch.asReplay());
        assertEquals("1:11:1,2:11:2,3:11:3,4:11:4,5:1:51", rows(database));
    }

    @Test
    void aBatchOfChangesOnlyTakesTheTargetAsItIs() throws Exception {
        // Without the replay flag nothing is there to converge: a move whose row is at neither key moves nothing.
        String database = server.createDatabase("replay_plain");
        sql(database, "CREATE TABLE lines (order_id int, line int, qty int, PRIMARY KEY (order_id, line))",
                "INSERT INTO lines VALUES (1, 1, 10)");
        apply(database, new ChangeBatch(List.of(move(1), move(4)), "0/1", 1));
        assertEquals("1:11:1", rows(database));
    }

    /** An UPDATE of order {@code order}'s line 1 to line 11, its qty set to {@code order}. */
    private static RowChange move(int order) {
        return new RowChange(RowChange.Kind.UPDATE, LINES, values(order, 1, null), values(order, 11, order), null);
    }

    private static RowChange insert(int order, int line, int qty) {
        return new RowChange(RowChange.Kind.INSERT, LINES, List.of(), values(order, line, qty), null);
    }

    private static List<byte[]> values(Integer... values) {
        return java.util.Arrays.stream(values).map(v -> v == null ? null : v.toString()
                .getBytes(StandardCharsets.UTF_8)).toList();
    }

    private static void apply(String database, ChangeBatch batch) throws Exception {
        Properties properties = new Properties();
        properties.setProperty("user", server.user());
        properties.setProperty("password", server.password());
        PostgresConnections connections = new PostgresConnections(() -> server.jdbcUrl(database), properties,
                new PostgresErrors(Redactor.none()));
        PostgresLedgerStore ledger = new PostgresLedgerStore(connections, "sluice", QualifiedName.of("public",
                "lines"));
        PostgresChangeApplier.Route route = new PostgresChangeApplier.Route("public.lines", "\"public\".\"lines\"",
                Map.of("order_id", "order_id", "line", "line", "qty", "qty"), Map.of("order_id", Column.of("order_id",
                "integer"), "line", Column.of("line", "integer"), "qty", Column.of("qty", "integer")),
                SchemaChanges.FAIL);
        try (connections; PostgresChangeApplier applier = new PostgresChangeApplier(connections, ledger,
                List.of(route))) {
            applier.apply(batch, transaction -> null);
        }
    }

    private static String rows(String database) throws Exception {
        try (Connection c = server.connect(database); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT string_agg(order_id || ':' || line || ':' || qty, ',' ORDER BY "
                     + "order_id, line) FROM lines")) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static void sql(String database, String... statements) throws Exception {
        try (Connection c = server.connect(database); Statement s = c.createStatement()) {
            for (String statement : statements) {
                s.execute(statement);
            }
        }
    }
}
