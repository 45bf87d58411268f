package io.sluice.connector.duckdb;

import io.sluice.spi.data.Column;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.toolkit.compare.FloatText;

/**
 * A column's value as the text PostgreSQL prints for it once loaded (under the digest settings: UTC, ISO dates, hex
 * bytea), computed by DuckDB so {@code sluice compare} hashes the same text on both sides
 * ({@link io.sluice.spi.data.RowHash#PORTABLE}). DuckDB already prints integers, decimals (with their scale), booleans,
 * dates, timestamps and times (fraction without trailing zeros) and UUIDs as PostgreSQL does; bytes and instants are
 * spelled out; floats print their shortest digits, as PostgreSQL prints them ({@link FloatText}). A pair whose
 * text the two print apart (nested and JSON values, a double into {@code real}, intervals, nanosecond
 * times, a type changed on the way) is refused with DUCK202, naming the column.
 */
final class CompareText {
    private CompareText() {
    }

    /** The text of {@code source} (read by its quoted name) as its {@code target} column prints it. */
    static String of(Column source, Column target) throws ConnectorException {
        DuckDbType type = DuckDbType.parse(source.typeName());
        PgType pg = PgType.parse(target.typeName(), target.copyTypeOid());
        String v = Sql.identifier(source.name());
        String text = switch (type.kind()) {
            case BOOLEAN -> pg.base() == PgType.Base.BOOL ? v + "::VARCHAR" : null;
            case TINYINT, SMALLINT, INTEGER, BIGINT, HUGEINT, UTINYINT, USMALLINT, UINTEGER, UBIGINT, UHUGEINT ->
                    isInteger(pg) || pg.base() == PgType.Base.NUMERIC && pg.scale() <= 0 ? v + "::VARCHAR" : null;
            // numeric(p,s) prints s fraction digits, as DuckDB prints a DECIMAL(p,s); unconstrained keeps the source's
            case DECIMAL -> pg.base() == PgType.Base.NUMERIC && (pg.scale() < 0 && pg.precision() < 0
                    || pg.scale() == type.scale()) ? v + "::VARCHAR" : null;
            case VARCHAR, ENUM -> pg.base() == PgType.Base.TEXT || pg.base() == PgType.Base.VARCHAR
                    ? v + "::VARCHAR" : null;
            case BLOB -> pg.base() == PgType.Base.BYTEA ? "'\\x' || lower(hex(" + v + "))" : null;
            case DATE -> pg.base() == PgType.Base.DATE ? v + "::VARCHAR" : null;
            case TIMESTAMP_S, TIMESTAMP_MS, TIMESTAMP -> pg.base() == PgType.Base.TIMESTAMP
                    && keepsMicroseconds(pg, type) ? v + "::VARCHAR" : null;
            // an instant prints in UTC, as +00
            case TIMESTAMP_TZ -> pg.base() == PgType.Base.TIMESTAMPTZ && keepsMicroseconds(pg, type)
                    ? "make_timestamp(epoch_us(" + v + "))::VARCHAR || '+00'" : null;
            case TIME -> pg.base() == PgType.Base.TIME && keepsMicroseconds(pg, type) ? v + "::VARCHAR" : null;
            case UUID -> pg.base() == PgType.Base.UUID ? v + "::VARCHAR" : null;
            // the shortest digits of the type the target stores, laid out as PostgreSQL lays them
            case FLOAT -> pg.base() == PgType.Base.FLOAT4 ? floating(v, v, FloatText.Precision.REAL)
                    : pg.base() == PgType.Base.FLOAT8 ? floating(v, v + "::DOUBLE", FloatText.Precision.DOUBLE) : null;
            case DOUBLE -> pg.base() == PgType.Base.FLOAT8 ? floating(v, v, FloatText.Precision.DOUBLE) : null;
            case TIME_NS, TIME_TZ, TIMESTAMP_NS, INTERVAL, JSON, LIST, ARRAY, STRUCT, MAP, OTHER ->
                    null;
        };
        if (text == null) {
            throw new ConnectorException(ErrorKind.PREFLIGHT, DuckDbCode.DUCK202, "column " + source.name()
                    + ": compare cannot yet print its " + type.sql() + " values loaded into " + target.typeName()
                    + " as PostgreSQL prints them, so it cannot compare them", "compare streams whose columns are "
                    + "integers, decimals, floats, text, bytes, dates, timestamps, times and UUIDs into their created "
                    + "types "
                    + "(docs/duckdb.md, \"Comparing\"); exclude the column, or check the stream with verify: count");
        }
        return text;
    }

    /**
     * {@code v} printed as {@code stored} (the type the target keeps) prints, NaN and the infinities spelled out. The
     * text is printed once and taken apart in a lambda: spelled out at each use, it took twice as long.
     */
    private static String floating(String v, String stored, FloatText.Precision precision) {
        return "CASE WHEN isnan(" + v + ") THEN 'NaN' WHEN isinf(" + v + ") THEN CASE WHEN " + v + " > 0 THEN "
                + "'Infinity' ELSE '-Infinity' END ELSE list_transform([CAST(abs(" + stored + ") AS VARCHAR)], "
                + "lambda sluice_float_text: " + FloatText.of(FloatText.POSTGRES_STRINGS, v, "sluice_float_text",
                precision) + ")[1] END";
    }

    private static boolean isInteger(PgType pg) {
        return pg.base() == PgType.Base.INT2 || pg.base() == PgType.Base.INT4 || pg.base() == PgType.Base.INT8;
    }

    /** A target of fewer fraction digits rounds what it stores: the texts would differ where it did. */
    private static boolean keepsMicroseconds(PgType pg, DuckDbType type) {
        int digits = switch (type.kind()) {
            case TIMESTAMP_S -> 0;
            case TIMESTAMP_MS -> 3;
            default -> 6;
        };
        return pg.precision() < 0 || pg.precision() >= digits;
    }
}
