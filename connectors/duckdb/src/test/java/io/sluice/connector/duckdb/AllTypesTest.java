package io.sluice.connector.duckdb;

import io.sluice.spi.connector.Connector;
import io.sluice.spi.data.Column;
import io.sluice.spi.read.Distribution;
import io.sluice.spi.read.Source;
import io.sluice.testkit.TestingPostgres;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A Parquet file with every DuckDB type the connector converts (and a row of NULLs) loaded into the PostgreSQL
 * types a user would map them to; every value is then compared in SQL with the same value written as a PostgreSQL
 * literal. Parquet cannot hold HUGEINT, UHUGEINT, TIME_NS, TIMESTAMP_S/MS, ENUM or fixed-size ARRAY, so the file
 * stores them (and negative intervals) as text/wider types and the stream's query casts them back.
 */
class AllTypesTest {
    /** One column: how Parquet stores it, its type in the query (when cast back), the target type, values per side. */
    record Case(String name, String parquetType, String queryType, String pgType, List<String> duck, List<String> pg,
                boolean compareText) {
        static Case of(String name, String duckType, String pgType, List<String> duck, List<String> pg) {
            return new Case(name, duckType, null, pgType, duck, pg, false);
        }

        static Case same(String name, String duckType, String pgType, String... values) {
            return of(name, duckType, pgType, List.of(values), List.of(values));
        }

        Case castTo(String type) {
            return new Case(name, parquetType, type, pgType, duck, pg, compareText);
        }

        Case asText() {
            return new Case(name, parquetType, queryType, pgType, duck, pg, true);
        }
    }

