package io.sluice.connector.postgres.copy;

import io.sluice.connector.postgres.catalog.SqlQuote;
import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.spi.data.Column;
import io.sluice.spi.data.RejectedRow;
import io.sluice.spi.error.ConnectorException;
import io.sluice.toolkit.JsonText;

import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;

/**
 * The rejects table ({@code rejects: table}): its one shape, and the rows written into it in a partition's
 * transaction. A row the server refused is decoded by the server itself: its COPY bytes go into a temporary table
 * with the target's column types without their limits or constraints, and {@code to_jsonb} of that row is what is
 * kept (bytea as base64); a row even that refuses (a NUL byte, bytes that are not UTF-8) keeps each field's COPY
 * bytes as base64 instead ({@code raw_fields}).
 */
public final class RejectsTable {
    /** The columns a rejects table has, in order, with their types as {@code format_type} shows them. */
    public static final Map<String, String> SHAPE = shape();
    private static final Pattern TYPMOD = Pattern.compile("\\(\\s*\\d+\\s*(,\\s*-?\\d+\\s*)?\\)");
    /** The probe's own column numbering the refused rows in COPY order. */
    private static final String ORDINAL = "sluice_probe_n";

    private final String quoted;
    private final List<Column> columns;
    private final String probe;
    private final Optional<RowScreen.PerTable> screen;
    private boolean probeMade;

    /** {@code quoted}: the table's qualified, quoted name; {@code columns}: the COPY's columns, in order. */
    public RejectsTable(String quoted, List<Column> columns) {
        this(quoted, columns, Optional.empty());
    }

    /**
     * As above, for a COPY into the target itself: {@code screen} sets aside in the COPY the rows the target's own
     * NOT NULL and CHECK constraints refuse ({@link RowScreen}), the rest as above.
     */
    public RejectsTable(String quoted, List<Column> columns, Optional<RowScreen.PerTable> screen) {
        this.quoted = requireNonNull(quoted, "quoted is null");
        this.columns = List.copyOf(requireNonNull(columns, "columns is null"));
        this.screen = requireNonNull(screen, "screen is null");
        this.probe = "sluice_probe_" + Integer.toHexString(columns.stream().map(c -> c.name() + " " + c.typeName())
                .toList().hashCode() & 0x7fffffff);
    }

    Optional<RowScreen.PerTable> screen() {
        return screen;
    }

    private static Map<String, String> shape() {
        Map<String, String> shape = new LinkedHashMap<>();
        shape.put("run_id", "text");
        shape.put("stream", "text");
        shape.put("partition_id", "text");
        shape.put("row_number", "bigint");
        shape.put("row_data", "jsonb");
        shape.put("raw_fields", "jsonb");
        shape.put("column_name", "text");
        shape.put("error_code", "text");
        shape.put("error_message", "text");
        shape.put("rejected_at", "timestamp with time zone");
        return java.util.Collections.unmodifiableMap(shape);
    }

    /** The statement that creates a rejects table named {@code quoted}. */
    public static String createStatement(String quoted) {
        return "CREATE TABLE IF NOT EXISTS " + quoted + " (run_id text NOT NULL, stream text NOT NULL, "
                + "partition_id text NOT NULL, row_number bigint, row_data jsonb, raw_fields jsonb, column_name text, "
                + "error_code text NOT NULL, error_message text NOT NULL, "
                + "rejected_at timestamptz NOT NULL DEFAULT now())";
    }

