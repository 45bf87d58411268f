package io.sluice.connector.postgres.session;

import io.sluice.connector.postgres.catalog.PostgresCode;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.toolkit.Redactor;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

import java.sql.SQLException;
import java.util.Set;

import static io.sluice.connector.postgres.catalog.PostgresCode.PG201;
import static io.sluice.connector.postgres.catalog.PostgresCode.PG202;
import static io.sluice.connector.postgres.catalog.PostgresCode.PG203;
import static io.sluice.connector.postgres.catalog.PostgresCode.PG204;
import static io.sluice.connector.postgres.catalog.PostgresCode.PG205;
import static io.sluice.connector.postgres.catalog.PostgresCode.PG209;
import static io.sluice.connector.postgres.catalog.PostgresCode.PG420;
import static java.util.Objects.requireNonNull;

/**
 * Turns a SQLException into a {@link ConnectorException} whose kind follows the SQLSTATE and whose message keeps
 * the server's detail (COPY line and column) but never a secret. The SQLException is not attached as the cause,
 * since PgJDBC may have put the URL into it; a scrubbed copy is attached instead.
 */
public final class PostgresErrors {
    /** What was going on: the same missing table is a preflight failure when describing, a data error in a copy. */
    public enum Phase {
        DESCRIBE,
        COPY,
        /** Applying a change feed's batch: a refused value is the target's, the feed holds no other row. */
        CHANGES
    }

    private static final Set<String> TRANSIENT_STATES = Set.of("57P01", "57P02", "57P03", "53300", "40001", "40P01");
    private static final Set<String> MISSING_STATES = Set.of("42P01", "42703", "42501", "3F000", "3D000", "42704");

    private final Redactor redactor;

    public PostgresErrors(Redactor redactor) {
        this.redactor = requireNonNull(redactor, "redactor is null");
    }

    /** {@code text} with every known secret of this connection replaced. */
    public String scrub(String text) {
        return text == null ? "" : redactor.redact(text);
    }

    public ConnectorException translate(SQLException e, Phase phase, String what) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        String message = redactor.redact(what + ": " + serverText(e));
        ErrorKind kind;
        PostgresCode code;
        String fix;
        if (state.startsWith("08") || TRANSIENT_STATES.contains(state)) {
            kind = ErrorKind.TRANSIENT;
            code = state.startsWith("08") ? PG201 : PG205;
            fix = state.startsWith("08")
                    ? "check that the server is running and reachable (host, port, sslmode), then retry"
                    : "retry; the server reported a passing condition";
        } else if (state.equals(TableLocks.LOCK_NOT_AVAILABLE)) {
            kind = ErrorKind.FAILED;
            code = PG420;
            fix = "a lock wait outlasted the stream's lock-timeout: let the session holding the lock finish, or "
                    + "give the stream a longer lock-timeout";
        } else if (state.startsWith("28")) {
            kind = ErrorKind.PREFLIGHT;
            code = PG202;
            fix = "check the connection's user and password (and pg_hba.conf on the server)";
        } else if ((state.equals("42704") || state.equals("22023")) && lostSnapshot(serverText(e))) {
            // The exported snapshot the run's partitions share is gone: its session ended (a source restart).
            kind = ErrorKind.FAILED;
            code = PG205;
            fix = "the source's shared snapshot is gone (the source server restarted, or the run's coordinating "
                    + "session ended): run again with --resume, which keeps the done partitions and takes a new "
                    + "snapshot";
        } else if (MISSING_STATES.contains(state)) {
            kind = phase == Phase.DESCRIBE ? ErrorKind.PREFLIGHT : ErrorKind.DATA;
            code = PG203;
            fix = state.equals("42501")
                    ? "grant the missing privilege to the connection's user"
                    : message.contains("_sluice_")
                    ? "a table this run made for itself (a shadow or keys table) was dropped by someone else: start "
                    + "a fresh run without --resume"
                    : "check the spelling and schema of the name (unquoted names fold to lower case)";
        } else if (state.startsWith("22") || state.startsWith("23")) {
            kind = ErrorKind.DATA;
            code = PG204;
            fix = phase == Phase.CHANGES ? changeFix(state) : valueFix(state);
        } else {
            kind = ErrorKind.FAILED;
            code = PG209;
            fix = null;
        }
        SQLException cause = new SQLException(message, state);
        return new ConnectorException(kind, code, message + (state.isEmpty() ? "" : " [SQLSTATE " + state + "]"),
                fix, cause);
    }

    /** The server's word that an exported snapshot is gone: {@code snapshot "..." does not exist}, or invalid. */
    private static boolean lostSnapshot(String server) {
        return server.contains("snapshot \"") && server.contains("does not exist")
                || server.contains("invalid snapshot identifier");
    }

    /** What to do about a refused value, by the class of refusal: a constraint is not a column too narrow. */
    private static String valueFix(String state) {
        return switch (state) {
            case "23505" -> "the rows break a unique index or constraint of the target (the DETAIL names the key): "
                    + "remove the duplicates from the source or the target, or use load-mode merge to update rows "
                    + "of a key that exists";
            case "23502" -> "the source has NULL in a column the target declares NOT NULL: fill it in the source (a "
                    + "query: source with COALESCE), or drop NOT NULL on the target column";
            case "23514" -> "a row breaks a CHECK constraint of the target: fix the row in the source, or change the "
                    + "constraint";
            case "23503" -> "a row refers to a key its referenced table lacks: load the referenced table first, or "
                    + "fix the row in the source";
            case "23P01" -> "two rows conflict under an exclusion constraint of the target: fix the rows in the "
                    + "source, or change the constraint";
            case "22001", "22003" -> "a value does not fit its target column: widen the target column (or fix the "
                    + "value in the source)";
            case "22021" -> "a value is not valid in the target database's encoding: fix the source's text, or "
                    + "create the target database with UTF8";
            default -> "fix the offending value in the source (or cast it in a query: source), or change the target "
                    + "column to hold it";
        };
    }

    /**
     * What to do about a change the target refused: the source accepted it, so the target differs from the source
     * (a constraint or a type of its own, a row written to it by another writer); load modes do not apply here.
     */
    private static String changeFix(String state) {
        return switch (state) {
            case "23505" -> "the target holds a row of that key the source did not have then (written to it by "
                    + "another writer, or a unique index the source lacks): remove it from the target or drop the "
                    + "index, then run again (the changes apply from where they stopped); --restart-changes copies "
                    + "every table again";
            case "22001", "22003" -> "a value does not fit its target column, which is narrower than the source's: "
                    + "ALTER the target column to the source's type, then run again (the changes apply from where "
                    + "they stopped)";
            default -> "the target refuses what the source accepted (a constraint or type of the target's own): "
                    + "make the target accept it, then run again (the changes apply from where they stopped)";
        };
    }

    /** The server's message with its DETAIL, HINT and CONTEXT (e.g. {@code COPY t, line 3, column c: "..."}). */
    private static String serverText(SQLException e) {
        if (e instanceof PSQLException p && p.getServerErrorMessage() != null) {
            ServerErrorMessage m = p.getServerErrorMessage();
            StringBuilder out = new StringBuilder(m.getMessage() == null ? "" : m.getMessage());
            if (m.getDetail() != null) {
                out.append(" (DETAIL: ").append(m.getDetail()).append(')');
            }
            if (m.getHint() != null) {
                out.append(" (HINT: ").append(m.getHint()).append(')');
            }
            if (m.getWhere() != null) {
                out.append(" (CONTEXT: ").append(m.getWhere()).append(')');
            }
            return out.toString();
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
}
