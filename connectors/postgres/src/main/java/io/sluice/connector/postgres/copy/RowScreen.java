package io.sluice.connector.postgres.copy;

import io.sluice.connector.postgres.catalog.SqlQuote;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.ServerVersion;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

import static java.util.Objects.requireNonNull;

/**
 * The target's own NOT NULL and CHECK constraints as a COPY {@code WHERE} clause, so a row that breaks one is left out
 * by the server without failing the COPY: the clause calls a session-local function for such a row, which notes the
 * COPY line (from its context) and the constraint in a transaction-local setting the writer reads when the COPY
 * ends. A refused row then costs a function call, where a failed COPY costs a rollback and sending its rows again
 * (0.1 % of rows refused by a CHECK made a load 4.3 times slower that way). Only where the clause decides exactly
 * what the constraints would: no BEFORE ROW INSERT trigger (it could change or drop the row after the clause saw it),
 * no foreign table (its constraints are not enforced), no constraint on a generated column (computed after the
 * clause), no NOT ENFORCED check. What the screen does not cover (unique keys, foreign keys, partitions' own checks,
 * domains) still fails the COPY and is isolated as before.
 */
public final class RowScreen {
    /** More refusals than this in one COPY fail it (the noted lines grow with each; the writer resends its rows). */
    static final int MOST_PER_COPY = 1000;
    static final String TOO_MANY_STATE = "SLR01";
    private static final String COUNTER = "sluice.refused";
    private static final String NOTED = "sluice.refused_rows";
    /**
     * Created in each partition's transaction (temporary, so it needs no CREATE privilege on a schema); STABLE so the
     * COPY keeps its multi-row inserts, and never folded to a constant since it is not IMMUTABLE. Settings made with
     * {@code set_config(.., true)} end with the transaction and roll back with a savepoint, as the COPY's rows do.
     * No quote character may appear in the body's messages: it is SQL text.
     */
    static final String FUNCTION = "CREATE OR REPLACE FUNCTION pg_temp.sluice_refuse(reason integer) RETURNS boolean "
            + "LANGUAGE plpgsql STABLE AS $sluice$\n"
            + "DECLARE\n"
            + "  context text;\n"
            + "  seen integer := coalesce(nullif(current_setting('" + COUNTER + "', true), ''), '0')::integer;\n"
            + "BEGIN\n"
            + "  IF seen >= " + MOST_PER_COPY + " THEN\n"
            + "    RAISE EXCEPTION 'sluice: more than " + MOST_PER_COPY + " rows refused in one COPY' "
            + "USING ERRCODE = '" + TOO_MANY_STATE + "';\n"
            + "  END IF;\n"
            + "  GET DIAGNOSTICS context = PG_CONTEXT;\n" // ends with COPY's own: "COPY t, line N"
            + "  PERFORM set_config('" + COUNTER + "', (seen + 1)::text, true);\n"
            + "  PERFORM set_config('" + NOTED + "', coalesce(current_setting('" + NOTED + "', true), '') || "
            + "coalesce(substring(context from '.*, line ([0-9]+)'), '0') || ':' || reason || ' ', true);\n"
            + "  RETURN false;\n"
            + "END $sluice$";
    /** Before each COPY: its refusals are noted from nothing (a rollback to a savepoint restores them too). */
    static final String RESET = "SET LOCAL " + COUNTER + " = 0; SET LOCAL " + NOTED + " = ''";
    /** After a COPY that took fewer rows than it was sent: the lines it refused, as {@code line:reason ...}. */
    static final String NOTED_QUERY = "SELECT current_setting('" + NOTED + "', true)";

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
     * The screen of table {@code oid}, read on {@code writer} (the session that runs the COPY: the check expressions
     * come back with every name its search_path would not find qualified, so they mean the same there); empty when the
     * table has no such constraint or the clause could not decide exactly.
     */
    static Optional<RowScreen> read(Connection writer, long oid) throws SQLException {
        requireNonNull(writer, "writer is null");
        BaseConnection base = writer.unwrap(BaseConnection.class);
        if (!base.haveMinimumServerVersion(ServerVersion.v12)) {
            return Optional.empty(); // COPY's WHERE is PostgreSQL 12's
        }
        boolean namesRelation = base.haveMinimumServerVersion(ServerVersion.v13); // in the NOT NULL message
        String table;
        try (PreparedStatement p = writer.prepareStatement("""
                SELECT c.relname, c.relkind = 'f' OR EXISTS (
                  SELECT 1 FROM pg_partition_tree(c.oid) t JOIN pg_class l ON l.oid = t.relid WHERE l.relkind = 'f'
                ) OR EXISTS (
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
        try (PreparedStatement p = writer.prepareStatement("""
                SELECT 0 AS kind, a.attname::text COLLATE "C" AS name, NULL AS expression, a.attnum AS position,
                       t.typtype IN ('c', 'd') AS whole
                FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
                WHERE a.attrelid = ? AND a.attnum > 0 AND NOT a.attisdropped AND a.attnotnull AND a.attgenerated = ''
                UNION ALL
                SELECT 1, k.conname::text COLLATE "C", pg_get_expr(k.conbin, k.conrelid), 0, false
                FROM pg_constraint k
                WHERE k.conrelid = ? AND k.contype = 'c'
                  AND coalesce((to_jsonb(k) ->> 'conenforced')::boolean, true)
                  AND NOT EXISTS (SELECT 1 FROM pg_attribute g WHERE g.attrelid = k.conrelid
                                  AND g.attnum = ANY (k.conkey) AND g.attgenerated <> '')
                ORDER BY kind, position, name
                """)) {
            p.setLong(1, oid);
            p.setLong(2, oid);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    String name = rs.getString(2);
                    int reason = refusals.size();
                    if (rs.getInt(1) == 0) {
                        // a composite value with a NULL field is not NULL to the constraint, but IS NOT NULL is false
                        String test = rs.getBoolean(5) ? "num_nulls(" + SqlQuote.identifier(name) + ") = 0"
                                : SqlQuote.identifier(name) + " IS NOT NULL";
                        terms.add("(" + test + " OR pg_temp.sluice_refuse(" + reason + "))");
                        refusals.add(new Refusal("23502", "null value in column \"" + name + "\"" + (namesRelation
                                ? " of relation \"" + table + "\"" : "") + " violates not-null constraint",
                                Optional.of(name)));
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

    /** A refused row: its line in the COPY and what the server would have said. */
    record Refused(int line, Refusal refusal) {
    }

    /** The rows a COPY refused, from the setting its function noted them in ({@link #NOTED_QUERY}). */
    List<Refused> noted(String noted) {
        List<Refused> rows = new ArrayList<>();
        if (noted == null) {
            return rows;
        }
        for (String entry : noted.trim().split(" ")) {
            int colon = entry.indexOf(':');
            if (colon <= 0) {
                continue;
            }
            OptionalInt line = parse(entry.substring(0, colon));
            OptionalInt reason = parse(entry.substring(colon + 1));
            if (line.isPresent() && reason.isPresent() && reason.getAsInt() < refusals.size()) {
                rows.add(new Refused(line.getAsInt(), refusals.get(reason.getAsInt())));
            }
        }
        return rows;
    }

    /**
     * A target's screen, read once on the first writer session that asks (every writer of a run has the same
     * search_path) and shared by the others.
     */
    public static final class PerTable {
        private final long oid;
        private Optional<RowScreen> read;

        public PerTable(long oid) {
            this.oid = oid;
        }

        synchronized Optional<RowScreen> get(Connection writer) throws SQLException {
            if (read == null) {
                read = RowScreen.read(writer, oid);
            }
            return read;
        }
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
