package io.sluice.connector.postgres.copy;

import io.sluice.connector.postgres.catalog.SqlQuote;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.ServerVersion;
import org.postgresql.util.PSQLWarning;
import org.postgresql.util.ServerErrorMessage;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

import static java.util.Objects.requireNonNull;

/**
 * The target's own NOT NULL and CHECK constraints as a COPY {@code WHERE} clause, so a row that breaks one is left out
 * by the server without failing the COPY: the clause calls a session-local function for such a row, which sends a
 * NOTICE naming the constraint, and the COPY's context names the row's line. A refused row then costs nothing more
 * than the notice, where a failed COPY costs a rollback and sending its rows again (0.1 % of rows refused by a CHECK
 * made a load 4.3 times slower that way). Only where the clause decides exactly what the constraints would: no
 * BEFORE ROW INSERT trigger (it could change the row after the clause saw it), no constraint on a generated column
 * (computed after the clause), no NOT ENFORCED check. What the screen does not cover (unique keys, foreign keys,
 * partitions' own checks, domains) still fails the COPY and is isolated as before.
 */
public final class RowScreen {
    /**
     * More refusals than this in one COPY fail it: PgJDBC reads no notice until the COPY ends, so enough of them
     * (about 250 bytes each) would fill the socket while the writer still writes (100,000 hung a test COPY; 10,000
     * did not). The writer sizes its COPYs to stay well under it.
     */
    static final int MOST_NOTICES_PER_COPY = 500;
    static final String TOO_MANY_STATE = "SLR01";
    private static final String NOTICE = "sluice: row refused by a constraint of the target"; // no quote: SQL text
    private static final String COUNTER = "sluice.refused";
    /**
     * Created in each partition's transaction (temporary, so it needs no CREATE privilege on a schema); STABLE so the
     * COPY keeps its multi-row inserts, and never folded to a constant since it is not IMMUTABLE.
     */
    static final String FUNCTION = "CREATE OR REPLACE FUNCTION pg_temp.sluice_refuse(reason integer) RETURNS boolean "
            + "LANGUAGE plpgsql STABLE SET client_min_messages = notice AS $sluice$\n"
            + "DECLARE seen integer := coalesce(nullif(current_setting('" + COUNTER + "', true), ''), '0')::integer;\n"
            + "BEGIN\n"
            + "  IF seen >= " + MOST_NOTICES_PER_COPY + " THEN\n"
            + "    RAISE EXCEPTION 'sluice: more than " + MOST_NOTICES_PER_COPY + " rows refused in one COPY' "
            + "USING ERRCODE = '" + TOO_MANY_STATE + "';\n"
            + "  END IF;\n"
            + "  PERFORM set_config('" + COUNTER + "', (seen + 1)::text, true);\n"
            + "  RAISE NOTICE '" + NOTICE + "' USING DETAIL = reason::text;\n"
            + "  RETURN false;\n"
            + "END $sluice$";
    /** Before each COPY: its refusals are counted from zero (a rollback to a savepoint restores the count too). */
    static final String RESET = "SET LOCAL " + COUNTER + " = 0";

    /** What the server would have said about a row the clause refused. */
    record Refusal(String code, String message, Optional<String> column) {
        Refusal {
            requireNonNull(code, "code is null");
            requireNonNull(message, "message is null");
            requireNonNull(column, "column is null");
        }
    }

    private final String where;
    private final List<Refusal> refusals;

    private RowScreen(String where, List<Refusal> refusals) {
        this.where = requireNonNull(where, "where is null");
        this.refusals = List.copyOf(refusals);
    }

