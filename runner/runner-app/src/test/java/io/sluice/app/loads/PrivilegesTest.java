package io.sluice.app.loads;

import io.sluice.app.CliRun;
import io.sluice.testkit.TestingPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import static io.sluice.app.ledger.LedgerFixture.scalar;
import static io.sluice.app.ledger.LedgerFixture.sql;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code privileges: copy}: a table the load creates with the source's definition gets the grants the source table's
 * owner gave others, on the table and on its columns, with or without GRANT OPTION, PUBLIC's too. Roles are the
 * server's: one the target lacks is refused at plan, naming it, before anything is created; a load that would create
 * the table without the definition is refused too. Without the key ({@code none}) a created table keeps its owner's
 * privileges only.
 */
class PrivilegesTest {
    /** Every grant of schema app's tables but the owner's: grantee, privilege, grant option, column (or '-'). */
    private static final String GRANTS = "SELECT string_agg(g, ' | ' ORDER BY g) FROM ("
            + "SELECT table_name || ' ' || grantee || ' ' || privilege_type || ' ' || is_grantable || ' -' AS g "
            + "FROM information_schema.role_table_grants WHERE table_schema = 'app' AND grantee <> (SELECT "
            + "tableowner FROM pg_tables WHERE schemaname = 'app' AND tablename = table_name) "
            + "UNION ALL SELECT table_name || ' ' || grantee || ' ' || privilege_type || ' ' || is_grantable || ' ' "
            + "|| column_name FROM information_schema.column_privileges WHERE table_schema = 'app' "
            + "AND grantee <> (SELECT tableowner FROM pg_tables WHERE schemaname = 'app' AND tablename = table_name) "
            + "AND NOT EXISTS (SELECT 1 FROM information_schema.role_table_grants t "
            + "WHERE t.table_schema = 'app' AND t.table_name = column_privileges.table_name "
            + "AND t.grantee = column_privileges.grantee "
            + "AND t.privilege_type = column_privileges.privilege_type)) x";

    @TempDir
    Path dir;

    @Test
    void aCreatedTableGetsTheSourcesGrantsWhenAskedAndARoleTheTargetLacksIsRefusedAtPlan() throws Exception {
        TestingPostgres pg = TestingPostgres.shared();
        String suffix = Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36);
        String reader = "sluice_reader_" + suffix;
        String auditor = "Sluice Auditor " + suffix; // a name that needs quoting
        String source = pg.createDatabase("privileges_src");
        sql(pg, source, "CREATE ROLE " + reader, "CREATE ROLE \"" + auditor + "\"", "CREATE SCHEMA app",
                "CREATE TABLE app.items (id int PRIMARY KEY, note text, secret text)",
                "INSERT INTO app.items SELECT g, 'note ' || g, 'secret ' || g FROM generate_series(1, 100) g",
                "GRANT SELECT, INSERT ON app.items TO " + reader,
                "GRANT SELECT (id, note) ON app.items TO \"" + auditor + "\"",
                "GRANT UPDATE (note) ON app.items TO \"" + auditor + "\" WITH GRANT OPTION",
                "GRANT SELECT ON app.items TO PUBLIC");
        String expected = text(pg, source, GRANTS);
        assertTrue(expected.contains(reader + " INSERT") && expected.contains("PUBLIC SELECT")
                && expected.contains(auditor + " UPDATE YES note"), expected);

