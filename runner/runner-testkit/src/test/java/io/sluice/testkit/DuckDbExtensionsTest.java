package io.sluice.testkit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DuckDbExtensionsTest {
    private final String saved = System.getProperty(DuckDbExtensions.PROPERTY);

    @AfterEach
    void restoreProperty() {
        if (saved == null) {
            System.clearProperty(DuckDbExtensions.PROPERTY);
        } else {
            System.setProperty(DuckDbExtensions.PROPERTY, saved);
        }
    }

    @Test
    void missingExtensionFailsWithHowToProvision(@TempDir Path empty) {
        System.setProperty(DuckDbExtensions.PROPERTY, empty.toString());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> DuckDbExtensions.require("httpfs"));
        Path expected = empty.resolve("v1.5.5").resolve(DuckDbExtensions.platform()).resolve("httpfs.duckdb_extension");
        assertEquals("DuckDB extension 'httpfs' is not provisioned: " + expected + " does not exist. Run `bash"
                + " .ci/provision-duckdb-extensions.sh` at the repository root (it fetches the PyPI wheels"
                + " duckdb-extension-*==1.5.5), or point -Dsluice.duckdb.extensions or SLUICE_DUCKDB_EXTENSIONS at a"
                + " directory laid out as <dir>/v1.5.5/" + DuckDbExtensions.platform() + "/<name>.duckdb_extension.",
                e.getMessage());
    }

    @Test
    void defaultDirectoryIsInTheRepository() {
        System.clearProperty(DuckDbExtensions.PROPERTY);
        if (System.getenv(DuckDbExtensions.ENV) == null) {
            Path dir = DuckDbExtensions.directory();
            assertTrue(dir.endsWith(Path.of(".ci", "cache", "duckdb-extensions")), dir.toString());
            assertTrue(Files.isRegularFile(dir.getParent().getParent().resolve("provision-duckdb-extensions.sh")),
                    "walks up to the repository root: " + dir);
        }
    }

    @Test
    void provisionedExtensionsLoadOffline() throws Exception {
        DuckDbExtensions.require("httpfs");
        DuckDbExtensions.require("tpch");
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:", DuckDbExtensions.connectionProperties());
             Statement s = c.createStatement()) {
            s.execute("LOAD tpch");
            s.execute("CALL dbgen(sf = 0.001)");
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM nation")) {
                rs.next();
                assertEquals(25, rs.getLong(1));
            }
            try (ResultSet rs = s.executeQuery(
                    "SELECT installed FROM duckdb_extensions() WHERE extension_name = 'httpfs'")) {
                rs.next();
                assertTrue(rs.getBoolean(1), "httpfs found in " + DuckDbExtensions.directory());
            }
        }
    }
}
