package io.sluice.connector.duckdb;

import io.sluice.connector.duckdb.DuckDbType.Kind;
import io.sluice.spi.data.Column;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;

import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static io.sluice.connector.duckdb.DuckDbCode.DUCK201;

/**
 * Decides, at plan time, how a DuckDB column becomes a PostgreSQL column. Conversions the types alone show to be
 * impossible or lossy are refused with INVALID_SPEC (naming the column, both types and a fix); conversions whose
 * loss only the data can show (a too-long string, a numeric overflow) are checked per value by the encoders.
 */
final class Conversions {
    private static final Set<Kind> INT2_SAFE = EnumSet.of(Kind.TINYINT, Kind.SMALLINT, Kind.UTINYINT);
    private static final Set<Kind> INT4_SAFE = EnumSet.of(Kind.TINYINT, Kind.SMALLINT, Kind.UTINYINT, Kind.INTEGER,
            Kind.USMALLINT);
    private static final Set<Kind> INT8_SAFE = EnumSet.of(Kind.TINYINT, Kind.SMALLINT, Kind.UTINYINT, Kind.INTEGER,
            Kind.USMALLINT, Kind.BIGINT, Kind.UINTEGER);
    private static final Set<Kind> FLOAT4_SAFE = EnumSet.of(Kind.TINYINT, Kind.SMALLINT, Kind.UTINYINT,
            Kind.USMALLINT, Kind.FLOAT);
    private static final Set<Kind> FLOAT8_SAFE = EnumSet.of(Kind.TINYINT, Kind.SMALLINT, Kind.UTINYINT, Kind.INTEGER,
            Kind.USMALLINT, Kind.UINTEGER, Kind.FLOAT, Kind.DOUBLE);

    /** Integers the encoder reads as a long and then checks per value against a narrower target (Spark's BIGINT). */
    private static final Set<Kind> READ_AS_LONG = EnumSet.of(Kind.BIGINT, Kind.INTEGER, Kind.SMALLINT,
            Kind.UINTEGER, Kind.USMALLINT);

    private Conversions() {
    }

    /** The plan's note for a range-narrowing conversion: each value is checked, and one that does not fit fails. */
    private static String narrowed(Column source, DuckDbType from, PgType to) {
        boolean element = source.name().endsWith("[]");
        String column = element ? source.name().substring(0, source.name().length() - 2) : source.name();
        return column + ": " + from + (element ? "[] elements" : "") + " narrowed to " + to.name()
                + ", each value checked (DUCK302 names the row that does not fit)";
    }

    /**
     * A cast that fixes the column in a {@code query:}, valid for that column: a list element's cast applies to the
     * whole list ({@code CAST("l" AS INTEGER[])}), since an element has no name of its own.
     */
    private static String castHint(Column source, PgType to, String duckDbType) {
        String name = source.name();
        if (name.endsWith("[]")) {
            return "CAST(" + Sql.identifier(name.substring(0, name.length() - 2)) + " AS " + duckDbType + "[])";
        }
        return "CAST(" + Sql.identifier(name) + " AS " + duckDbType + ")";
    }