        try (TestingPostgres other = TestingPostgres.start()) {
            String target = other.createDatabase("privileges_dst");
            sql(other, target, "CREATE SCHEMA app");
            Path copying = spec("copy.yaml", pg, source, other, target, ", privileges: copy");

            // The target server has neither role: plan and lint --connect refuse, naming them; nothing is created.
            for (String command : List.of("plan", "lint")) {
                CliRun refused = command.equals("lint") ? CliRun.of("lint", "--connect", copying.toString())
                        : CliRun.of("plan", copying.toString());
                assertTrue(refused.exitCode() != 0, refused.all());
                assertTrue(refused.all().contains("PG234") && refused.all().contains(reader)
                        && refused.all().contains(auditor), refused.all());
            }
            assertEquals(0, scalar(other, target, "SELECT count(*) FROM pg_class WHERE relname = 'items'"));

            sql(other, target, "CREATE ROLE " + reader, "CREATE ROLE \"" + auditor + "\"");
            CliRun plan = CliRun.of("plan", copying.toString());
            assertEquals(0, plan.exitCode(), plan.all());
            assertTrue(plan.out().contains("GRANT UPDATE (\"note\") ON \"app\".\"items\" TO \"" + auditor
                    + "\" WITH GRANT OPTION"), plan.out());
            CliRun run = CliRun.of("run", copying.toString());
            assertEquals(0, run.exitCode(), run.all());
            assertEquals(expected, text(other, target, GRANTS), "the source's grants, on the table and its columns");
            assertEquals(100, scalar(other, target, "SELECT count(*) FROM app.items"));

            // The default copies none: the created table has its owner's privileges only.
            String plain = other.createDatabase("privileges_none");
            sql(other, plain, "CREATE SCHEMA app");
            CliRun none = CliRun.of("run", spec("none.yaml", pg, source, other, plain, "").toString());
            assertEquals(0, none.exitCode(), none.all());
            assertEquals(null, text(other, plain, GRANTS), "privileges: none grants nothing");

            // owners: the created table goes to the mapped role, the grants with it; the loading user must be able
            // to act as that role, and every source owner needs an entry.
            String owned = other.createDatabase("privileges_owned");
            sql(other, owned, "CREATE SCHEMA app");
            String owner = "sluice_owner_" + suffix;
            sql(other, owned, "CREATE ROLE " + owner);
            CliRun unmapped = CliRun.of("plan", spec("unmapped.yaml", pg, source, other, owned,
                    ", owners: { nobody: " + owner + " }").toString());
            assertTrue(unmapped.exitCode() != 0 && unmapped.all().contains("PG236"), unmapped.all());
            CliRun mapped = CliRun.of("run", spec("owners.yaml", pg, source, other, owned, ", privileges: copy, "
                    + "owners: { " + pg.user() + ": " + owner + " }").toString());
            assertEquals(0, mapped.exitCode(), mapped.all());
            assertEquals(owner, text(other, owned, "SELECT tableowner FROM pg_tables WHERE schemaname = 'app' "
                    + "AND tablename = 'items'"));
            assertEquals(expected, text(other, owned, GRANTS), "the grants, now given by the new owner");
            String loader = "sluice_loader_" + suffix;
            String refusedOwner = other.createDatabase("privileges_not_member");
            sql(other, refusedOwner, "CREATE SCHEMA app", "CREATE ROLE " + loader + " LOGIN",
                    "GRANT ALL ON SCHEMA app TO " + loader);
            Path asLoader = Files.writeString(dir.resolve("loader.yaml"), Files.readString(spec("loader0.yaml", pg,
                    source, other, refusedOwner, ", owners: { " + pg.user() + ": " + owner + " }"))
                    .replace("dst: { type: postgres, url: \"" + other.jdbcUrl(refusedOwner) + "\", user: \""
                            + other.user() + "\" }", "dst: { type: postgres, url: \"" + other.jdbcUrl(refusedOwner)
                            + "\", user: \"" + loader + "\" }"));
            assertTrue(Files.readString(asLoader).contains("user: \"" + loader + "\""), Files.readString(asLoader));
            CliRun notMember = CliRun.of("plan", asLoader.toString());
            assertTrue(notMember.exitCode() != 0 && notMember.all().contains("PG235"), notMember.all());

            // A table created without the source's definition would lose the grants: refused, with the way out.
            String bare = other.createDatabase("privileges_bare");
            sql(other, bare, "CREATE SCHEMA app");
            CliRun refused = CliRun.of("plan", spec("bare.yaml", pg, source, other, bare,
                    ", privileges: copy, definition: bare").toString());
            assertTrue(refused.exitCode() != 0, refused.all());
            assertTrue(refused.all().contains("PG233") && refused.all().contains("definition: bare"),
                    refused.all());
        }
    }

    private Path spec(String file, TestingPostgres from, String source, TestingPostgres to, String target,
                      String targetExtra) throws Exception {
        return Files.writeString(dir.resolve(file), """
                version: 1
                name: privileges
                connections:
                  src: { type: postgres, url: "%s", user: "%s" }
                  dst: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: app
                    source: { connection: src, table: "app.*" }
                    target: { connection: dst, table: "app.{table}", create: if-missing%s }
                    load-mode: truncate
                """.formatted(from.jdbcUrl(source), from.user(), to.jdbcUrl(target), to.user(), targetExtra));
    }

    private static String text(TestingPostgres pg, String database, String query) throws Exception {
        try (var c = pg.connect(database); var s = c.createStatement(); var rs = s.executeQuery(query)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