    static final String ENUM = "ENUM('sad', 'ok', 'happy')";
    static final List<Case> CASES = List.of(
            Case.same("c_bool", "BOOLEAN", "boolean", "true", "false", "true"),
            Case.same("c_tinyint", "TINYINT", "smallint", "-128", "127", "0"),
            Case.same("c_smallint", "SMALLINT", "smallint", "-32768", "32767", "0"),
            Case.same("c_int", "INTEGER", "integer", "-2147483648", "2147483647", "0"),
            Case.same("c_int_wide", "INTEGER", "bigint", "-2147483648", "2147483647", "1"),
            Case.same("c_bigint", "BIGINT", "bigint", "-9223372036854775808", "9223372036854775807", "0"),
            Case.same("c_bigint_num", "BIGINT", "numeric", "-9223372036854775808", "1234567890123", "0"),
            Case.of("c_int_text", "INTEGER", "text", List.of("42", "-7", "0"), List.of("'42'", "'-7'", "'0'")),
            Case.same("c_hugeint", "VARCHAR", "numeric", "'-170141183460469231731687303715884105728'",
                    "'170141183460469231731687303715884105727'", "'0'").castTo("HUGEINT"),
            Case.same("c_utinyint", "UTINYINT", "smallint", "0", "255", "7"),
            Case.same("c_usmallint", "USMALLINT", "integer", "0", "65535", "7"),
            Case.same("c_uinteger", "UINTEGER", "bigint", "0", "4294967295", "7"),
            Case.same("c_ubigint", "UBIGINT", "numeric(20,0)", "0", "18446744073709551615", "7"),
            Case.same("c_uhugeint", "VARCHAR", "numeric", "'0'", "'340282366920938463463374607431768211455'", "'7'")
                    .castTo("UHUGEINT"),
            Case.of("c_float", "FLOAT", "real", List.of("0.1", "'inf'", "-3.5"), List.of("0.1", "'Infinity'", "-3.5")),
            Case.of("c_double", "DOUBLE", "double precision", List.of("0.1", "-1.7976931348623157e308", "'nan'"),
                    List.of("0.1", "-1.7976931348623157e308", "'NaN'")),
            Case.same("c_double_num", "DOUBLE", "numeric", "0.1", "12345.678", "1e-7"),
            Case.same("c_dec4", "DECIMAL(4,1)", "numeric(4,1)", "-999.9", "0.5", "0"),
            Case.same("c_dec9", "DECIMAL(9,4)", "numeric(9,4)", "12345.6789", "-0.0001", "1"),
            Case.same("c_dec18", "DECIMAL(18,6)", "numeric(18,6)", "123456789012.345678", "-999999999999.999999",
                    "0.000001"),
            Case.same("c_dec38", "DECIMAL(38,10)", "numeric(38,10)", "1234567890123456789012345678.0123456789",
                    "-0.0000000001", "9999999999999999999999999999.9999999999"),
            Case.same("c_dec_int", "DECIMAL(9,0)", "integer", "123456789", "-1", "0"),
            Case.same("c_dec_wider", "DECIMAL(10,2)", "numeric(20,5)", "12345678.91", "-0.01", "100"),
            Case.same("c_dec_float", "DECIMAL(15,2)", "double precision", "12345.67", "-0.01", "9999999999999.99"),
            Case.same("c_varchar", "VARCHAR", "text", "'héllo wörld ✓ 😀'", "''", "'it''s, \"quoted\"'"),
            Case.same("c_varchar_n", "VARCHAR", "character varying(10)", "'abc'", "'ünïcödé😀!!'", "''"),
            Case.same("c_char", "VARCHAR", "character(5)", "'ab'", "'abcde'", "'x   '"),
            Case.same("c_jsonb_text", "VARCHAR", "jsonb", "'{\"a\": [1, 2]}'", "'[]'", "'\"s\"'"),
            Case.of("c_blob", "BLOB", "bytea", List.of("'\\x00\\xFF\\x10'", "''", "'abc'"),
                    List.of("'\\x00ff10'", "'\\x'", "'\\x616263'")),
            Case.same("c_date", "DATE", "date", "'2024-02-29'", "'1900-01-01'", "'infinity'"),
            Case.of("c_date_ts", "DATE", "timestamp without time zone",
                    List.of("'2024-02-29'", "'1970-01-01'", "'-infinity'"),
                    List.of("'2024-02-29 00:00:00'", "'1970-01-01 00:00:00'", "'-infinity'")),
            Case.same("c_time", "TIME", "time without time zone", "'23:59:59.999999'", "'00:00:00'", "'12:00:00.5'"),
            Case.of("c_time_ns", "VARCHAR", "time without time zone",
                    List.of("'12:34:56.123456789'", "'00:00:00'", "'23:59:59.999999999'"),
                    List.of("'12:34:56.123456'", "'00:00:00'", "'23:59:59.999999'")).castTo("TIME_NS"),
            Case.same("c_ts", "TIMESTAMP", "timestamp without time zone", "'2024-01-02 03:04:05.678901'",
                    "'1900-01-01 00:00:00'", "'infinity'"),
            Case.same("c_ts_s", "TIMESTAMP", "timestamp without time zone", "'2024-01-02 03:04:05'",
                    "'1969-12-31 23:59:59'", "'2000-01-01 00:00:00'").castTo("TIMESTAMP_S"),
            Case.same("c_ts_ms", "TIMESTAMP", "timestamp without time zone", "'2024-01-02 03:04:05.678'",
                    "'1960-06-01 12:00:00.001'", "'2000-01-01 00:00:00'").castTo("TIMESTAMP_MS"),
            Case.of("c_ts_ns", "TIMESTAMP_NS", "timestamp without time zone",
                    List.of("'2024-01-02 03:04:05.678901234'", "'2000-01-01 00:00:00'", "'1999-12-31 23:59:59.999999'"),
                    List.of("'2024-01-02 03:04:05.678901'", "'2000-01-01 00:00:00'", "'1999-12-31 23:59:59.999999'")),
            Case.of("c_ts_to_tz", "TIMESTAMP", "timestamp with time zone",
                    List.of("'2024-01-02 03:04:05'", "'1950-01-01 00:00:00'", "'-infinity'"),
                    List.of("'2024-01-02 03:04:05+00'", "'1950-01-01 00:00:00+00'", "'-infinity'")),
            Case.same("c_tstz", "TIMESTAMPTZ", "timestamp with time zone", "'2024-01-02 03:04:05.25+02'",
                    "'1999-01-01 00:00:00+00'", "'infinity'"),
            Case.of("c_tstz_ts", "TIMESTAMPTZ", "timestamp without time zone",
                    List.of("'2024-01-02 03:04:05+02'", "'1999-01-01 00:00:00+00'", "'2000-06-01 12:00:00-05'"),
                    List.of("'2024-01-02 01:04:05'", "'1999-01-01 00:00:00'", "'2000-06-01 17:00:00'")),
            Case.same("c_interval", "VARCHAR", "interval", "'1 year 2 months 3 days 04:05:06.789'",
                    "'-1 day -00:00:01'", "'36 hours'").castTo("INTERVAL").asText(), // Parquet: no negative interval
            Case.same("c_uuid", "UUID", "uuid", "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'",
                    "'00000000-0000-0000-0000-000000000000'", "'ffffffff-ffff-ffff-ffff-ffffffffffff'"),
            Case.same("c_json", "JSON", "json", "'{\"k\": \"v\"}'", "'[1, 2]'", "'null'").asText(),
            Case.same("c_json_b", "JSON", "jsonb", "'{\"k\": \"v\"}'", "'[1, 2]'", "'null'"),
            Case.same("c_enum", "VARCHAR", "text", "'ok'", "'sad'", "'happy'").castTo(ENUM),
            Case.same("c_enum_pg", "VARCHAR", "mood", "'ok'", "'happy'", "'sad'").castTo(ENUM).asText(),
            Case.of("c_list_int", "INTEGER[]", "integer[]", List.of("[1, 2, NULL]", "[]", "[-2147483648]"),
                    List.of("'{1,2,NULL}'", "'{}'", "'{-2147483648}'")),
            Case.of("c_array_int", "INTEGER[]", "integer[]", List.of("[1, 2, 3]", "[4, NULL, 6]", "[7, 8, 9]"),
                    List.of("'{1,2,3}'", "'{4,NULL,6}'", "'{7,8,9}'")).castTo("INTEGER[3]"),
            Case.of("c_list_bigint", "BIGINT[]", "bigint[]", List.of("[9223372036854775807]", "[-1, 0]", "[NULL]"),
                    List.of("'{9223372036854775807}'", "'{-1,0}'", "'{NULL}'")),
            Case.of("c_list_text", "VARCHAR[]", "text[]", List.of("['a', 'b,c', NULL, 'd\"e', 'f\\g']", "['ü']",
                    "[]"), List.of("ARRAY['a', 'b,c', NULL, 'd\"e', 'f\\g']", "ARRAY['ü']", "'{}'")),
            Case.of("c_list_varchar_n", "VARCHAR[]", "character varying(5)[]", List.of("['abcde', '']", "['ü']",
                    "[NULL]"), List.of("ARRAY['abcde', '']", "ARRAY['ü']", "ARRAY[NULL]")),
            Case.of("c_list_date", "DATE[]", "date[]", List.of("[DATE '2024-01-01', NULL]",
                    "['infinity'::DATE]", "[DATE '1999-12-31']"), List.of("ARRAY[DATE '2024-01-01', NULL]",
                    "ARRAY['infinity'::date]", "ARRAY[DATE '1999-12-31']")),
            Case.of("c_list_ts", "TIMESTAMP[]", "timestamp without time zone[]",
                    List.of("[TIMESTAMP '2024-01-02 03:04:05.5']", "[TIMESTAMP '1960-01-01 00:00:00', NULL]", "[]"),
                    List.of("ARRAY[TIMESTAMP '2024-01-02 03:04:05.5']", "ARRAY[TIMESTAMP '1960-01-01 00:00:00', NULL]",
                            "'{}'")),
            Case.of("c_list_dec", "DECIMAL(10,2)[]", "numeric[]", List.of("[1.5, -2.25, NULL]", "[0]",
                    "[99999999.99]"), List.of("ARRAY[1.5, -2.25, NULL]", "ARRAY[0]", "ARRAY[99999999.99]")),
            Case.of("c_list_double", "DOUBLE[]", "double precision[]", List.of("[0.1, 1e300]", "[-0.5]", "[NULL]"),
                    List.of("ARRAY[0.1, 1e300]", "ARRAY[-0.5]", "ARRAY[NULL]")),
            Case.of("c_list_bool", "BOOLEAN[]", "boolean[]", List.of("[true, false, NULL]", "[]", "[false]"),
                    List.of("ARRAY[true, false, NULL]", "'{}'", "ARRAY[false]")),
            Case.of("c_list_uuid", "UUID[]", "uuid[]", List.of("['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::UUID]",
                    "[]", "[NULL]"), List.of("ARRAY['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid]", "'{}'",
                    "ARRAY[NULL]")),
            Case.of("c_struct", "STRUCT(a INTEGER, b VARCHAR)", "jsonb", List.of("{'a': 1, 'b': 'x'}",
                    "{'a': NULL, 'b': 'ü'}", "{'a': -5, 'b': 'q\"uote'}"), List.of("'{\"a\": 1, \"b\": \"x\"}'",
                    "'{\"a\": null, \"b\": \"ü\"}'", "'{\"a\": -5, \"b\": \"q\\\"uote\"}'")),
            Case.of("c_map", "MAP(VARCHAR, INTEGER)", "jsonb", List.of("MAP {'k': 1, 'l': 2}", "MAP {}",
                    "MAP {'z': NULL}"), List.of("'{\"k\": 1, \"l\": 2}'", "'{}'", "'{\"z\": null}'")),
            Case.of("c_list_json", "INTEGER[]", "jsonb", List.of("[1, 2]", "[]", "[NULL]"),
                    List.of("'[1, 2]'", "'[]'", "'[null]'")));