    static ColumnConversion plan(Column source, Column target) throws ConnectorException {
        DuckDbType from = DuckDbType.parse(source.typeName());
        PgType to = PgType.of(target);
        String c = Sql.identifier(source.name());
        String name = source.name();
        return switch (to.base()) {
            case TEXT, VARCHAR, BPCHAR -> text(source, target, from, to, c);
            case JSON, JSONB -> {
                boolean text = from.kind() == Kind.VARCHAR || from.kind() == Kind.JSON;
                String carrier = text ? cast(c, "VARCHAR") : "CAST(to_json(" + c + ") AS VARCHAR)";
                boolean floats = !text && JsonNonFinite.possibleIn(source.typeName());
                yield conversion(name, carrier, (i, o) -> new TextEncoders.TextEncoder(i, to, o, floats), floats
                        ? name + ": NaN and infinite floats become the strings \"NaN\", \"Infinity\", \"-Infinity\" (JSON has "
                        + "no such numbers), as PostgreSQL's to_jsonb writes them" : null);
            }
            case BOOL -> {
                require(from.kind() == Kind.BOOLEAN, source, target, "only BOOLEAN is a boolean",
                        "compute a BOOLEAN in the query: col <> 0");
                yield conversion(name, cast(c, "BOOLEAN"), (i, o) -> new NumberEncoders.BooleanEncoder(i), null);
            }
            case INT2, INT4, INT8 -> integer(source, target, from, to, c);
            case FLOAT4, FLOAT8 -> floating(source, target, from, to, c);
            case NUMERIC -> numeric(source, target, from, to, c);
            case DATE -> {
                require(from.kind() == Kind.DATE, source, target, "only a DATE is a date without losing the time",
                        "cast in the query if dropping the time is intended: CAST(col AS DATE)");
                yield conversion(name, cast(c, "DATE"), (i, o) -> new TemporalEncoders.DateEncoder(i, false, o), null);
            }
            case TIME -> {
                require(from.kind() == Kind.TIME || from.kind() == Kind.TIME_NS, source, target,
                        "only TIME is a time of day", "cast in the query: CAST(col AS TIME)");
                yield conversion(name, "epoch_us(" + c + ")", (i, o) -> new TemporalEncoders.MicrosEncoder(i, false),
                        from.kind() == Kind.TIME_NS ? name + ": TIME_NS truncated to microseconds" : null);
            }
            case TIMESTAMP, TIMESTAMPTZ -> timestamp(source, target, from, to, c);
            case INTERVAL -> {
                require(from.kind() == Kind.INTERVAL, source, target, "only an INTERVAL is an interval",
                        "cast in the query: CAST(col AS INTERVAL)");
                yield new ColumnConversion(name, List.of(TemporalEncoders.IntervalEncoder.carriers(c)),
                        (i, o) -> new TemporalEncoders.IntervalEncoder(i), Optional.empty());
            }
            case UUID -> {
                require(from.kind() == Kind.UUID, source, target, "only a UUID is a uuid",
                        "cast in the query, which checks each value: CAST(col AS UUID)");
                yield conversion(name, cast(c, "VARCHAR"), (i, o) -> new TextEncoders.UuidEncoder(i, to, o), null);
            }
            case BYTEA -> {
                require(from.kind() == Kind.BLOB, source, target, "only a BLOB is bytes",
                        from.kind() == Kind.VARCHAR ? "turn the text into its UTF-8 bytes in the query: encode(col)"
                                : "cast in the query: CAST(col AS BLOB)");
                yield conversion(name, "hex(" + c + ")", (i, o) -> new TextEncoders.BlobHexEncoder(i), null);
            }
            case ARRAY -> array(source, target, from, to, c);
            case OTHER -> {
                // enum labels (and types such as citext) take their text as binary input
                require(from.kind() == Kind.VARCHAR || from.kind() == Kind.ENUM, source, target,
                        "Sluice writes only text into user-defined types (e.g. enum labels)",
                        "map the column to a built-in type, or cast it in the query to VARCHAR");
                yield conversion(name, cast(c, "VARCHAR"), (i, o) -> new TextEncoders.TextEncoder(i, to, o), null);
            }
        };
    }

    private static ColumnConversion text(Column source, Column target, DuckDbType from, PgType to, String c)
            throws ConnectorException {
        require(from.kind() != Kind.BLOB, source, target, "bytes are not text",
                "load into bytea, or decode in the query: decode(col)");
        String carrier = from.kind() == Kind.VARCHAR ? cast(c, "VARCHAR") : "CAST(" + c + " AS VARCHAR)";
        String note = from.kind() == Kind.VARCHAR || from.kind() == Kind.ENUM || from.kind() == Kind.JSON ? null
                : source.name() + ": " + from + " written as DuckDB's text form";
        return conversion(source.name(), carrier, (i, o) -> new TextEncoders.TextEncoder(i, to, o), note);
    }

