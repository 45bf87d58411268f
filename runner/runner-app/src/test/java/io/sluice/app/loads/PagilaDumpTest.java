package io.sluice.app.loads;

import io.sluice.app.CliRun;
import io.sluice.app.ledger.LedgerFixture;
import io.sluice.testkit.TestTier;
import io.sluice.testkit.TestingPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static io.sluice.app.ledger.LedgerFixture.scalar;
import static io.sluice.app.ledger.LedgerFixture.sql;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 57's proof on the database every PostgreSQL user knows: Pagila as its upstream script creates it (test
 * resources {@code pagila/}: foreign keys, triggers, views, a materialized view, functions, an aggregate, domains, an
 * enum, standalone sequences, the partitioned {@code payment} with keys of each partition's own, PostgreSQL 18's
 * virtual generated column and {@code uuidv7()} defaults), plus row-level security with a policy, an UNLOGGED table,
 * an ICU collation, an extension with an index that uses it, grants to a role and a text search configuration (with
 * a dictionary of its own) an index uses. One spec ({@code objects: all})
 * into an empty database of the test kit's PostgreSQL 18; then the same spec again, as a scheduler runs it the next
 * day; and runs SIGKILLed inside the objects' transaction, then resumed or run afresh. After each: the target's
 * {@code pg_dump --schema-only} is the source's, line for line; every row, sequence and the materialized view's rows
 * are the source's (a trigger fired by the copy would rewrite film's full-text column).
 * pg_dump 18 comes from {@code .ci/provision-pg-dump.sh} (Debian's own is older, and dumps no newer server). Full
 * tier.
 */
@Tag(TestTier.FULL_ONLY)
class PagilaDumpTest {
    /** The upstream blocks that need pgvector, which the test servers lack: its extension and film_embedding. */
    private static final Pattern NEEDS_PGVECTOR = Pattern.compile("-- Name: [^\n]*(vector|film_embedding)");

    private static final String SOURCE = "pagila_src";
    private static TestingPostgres pg;
    private static Path pgDump;
    private static List<String> sourceDump;
    private static List<String> sourceRows;

    @TempDir
    Path dir;

    /** One server; its source database made once, as Pagila's script and the extras make it. */
    @BeforeAll
    static void pagila() throws Exception {
        pgDump = provisionPgDump();
        pg = TestingPostgres.start();
        sql(pg, "postgres", "CREATE DATABASE " + SOURCE);
        sql(pg, "postgres", "CREATE ROLE pagila_clerk", "CREATE ROLE pagila_auditor");
        sql(pg, SOURCE, pagilaSchema(pg.user()), resource("pagila-rows.sql"),
                "CREATE EXTENSION pg_trgm WITH SCHEMA public",
                "CREATE INDEX film_title_trgm ON public.film USING gin (title public.gin_trgm_ops)",
                "CREATE COLLATION public.german_phonebook (provider = icu, locale = 'de-u-co-phonebk')",
                "CREATE UNLOGGED TABLE public.film_note (film_id integer NOT NULL REFERENCES public.film, "
                        + "note text COLLATE public.german_phonebook NOT NULL, PRIMARY KEY (film_id, note))",
                "INSERT INTO public.film_note SELECT film_id, 'Notiz über ' || title FROM public.film "
                        + "WHERE film_id % 3 = 0",
                "ALTER TABLE public.customer ENABLE ROW LEVEL SECURITY",
                "CREATE POLICY own_store ON public.customer FOR SELECT TO pagila_clerk USING (store_id = 1)",
                "GRANT SELECT ON public.customer, public.film TO pagila_clerk",
                // granted after the clerk's: the ACL keeps that order (not the names'), and so must the copy's
                "GRANT SELECT, UPDATE ON public.film TO pagila_auditor",
                "GRANT SELECT (film_id, note) ON public.film_note TO pagila_clerk",
                "GRANT EXECUTE ON FUNCTION public.inventory_in_stock(integer) TO pagila_clerk",
                "GRANT USAGE ON SCHEMA public TO pagila_clerk",
                // full-text search of its own: a dictionary, a configuration using it, an index naming that
                "CREATE TEXT SEARCH DICTIONARY public.english_all (TEMPLATE = pg_catalog.snowball, "
                        + "language = 'english')",
                "CREATE TEXT SEARCH CONFIGURATION public.film_search (COPY = pg_catalog.english)",
                "ALTER TEXT SEARCH CONFIGURATION public.film_search ALTER MAPPING FOR asciiword, word "
                        + "WITH public.english_all, pg_catalog.simple",
                "COMMENT ON TEXT SEARCH CONFIGURATION public.film_search IS 'films, stop words kept'",
                "CREATE INDEX film_description_search ON public.film "
                        + "USING gin (to_tsvector('public.film_search', description))");
        sourceDump = SchemaDumps.of(pgDump, pg, SOURCE, "public");
        sourceRows = rows(pg, SOURCE);
        assertTrue(sourceRows.stream().anyMatch(r -> r.startsWith("public.rental_by_category 16 ")),
                "the source's materialized view is filled: " + sourceRows);
    }

    @AfterAll
    static void stop() {
        if (pg != null) {
            pg.close();
        }
    }

    @Test
    void pagilaCopiesIntoAnEmptyDatabaseWithTheSourcesDumpAndAgainTheNextDay() throws Exception {
        String target = pg.createDatabase("pagila_dst");
        Path spec = spec(target);
        for (String day : List.of("into an empty database", "again the next day, over the first day's copy")) {
            CliRun run = CliRun.of("run", spec.toString());
            assertEquals(0, run.exitCode(), day + ": " + run.all());
            assertSameAsTheSource(day, target);
        }
        String dumped = String.join("\n", sourceDump);
        for (String compared : List.of("CREATE AGGREGATE public.group_concat", "CREATE DOMAIN public.year",
                "CREATE TYPE public.mpaa_rating AS ENUM", "CREATE MATERIALIZED VIEW public.rental_by_category",
                "CREATE TRIGGER film_fulltext_trigger", "ATTACH PARTITION public.payment_p2022_01",
                "ADD CONSTRAINT payment_p2022_01_customer_id_fkey", "length_hours numeric(4,2) GENERATED ALWAYS AS",
                "DEFAULT uuidv7()",
                "CREATE UNLOGGED TABLE public.film_note", "COLLATE public.german_phonebook",
                "USING gin (title public.gin_trgm_ops)", "CREATE POLICY own_store",
                "ENABLE ROW LEVEL SECURITY", "GRANT SELECT ON TABLE public.film TO pagila_clerk",
                "GRANT SELECT,UPDATE ON TABLE public.film TO pagila_auditor",
                "CREATE SEQUENCE public.actor_actor_id_seq", "CREATE TEXT SEARCH DICTIONARY public.english_all",
                "ADD MAPPING FOR asciiword WITH public.english_all, simple",
                "to_tsvector('public.film_search'::regconfig, description)")) {
            assertTrue(dumped.contains(compared), "what the dumps compared: " + compared);
        }
    }

    /**
     * One table's pattern (a run of one stream has no step before its streams): the next day's run too drops the
     * table's carried triggers before it loads, so film's full-text column stays the source's.
     */
    @Test
    void aOneTablePatternTheNextDayDoesNotFireTheTriggersEither() throws Exception {
        String target = pg.createDatabase("pagila_film");
        Path spec = Files.writeString(dir.resolve("film.yaml"), Files.readString(spec(target))
                .replace("table: \"public.*\"", "table: \"public.fil?\""));
        String film = sourceRows.stream().filter(r -> r.startsWith("public.film ")).findFirst().orElseThrow();
        for (String day : List.of("into an empty database", "again the next day")) {
            CliRun run = CliRun.of("run", spec.toString());
            assertEquals(0, run.exitCode(), day + ": " + run.all());
            assertTrue(rows(pg, target).contains(film), day + ": film's rows as the source's " + film + ", not "
                    + rows(pg, target));
            assertEquals(2, scalar(pg, target, "SELECT count(*) FROM pg_trigger WHERE tgrelid = 'public.film'::regclass "
                    + "AND NOT tgisinternal"), day + ": film's two triggers are there");
        }
    }

    /**
     * SIGKILL inside the objects' transaction: while it creates them (held after its first view), while it fills the
     * materialized view, and the next day while it creates again the triggers it dropped before its first stream. An
     * event trigger of the target's (outside the dumped schema) waits at that statement on a lock the test holds; the
     * killed run's session, let go, finds its client gone and rolls back. Then {@code --resume} or a fresh run, as a
     * scheduler would: the same dump and rows as the source's.
     */
    @ParameterizedTest(name = "SIGKILL at {0}, then {1}")
    @CsvSource({"CREATE VIEW, resume", "CREATE VIEW, fresh", "REFRESH MATERIALIZED VIEW, resume",
            "REFRESH MATERIALIZED VIEW, fresh", "CREATE TRIGGER, resume", "CREATE TRIGGER, fresh"})
    void aRunKilledInsideTheObjectsTransactionEndsWithTheSourcesDump(String statement, String recovery)
            throws Exception {
        String target = pg.createDatabase("pagila_crash");
        Path spec = spec(target);
        boolean nextDay = statement.equals("CREATE TRIGGER");
        if (nextDay) { // the first day's copy, whole
            CliRun first = CliRun.of("run", spec.toString());
            assertEquals(0, first.exitCode(), first.all());
        }
        int gate = 5700 + statement.length() * 2 + (recovery.equals("resume") ? 0 : 1);
        sql(pg, target, "CREATE SCHEMA gate", "CREATE FUNCTION gate.hold() RETURNS event_trigger LANGUAGE plpgsql "
                        + "AS $$BEGIN PERFORM pg_advisory_xact_lock_shared(" + gate + "); END$$",
                "CREATE EVENT TRIGGER hold ON ddl_command_end WHEN TAG IN ('" + statement + "') "
                        + "EXECUTE FUNCTION gate.hold()");
        Path log = dir.resolve("killed.log");
        try (Connection holder = pg.connect(target); Statement s = holder.createStatement()) {
            s.execute("SELECT pg_advisory_lock(" + gate + ")");
            Process run = LedgerFixture.startSluice(log, "run", spec.toString(), "--run-id", "killed");
            LedgerFixture.waitUntil(run, log, () -> scalar(pg, target, "SELECT count(*) FROM pg_locks "
                    + "WHERE locktype = 'advisory' AND objid = " + gate + " AND NOT granted") > 0);
            run.destroyForcibly();
            assertTrue(run.waitFor(60, TimeUnit.SECONDS));
        }
        if (nextDay) {
            assertEquals(0, scalar(pg, target, "SELECT count(*) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
                    + "WHERE c.relnamespace = 'public'::regnamespace AND NOT t.tgisinternal"),
                    "the killed run dropped the triggers before its streams and created none again");
        } else {
            assertEquals(0, scalar(pg, target, "SELECT count(*) FROM pg_class WHERE relnamespace = "
                    + "'public'::regnamespace AND relkind IN ('v', 'm')"), "the killed transaction left no view");
        }
        CliRun recovered = recovery.equals("resume") ? CliRun.of("run", spec.toString(), "--resume", "killed")
                : CliRun.of("run", spec.toString(), "--run-id", "fresh");
        assertEquals(0, recovered.exitCode(), Files.readString(log) + "\n---\n" + recovered.all());
        assertSameAsTheSource("SIGKILL at " + statement + ", then " + recovery, target);
    }

    private Path spec(String target) throws IOException {
        return Files.writeString(dir.resolve("pagila.yaml"), """
                version: 1
                name: pagila
                connections:
                  src: { type: postgres, url: "%s", user: "%s" }
                  dst: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: pagila
                    source: { connection: src, table: "public.*" }
                    target:
                      connection: dst
                      table: "public.{table}"
                      create: if-missing
                      objects: all
                      privileges: copy
                      owners: { "%s": "%s" }
                    load-mode: truncate
                """.formatted(pg.jdbcUrl(SOURCE), pg.user(), pg.jdbcUrl(target), pg.user(), pg.user(), pg.user()));
    }

    /** The target's pg_dump line for line, then every table's rows, the materialized view's and the sequences'. */
    private static void assertSameAsTheSource(String when, String target) throws Exception {
        List<String> targetDump = SchemaDumps.of(pgDump, pg, target, "public");
        for (int i = 0; i < Math.min(sourceDump.size(), targetDump.size()); i++) {
            assertEquals(sourceDump.get(i), targetDump.get(i), when + ": pg_dump --schema-only -n public, line "
                    + (i + 1) + " of the source's and the target's");
        }
        assertEquals(sourceDump.size(), targetDump.size(), when + ": the dumps' lengths");
        assertEquals(sourceRows, rows(pg, target), when + ": every table's rows, the materialized view's, every "
                + "sequence's value");
    }

    /** pg_dump 18, provisioned by the CI script (kept in its cache folder). */
    private static Path provisionPgDump() throws IOException, InterruptedException {
        Path script = Path.of("../../.ci/provision-pg-dump.sh").toAbsolutePath().normalize();
        assertTrue(Files.isRegularFile(script), script + " is missing");
        Process process = new ProcessBuilder("bash", script.toString()).redirectErrorStream(true).start();
        process.getOutputStream().close();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(5, TimeUnit.MINUTES), "provision-pg-dump.sh did not finish");
        assertEquals(0, process.exitValue(), "bash .ci/provision-pg-dump.sh (needs apt-get and the Debian "
                + "archive): " + output);
        List<String> lines = output.strip().lines().toList();
        return Path.of(lines.getLast());
    }

    /** The upstream script without the blocks that need pgvector, its objects given to {@code user}. */
    private static String pagilaSchema(String user) throws IOException {
        String script = resource("pagila-schema.sql");
        StringBuilder kept = new StringBuilder();
        for (String block : script.split("(?m)^(?=--\n-- Name: )")) {
            if (!NEEDS_PGVECTOR.matcher(block).find()) {
                kept.append(block);
            }
        }
        return kept.toString().replace(" OWNER TO postgres;", " OWNER TO \"" + user + "\";");
    }

    private static String resource(String name) throws IOException {
        try (InputStream in = PagilaDumpTest.class.getResourceAsStream("/pagila/" + name)) {
            assertTrue(in != null, "test resource pagila/" + name + " is missing");
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /**
     * Each table's (partitions included) and the materialized view's row count and digest, then each sequence's
     * value: {@code name count digest}.
     */
    private static List<String> rows(TestingPostgres pg, String database) throws Exception {
        List<String> relations = new ArrayList<>();
        List<String> rows = new ArrayList<>();
        try (Connection c = pg.connect(database); Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname) "
                    + "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' "
                    + "AND c.relkind IN ('r', 'm') ORDER BY 1")) {
                while (rs.next()) {
                    relations.add(rs.getString(1));
                }
            }
            for (String relation : relations) {
                try (ResultSet rs = s.executeQuery("SELECT count(*), md5(coalesce(string_agg(t::text, E'\\n' "
                        + "ORDER BY t::text), '')) FROM " + relation + " t")) {
                    rs.next();
                    rows.add(relation + " " + rs.getLong(1) + " " + rs.getString(2));
                }
            }
            try (ResultSet rs = s.executeQuery("SELECT sequencename, last_value FROM pg_sequences "
                    + "WHERE schemaname = 'public' ORDER BY 1")) {
                while (rs.next()) {
                    rows.add("sequence " + rs.getString(1) + " " + rs.getString(2));
                }
            }
        }
        return rows;
    }
}