    @TempDir
    static Path dir;
    static Connector connector;
    static PgLoad pg;

    @BeforeAll
    static void setUp() throws Exception {
        Path file = dir.resolve("all_types.parquet");
        try (Connection c = DuckDbFixtures.duckdb(); Statement s = c.createStatement()) {
            List<String> rows = new ArrayList<>();
            for (int row = 0; row < 3; row++) {
                int r = row;
                rows.add("(" + (row + 1) + ", " + CASES.stream().map(k -> "CAST(" + k.duck.get(r) + " AS "
                        + k.parquetType + ")").collect(Collectors.joining(", ")) + ")");
            }
            rows.add("(4, " + CASES.stream().map(k -> "CAST(NULL AS " + k.parquetType + ")")
                    .collect(Collectors.joining(", ")) + ")");
            s.execute("COPY (SELECT * FROM (VALUES " + String.join(", ", rows) + ") AS v(id, "
                    + CASES.stream().map(Case::name).collect(Collectors.joining(", ")) + ")) TO '" + file
                    + "' (FORMAT parquet)");
        }
        connector = DuckDbFixtures.connector(dir, Map.of());
        TestingPostgres server = TestingPostgres.shared();
        pg = new PgLoad(server, server.createDatabase("duck_types"));
        pg.execute("CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')");
        pg.execute("CREATE TABLE loaded (id integer, " + CASES.stream().map(k -> k.name + " " + k.pgType)
                .collect(Collectors.joining(", ")) + ")");
        List<String> expected = new ArrayList<>();
        for (int row = 0; row < 3; row++) {
            int r = row;
            expected.add("(" + (row + 1) + ", " + CASES.stream().map(k -> "CAST(" + k.pg.get(r) + " AS " + k.pgType
                    + ")").collect(Collectors.joining(", ")) + ")");
        }
        expected.add("(4, " + CASES.stream().map(k -> "CAST(NULL AS " + k.pgType + ")")
                .collect(Collectors.joining(", ")) + ")");
        pg.execute("CREATE TABLE expected AS SELECT * FROM (VALUES " + String.join(", ", expected) + ") AS v(id, "
                + CASES.stream().map(Case::name).collect(Collectors.joining(", ")) + ")");
    }