    private static ColumnConversion integer(Column source, Column target, DuckDbType from, PgType to, String c)
            throws ConnectorException {
        NumberEncoders.NumberWrite write = NumberEncoders.numberWrite(to.base());
        Set<Kind> safe = switch (to.base()) {
            case INT2 -> INT2_SAFE;
            case INT4 -> INT4_SAFE;
            default -> INT8_SAFE;
        };
        if (safe.contains(from.kind()) || READ_AS_LONG.contains(from.kind())) {
            NumberEncoders.IntegerRead read = NumberEncoders.integerRead(from.kind());
            return conversion(source.name(), cast(c, from.sql()),
                    (i, o) -> new NumberEncoders.IntegerEncoder(i, read, write, 0, o, to),
                    safe.contains(from.kind()) ? null : narrowed(source, from, to));
        }
        int maxDigits = switch (to.base()) {
            case INT2 -> 4;
            case INT4 -> 9;
            default -> 18;
        };
        if (from.kind() == Kind.DECIMAL && from.scale() == 0 && from.precision() <= 18) {
            return decimal(source.name(), unscaled(c, from), 0, write, 0, to,
                    from.precision() <= maxDigits ? null : narrowed(source, from, to));
        }
        String why = switch (from.kind()) {
            case FLOAT, DOUBLE -> "it would lose the fraction";
            case DECIMAL -> from.scale() > 0 ? "it would lose the fraction" : "values may exceed its range";
            case VARCHAR, JSON, ENUM -> "text is not a number";
            default -> from.isInteger() ? "values may exceed its range" : "the types are unrelated";
        };
        throw refused(source, target, why, "widen the target column, or cast in the query (DuckDB then checks each "
                + "value): " + castHint(source, to, duckDbInteger(to.base())));
    }

    private static ColumnConversion floating(Column source, Column target, DuckDbType from, PgType to, String c)
            throws ConnectorException {
        NumberEncoders.NumberWrite write = NumberEncoders.numberWrite(to.base());
        boolean single = to.base() == PgType.Base.FLOAT4;
        if (from.kind() == Kind.FLOAT || from.kind() == Kind.DOUBLE) {
            require(!(single && from.kind() == Kind.DOUBLE), source, target, "it would lose precision",
                    "use double precision, or cast in the query: CAST(col AS FLOAT)");
            boolean fromSingle = from.kind() == Kind.FLOAT;
            return conversion(source.name(), cast(c, from.sql()),
                    (i, o) -> new NumberEncoders.FloatEncoder(i, fromSingle, write), null);
        }
        if ((single ? FLOAT4_SAFE : FLOAT8_SAFE).contains(from.kind())) {
            NumberEncoders.IntegerRead read = NumberEncoders.integerRead(from.kind());
            return conversion(source.name(), cast(c, from.sql()),
                    (i, o) -> new NumberEncoders.IntegerEncoder(i, read, write, 0, o, to), null);
        }
        if (from.kind() == Kind.DECIMAL && from.precision() <= (single ? 6 : 15)) {
            return decimal(source.name(), unscaled(c, from), from.scale(), write, 0, to, null);
        }
        throw refused(source, target, from.isInteger() || from.kind() == Kind.DECIMAL
                        ? "not every value has an exact " + to + " form" : "the types are unrelated",
                "use numeric, or cast in the query: CAST(col AS " + (single ? "FLOAT" : "DOUBLE") + ")");
    }