    /**
     * The screen of table {@code oid}, read on {@code qualifying} (a session whose search_path is empty, so the check
     * expressions name everything they use with its schema and parse the same on the writer's session); empty when
     * the table has no such constraint or the clause could not decide exactly.
     */
    public static Optional<RowScreen> read(Connection qualifying, long oid) throws SQLException {
        requireNonNull(qualifying, "qualifying is null");
        if (!qualifying.unwrap(BaseConnection.class).haveMinimumServerVersion(ServerVersion.v12)) {
            return Optional.empty(); // COPY's WHERE is PostgreSQL 12's
        }
        String table;
        try (PreparedStatement p = qualifying.prepareStatement("""
                SELECT c.relname, EXISTS (
                  SELECT 1 FROM pg_trigger t
                  WHERE (t.tgrelid = c.oid OR t.tgrelid IN (SELECT relid FROM pg_partition_tree(c.oid)))
                    AND NOT t.tgisinternal AND (t.tgtype & 7) = 7)
                FROM pg_class c WHERE c.oid = ?""")) { // tgtype bits: 1 row, 2 before, 4 insert
            p.setLong(1, oid);
            try (ResultSet rs = p.executeQuery()) {
                if (!rs.next() || rs.getBoolean(2)) {
                    return Optional.empty();
                }
                table = rs.getString(1);
            }
        }
        List<String> terms = new ArrayList<>();
        List<Refusal> refusals = new ArrayList<>();
        // PostgreSQL checks NOT NULL first, by column number, then the checks by name: the first refusal is its own
        try (PreparedStatement p = qualifying.prepareStatement("""
                SELECT 0 AS kind, a.attname::text AS name, NULL AS expression, a.attnum AS position
                FROM pg_attribute a
                WHERE a.attrelid = ? AND a.attnum > 0 AND NOT a.attisdropped AND a.attnotnull AND a.attgenerated = ''
                UNION ALL
                SELECT 1, k.conname::text, pg_get_expr(k.conbin, k.conrelid), 0
                FROM pg_constraint k
                WHERE k.conrelid = ? AND k.contype = 'c'
                  AND coalesce((to_jsonb(k) ->> 'conenforced')::boolean, true)
                  AND NOT EXISTS (SELECT 1 FROM pg_attribute g WHERE g.attrelid = k.conrelid
                                  AND g.attnum = ANY (k.conkey) AND g.attgenerated <> '')
                ORDER BY kind, position, name""")) {
            p.setLong(1, oid);
            p.setLong(2, oid);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    String name = rs.getString(2);
                    int reason = refusals.size();
                    if (rs.getInt(1) == 0) {
                        terms.add("(" + SqlQuote.identifier(name) + " IS NOT NULL OR pg_temp.sluice_refuse(" + reason
                                + "))");
                        refusals.add(new Refusal("23502", "null value in column \"" + name + "\" of relation \""
                                + table + "\" violates not-null constraint", Optional.of(name)));
                    } else {
                        terms.add("((" + rs.getString(3) + ") IS NOT FALSE OR pg_temp.sluice_refuse(" + reason + "))");
                        refusals.add(new Refusal("23514", "new row for relation \"" + table
                                + "\" violates check constraint \"" + name + "\"", Optional.of("constraint " + name)));
                    }
                }
            }
        }
        return terms.isEmpty() ? Optional.empty()
                : Optional.of(new RowScreen(" WHERE " + String.join(" AND ", terms), refusals));
    }

    /** {@code copySql} (a COPY ... FROM STDIN) with the clause. */
    String screened(String copySql) {
        return copySql + where;
    }

    /** The refusal a warning reports, when it is one of this screen's notices. */
    Optional<Refusal> refusal(SQLWarning warning) {
        if (warning instanceof PSQLWarning w && w.getServerErrorMessage() != null) {
            ServerErrorMessage m = w.getServerErrorMessage();
            if (NOTICE.equals(m.getMessage()) && m.getDetail() != null) {
                OptionalInt reason = parse(m.getDetail());
                if (reason.isPresent() && reason.getAsInt() < refusals.size()) {
                    return Optional.of(refusals.get(reason.getAsInt()));
                }
            }
        }
        return Optional.empty();
    }

    /** The line of the COPY a warning came from (its context names it). */
    static Optional<Integer> line(SQLWarning warning) {
        return warning instanceof PSQLWarning w ? RejectingCopy.line(w.getServerErrorMessage())
                : Optional.empty();
    }

    private static OptionalInt parse(String digits) {
        try {
            return OptionalInt.of(Integer.parseInt(digits));
        } catch (NumberFormatException e) {
            return OptionalInt.empty();
        }
    }

    @Override
    public String toString() {
        return "RowScreen" + where;
    }
}