    @AfterAll
    static void tearDown() {
        connector.close();
    }

    @Test
    void everyValueArrivesEqual() throws Exception {
        String replaced = CASES.stream().filter(k -> k.queryType != null)
                .map(k -> "CAST(" + k.name + " AS " + k.queryType + ") AS " + k.name)
                .collect(Collectors.joining(", "));
        Source source = connector.sources().orElseThrow().open(DuckDbFixtures.source(Map.of("query",
                "SELECT * REPLACE (" + replaced + ") FROM read_parquet('all_types.parquet')")));

        Set<DuckDbType.Kind> covered = EnumSet.noneOf(DuckDbType.Kind.class);
        for (Column column : source.columns()) {
            covered.add(DuckDbType.parse(column.typeName()).kind());
        }
        Set<DuckDbType.Kind> missing = EnumSet.complementOf(EnumSet.copyOf(covered));
        missing.removeAll(EnumSet.of(DuckDbType.Kind.TIME_TZ, DuckDbType.Kind.OTHER));
        assertTrue(missing.isEmpty(), "types not covered: " + missing);

        assertEquals(4, pg.load(source, "loaded", Distribution.none(), 1));
        List<String> differences = new ArrayList<>();
        for (Case k : CASES) {
            String left = k.compareText ? "l." + k.name + "::text" : "l." + k.name;
            String right = k.compareText ? "e." + k.name + "::text" : "e." + k.name;
            List<List<String>> bad = pg.query("SELECT l.id, " + left + ", " + right + " FROM loaded l JOIN expected e "
                    + "USING (id) WHERE " + left + " IS DISTINCT FROM " + right);
            if (!bad.isEmpty()) {
                differences.add(k.name + " (" + k.parquetType + (k.queryType == null ? "" : " as " + k.queryType)
                        + " -> " + k.pgType + "): " + bad);
            }
        }
        assertEquals(List.of(), differences);
        assertEquals(List.of(List.of("4")), pg.query("SELECT count(*) FROM loaded l JOIN expected e USING (id)"));
    }
}