    /** The rows the reader set aside, as they are. */
    void insert(Connection c, RejectedRow.Origin origin, List<RejectedRow> rows) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("INSERT INTO " + quoted + " (run_id, stream, partition_id, "
                + "row_number, row_data, raw_fields, column_name, error_code, error_message) "
                + "VALUES (?, ?, ?, ?, ?::jsonb, ?::jsonb, ?, ?, ?)")) {
            for (RejectedRow row : rows) {
                p.setString(1, origin.runId());
                p.setString(2, origin.stream());
                p.setString(3, origin.partitionId());
                if (row.rowNumber() > 0) {
                    p.setLong(4, row.rowNumber());
                } else {
                    p.setNull(4, Types.BIGINT);
                }
                p.setString(5, row.row().orElse(null));
                p.setString(6, row.rawRow().orElse(null));
                p.setString(7, row.column().map(RejectsTable::text).orElse(null));
                p.setString(8, row.code());
                p.setString(9, text(row.message()));
                p.addBatch();
            }
            p.executeBatch();
        }
    }

    /** A row the server refused: its COPY tuple and why. */
    record Refused(long rowNumber, byte[] tuple, Optional<String> column, String code, String message) {
        Refused {
            requireNonNull(tuple, "tuple is null");
            requireNonNull(column, "column is null");
            requireNonNull(code, "code is null");
            requireNonNull(message, "message is null");
        }
    }

    /**
     * Rows the server refused, decoded together: their tuples copied into the temporary table in one COPY (numbered
     * in order by an identity column), then one INSERT ... SELECT joining each to its reason. When one of them does
     * not decode, each is tried on its own, and one that still does not keeps its fields' bytes ({@code raw_fields}).
     */
    void insertRefused(Connection c, RejectedRow.Origin origin, List<Refused> refused)
            throws SQLException, ConnectorException {
        execute(c, "SAVEPOINT sluice_probe");
        try {
            if (!probeMade) {
                execute(c, "CREATE TEMP TABLE IF NOT EXISTS " + probe + " (" + probeColumns() + ", "
                        + ORDINAL + " bigint GENERATED BY DEFAULT AS IDENTITY)");
                PostgresConnections.madeTemporaryObjects(c);
                probeMade = true;
            }
            execute(c, "TRUNCATE pg_temp." + probe + " RESTART IDENTITY");
            CopyIn copy = c.unwrap(PGConnection.class).getCopyAPI().copyIn("COPY pg_temp." + probe + " ("
                    + columnList() + ") FROM STDIN (FORMAT binary)");
            copy.writeToCopy(RejectingCopy.HEADER, 0, RejectingCopy.HEADER.length);
            for (Refused r : refused) {
                copy.writeToCopy(r.tuple(), 0, r.tuple().length);
            }
            copy.writeToCopy(RejectingCopy.TRAILER, 0, RejectingCopy.TRAILER.length);
            copy.endCopy();
            try (PreparedStatement p = c.prepareStatement("INSERT INTO " + quoted + " (run_id, stream, "
                    + "partition_id, row_number, row_data, column_name, error_code, error_message) SELECT ?, ?, ?, "
                    + "m.row_number, " + rowJson() + ", m.column_name, m.error_code, m.error_message FROM pg_temp."
                    + probe + " p JOIN unnest(?::bigint[], ?::text[], ?::text[], ?::text[]) WITH ORDINALITY AS "
                    + "m(row_number, column_name, error_code, error_message, n) ON m.n = p." + ORDINAL)) {
                p.setString(1, origin.runId());
                p.setString(2, origin.stream());
                p.setString(3, origin.partitionId());
                p.setArray(4, c.createArrayOf("bigint", refused.stream().map(Refused::rowNumber).toArray()));
                p.setArray(5, c.createArrayOf("text", refused.stream().map(r -> r.column().map(RejectsTable::text)
                        .orElse(null)).toArray()));
                p.setArray(6, c.createArrayOf("text", refused.stream().map(Refused::code).toArray()));
                p.setArray(7, c.createArrayOf("text", refused.stream().map(r -> text(r.message())).toArray()));
                p.executeUpdate();
            }
            execute(c, "RELEASE SAVEPOINT sluice_probe");
        } catch (SQLException e) {
            execute(c, "ROLLBACK TO SAVEPOINT sluice_probe; RELEASE SAVEPOINT sluice_probe");
            probeMade = false; // made in the savepoint just rolled back, perhaps
            if (refused.size() > 1) {
                for (Refused r : refused) {
                    insertRefused(c, origin, List.of(r));
                }
                return;
            }
            Refused r = refused.getFirst();
            insert(c, origin, List.of(new RejectedRow(r.rowNumber(), Optional.empty(),
                    Optional.of(rawFields(r.tuple(), 0)), r.column(), r.code(), r.message())));
        }
    }

    /** Text PostgreSQL can hold: a NUL (which a refused value may carry into a message) as the characters \0. */
    private static String text(String value) {
        return value.indexOf('\0') < 0 ? value : value.replace("\0", "\\0");
    }

    private String probeColumns() {
        List<String> defined = new ArrayList<>();
        for (Column column : columns) {
            defined.add(SqlQuote.identifier(column.name()) + " " + unlimited(column.typeName()));
        }
        return String.join(", ", defined);
    }

    /** A type without its length or precision, so a value too long or too precise for the target still decodes. */
    static String unlimited(String type) {
        String bare = TYPMOD.matcher(type).replaceAll("").replaceAll("\\s+\\[", "[").trim();
        if (bare.equals("character") || bare.startsWith("character[")) {
            return "bpchar" + bare.substring("character".length());
        }
        if (bare.equals("bit") || bare.startsWith("bit[")) {
            return "bit varying" + bare.substring("bit".length());
        }
        return bare;
    }

    private String columnList() {
        List<String> names = new ArrayList<>();
        for (Column column : columns) {
            names.add(SqlQuote.identifier(column.name()));
        }
        return String.join(", ", names);
    }

    private String rowJson() {
        StringBuilder json = new StringBuilder("(to_jsonb(p) - '" + ORDINAL + "')");
        for (Column column : columns) {
            if (column.typeName().equals("bytea")) {
                String name = SqlQuote.identifier(column.name());
                json.append(" || jsonb_build_object(").append(SqlQuote.literal(column.name()))
                        .append(", encode(p.").append(name).append(", 'base64'))");
            }
        }
        return json.toString();
    }

    /** The tuple's fields as base64 of their bytes (null for NULL), keyed by column name, as JSON. */
    String rawFields(byte[] tuple, int offset) {
        StringBuilder json = new StringBuilder("{");
        int fields = (short) (((tuple[offset] & 0xFF) << 8) | (tuple[offset + 1] & 0xFF));
        int p = offset + 2;
        for (int f = 0; f < fields; f++) {
            int size = ((tuple[p] & 0xFF) << 24) | ((tuple[p + 1] & 0xFF) << 16) | ((tuple[p + 2] & 0xFF) << 8)
                    | (tuple[p + 3] & 0xFF);
            p += 4;
            if (f > 0) {
                json.append(", ");
            }
            json.append(JsonText.quote(f < columns.size() ? columns.get(f).name() : "field" + (f + 1))).append(": ");
            if (size < 0) {
                json.append("null");
            } else {
                json.append('"').append(Base64.getEncoder().encodeToString(java.util.Arrays.copyOfRange(tuple, p,
                        p + size))).append('"');
                p += size;
            }
        }
        return json.append('}').toString();
    }

    /** The newest {@code limit} rows of {@code stream} (or its pattern's tables), of {@code runId} when given. */
    public static List<RejectedRow.Stored> read(Connection c, String quoted, String stream, Optional<String> runId,
                                                int limit) throws SQLException {
        List<RejectedRow.Stored> rows = new ArrayList<>();
        try (PreparedStatement p = c.prepareStatement("SELECT run_id, stream, partition_id, row_number, "
                + "row_data::text, raw_fields::text, column_name, error_code, error_message, rejected_at FROM "
                + quoted + " WHERE (stream = ? OR starts_with(stream, ? || '.')) AND (? OR run_id = ?) "
                + "ORDER BY rejected_at DESC, run_id, partition_id, row_number LIMIT ?")) {
            p.setString(1, stream);
            p.setString(2, stream);
            p.setBoolean(3, runId.isEmpty());
            p.setString(4, runId.orElse(""));
            p.setInt(5, limit);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    long number = rs.getLong(4);
                    boolean numbered = !rs.wasNull();
                    Optional<String> row = Optional.ofNullable(rs.getString(5));
                    Optional<String> raw = Optional.ofNullable(rs.getString(6));
                    rows.add(new RejectedRow.Stored(new RejectedRow.Origin(rs.getString(1), rs.getString(2),
                            rs.getString(3)), new RejectedRow(numbered ? number : 0, row,
                            row.isEmpty() && raw.isEmpty() ? Optional.of("{}") : raw,
                            Optional.ofNullable(rs.getString(7)), rs.getString(8), rs.getString(9)),
                            rs.getTimestamp(10).toInstant()));
                }
            }
        }
        return rows;
    }

    /**
     * How the table named {@code schema.name} differs from {@link #SHAPE}: empty when it matches or is missing
     * ({@code exists} false then).
     */
    public static Optional<String> differences(Connection c, String schema, String name) throws SQLException {
        Map<String, String> found = new LinkedHashMap<>();
        try (PreparedStatement p = c.prepareStatement("SELECT a.attname, format_type(a.atttypid, a.atttypmod) "
                + "FROM pg_attribute a JOIN pg_class t ON t.oid = a.attrelid JOIN pg_namespace n ON n.oid = "
                + "t.relnamespace WHERE n.nspname = ? AND t.relname = ? AND a.attnum > 0 AND NOT a.attisdropped "
                + "ORDER BY a.attnum")) {
            p.setString(1, schema);
            p.setString(2, name);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    found.put(rs.getString(1), rs.getString(2));
                }
            }
        }
        if (found.isEmpty() || found.equals(SHAPE)) {
            return Optional.empty();
        }
        List<String> wrong = new ArrayList<>();
        SHAPE.forEach((column, type) -> {
            String has = found.get(column);
            if (has == null) {
                wrong.add("no column " + column);
            } else if (!has.equals(type)) {
                wrong.add(column + " is " + has + ", not " + type);
            }
        });
        found.keySet().stream().filter(k -> !SHAPE.containsKey(k)).forEach(k -> wrong.add("a column " + k
                + " a rejects table has not"));
        return Optional.of(String.join("; ", wrong));
    }

    private static void execute(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