    private static ColumnConversion numeric(Column source, Column target, DuckDbType from, PgType to, String c)
            throws ConnectorException {
        String name = source.name();
        int targetDigits = to.integerDigits();
        switch (from.kind()) {
            case TINYINT, SMALLINT, INTEGER, BIGINT, UTINYINT, USMALLINT, UINTEGER -> {
                NumberEncoders.IntegerRead read = NumberEncoders.integerRead(from.kind());
                long limit = NumberEncoders.limitFor(from.integerDigits(), targetDigits, 0);
                return conversion(name, cast(c, from.sql()), (i, o) -> new NumberEncoders.IntegerEncoder(i, read,
                        NumberEncoders.NumberWrite.NUMERIC, limit, o, to), null);
            }
            case HUGEINT, UHUGEINT, UBIGINT -> {
                return conversion(name, cast(c, from.sql()), (i, o) -> new NumberEncoders.WideNumberEncoder(i,
                        from.kind(), targetDigits, o, to), name + ": " + from + " read as BigInteger (slow path)");
            }
            case DECIMAL -> {
                if (to.scale() >= 0 && from.scale() > to.scale()) {
                    throw refused(source, target, "it would round away " + (from.scale() - to.scale())
                                    + " decimal place(s)",
                            "give the target column scale " + from.scale() + ", or round in the query: CAST(col AS "
                                    + "DECIMAL(" + Math.min(38, from.precision()) + "," + to.scale() + "))");
                }
                int scale = from.scale();
                if (from.precision() <= 18) {
                    long limit = NumberEncoders.limitFor(from.integerDigits(), targetDigits, scale);
                    return decimal(name, unscaled(c, from), scale, NumberEncoders.NumberWrite.NUMERIC, limit, to,
                            null);
                }
                return conversion(name, cast(c, from.sql()), (i, o) -> new NumberEncoders.WideNumberEncoder(i,
                        Kind.DECIMAL, targetDigits, o, to), null);
            }
            case FLOAT, DOUBLE -> {
                require(to.precision() < 0, source, target, "a binary fraction would be rounded to the column's scale",
                        "use unconstrained numeric or double precision, or cast in the query: CAST(col AS DECIMAL("
                                + to.precision() + "," + Math.max(to.scale(), 0) + "))");
                boolean single = from.kind() == Kind.FLOAT;
                return conversion(name, cast(c, from.sql()), (i, o) -> new NumberEncoders.FloatEncoder(i, single,
                        NumberEncoders.NumberWrite.NUMERIC), null);
            }
            default -> throw refused(source, target, "it is not a number",
                    "cast in the query, which checks each value: CAST(col AS DECIMAL(" + (to.precision() > 0
                            ? to.precision() + "," + Math.max(to.scale(), 0) : "38,10") + "))");
        }
    }

    private static ColumnConversion timestamp(Column source, Column target, DuckDbType from, PgType to, String c)
            throws ConnectorException {
        String name = source.name();
        boolean zoned = to.base() == PgType.Base.TIMESTAMPTZ;
        if (from.kind() == Kind.DATE && !zoned) {
            return conversion(name, cast(c, "DATE"), (i, o) -> new TemporalEncoders.DateEncoder(i, true, o), null);
        }
        require(from.isTimestamp(), source, target, "only a TIMESTAMP is a point in time",
                zoned && from.kind() == Kind.DATE ? "say which time zone midnight is in, in the query: "
                        + "CAST(col AS TIMESTAMP) AT TIME ZONE 'UTC'" : "cast in the query: CAST(col AS TIMESTAMP)");
        String note = null;
        if (from.kind() == Kind.TIMESTAMP_NS) {
            note = name + ": TIMESTAMP_NS truncated to microseconds";
        } else if (zoned && from.kind() != Kind.TIMESTAMP_TZ) {
            note = name + ": " + from + " taken as UTC";
        } else if (!zoned && from.kind() == Kind.TIMESTAMP_TZ) {
            note = name + ": TIMESTAMP WITH TIME ZONE written as its UTC wall-clock time";
        }
        return conversion(name, TemporalEncoders.timestampCarrier(c),
                (i, o) -> new TemporalEncoders.MicrosEncoder(i, true), note);
    }

    private static ColumnConversion array(Column source, Column target, DuckDbType from, PgType to, String c)
            throws ConnectorException {
        require(from.kind() == Kind.LIST || from.kind() == Kind.ARRAY, source, target, "only a LIST is an array",
                "build a list in the query, e.g. [col]");
        DuckDbType element = from.element().orElseThrow();
        PgType pgElement = to.element().orElseThrow();
        require(!element.isNested(), source, target, "nested lists have no one-dimensional array form",
                "load the column into jsonb instead");
        Column elementSource = Column.of(source.name() + "[]", element.sql());
        Column elementTarget = new Column(target.name() + "[]", pgElement.name(), pgElement.oid(), true,
                Column.Generation.NONE);
        // the element must pass the same checks a plain column of its types would; a narrowing of it is checked per
        // element by the array encoder, and the plan says so
        Optional<String> elementNote = plan(elementSource, elementTarget).note().filter(n -> n.contains("narrowed"));
        require(pgElement.base() != PgType.Base.INTERVAL, source, target, "interval arrays are not supported",
                "load the column into jsonb or text instead");
        String carrier = "CAST(to_json(list_transform(" + c + ", x -> " + ArrayEncoder.elementText(element, "x")
                + ")) AS VARCHAR)";
        return conversion(source.name(), carrier, (i, o) -> new ArrayEncoder(i, to, o),
                elementNote.map(n -> n + "; ").orElse("") + source.name() + ": LIST read through JSON text (slow path)");
    }

    /**
     * A DECIMAL(p<=18, s) as BIGINT carriers the chunk API reads without a BigDecimal: the unscaled value when
     * {@code col * 10^s} stays within DuckDB's 18-digit integer decimal arithmetic, else the integer part and the
     * fraction times 10^s (same sign). Widening to a 38-digit decimal instead was measured 40-70x slower in DuckDB.
     */
    static List<String> unscaled(String c, DuckDbType decimal) {
        String typed = cast(c, decimal.sql());
        if (decimal.scale() == 0) {
            return List.of("CAST(" + typed + " AS BIGINT)");
        }
        String power = "1" + "0".repeat(decimal.scale());
        if (decimal.precision() + decimal.scale() + 1 <= 18) {
            return List.of("CAST(" + typed + " * " + power + " AS BIGINT)");
        }
        return List.of("CAST(trunc(" + typed + ") AS BIGINT)",
                "CAST((" + typed + " - trunc(" + typed + ")) * " + power + " AS BIGINT)");
    }

    /**
     * Casts to the described type: a no-op for DuckDB when the type matches, and it keeps per-file reads (which may
     * infer a narrower type for a CSV column than the whole glob did) on the vector type the encoder reads.
     */
    private static String cast(String c, String type) {
        return "CAST(" + c + " AS " + type + ")";
    }

    private static String duckDbInteger(PgType.Base base) {
        return switch (base) {
            case INT2 -> "SMALLINT";
            case INT4 -> "INTEGER";
            default -> "BIGINT";
        };
    }

    private static ColumnConversion decimal(String name, List<String> carriers, int scale,
                                            NumberEncoders.NumberWrite write, long limit, PgType to, String note) {
        boolean split = carriers.size() == 2;
        return new ColumnConversion(name, carriers, (i, o) -> new NumberEncoders.DecimalEncoder(i, split, scale, write,
                limit, o, to), Optional.ofNullable(note));
    }

    private static ColumnConversion conversion(String name, String carrier, ColumnEncoder.Factory factory,
                                               String note) {
        return new ColumnConversion(name, List.of(carrier), factory, Optional.ofNullable(note));
    }

    private static void require(boolean ok, Column source, Column target, String why, String fix)
            throws ConnectorException {
        if (!ok) {
            throw refused(source, target, why, fix);
        }
    }

    private static ConnectorException refused(Column source, Column target, String why, String fix) {
        return new ConnectorException(ErrorKind.INVALID_SPEC, DUCK201,
                "column \"" + source.name() + "\": cannot load DuckDB " + source.typeName() + " into PostgreSQL "
                        + target.typeName() + " (target column \"" + target.name() + "\"): " + why, fixFor(source, fix));
    }

    /**
     * The fix with its SQL made valid for this column: the placeholder {@code col} becomes the quoted column name; for
     * a list element, the expression applies to each element {@code x} through {@code list_transform}.
     */
    static String fixFor(Column source, String fix) {
        String name = source.name();
        if (!name.endsWith("[]")) {
            return fix.replaceAll("\\bcol\\b", java.util.regex.Matcher.quoteReplacement(Sql.identifier(name)));
        }
        String list = Sql.identifier(name.substring(0, name.length() - 2));
        int at = fix.lastIndexOf(": ");
        if (at < 0 || !fix.substring(at).matches("(?s).*\\bcol\\b.*")) {
            return fix;
        }
        // the fixes end with their SQL: apply it to each element
        return fix.substring(0, at) + ", to each element: list_transform(" + list + ", x -> "
                + fix.substring(at + 2).replaceAll("\\bcol\\b", "x") + ")";
    }
}
