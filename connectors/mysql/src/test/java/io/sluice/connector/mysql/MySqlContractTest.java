package io.sluice.connector.mysql;

import io.sluice.spi.connector.ConnectionConfig;
import io.sluice.spi.connector.Connector;
import io.sluice.spi.connector.Options;
import io.sluice.spi.connector.SourceCapabilities;
import io.sluice.spi.data.Column;
import io.sluice.spi.read.Consistency;
import io.sluice.spi.read.Distribution;
import io.sluice.spi.read.DistributionMethod;
import io.sluice.spi.read.Source;
import io.sluice.testkit.SourceContractTest;
import io.sluice.testkit.TestingMariaDb;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The testkit's source contract for {@code type: mysql} on a real MariaDB: none, range, ntile (on a nullable text key
 * whose values hold quotes, backslashes and case variants the collation calls equal), modulo and data-driven (on a
 * date), one snapshot.
 */
class MySqlContractTest {
    static final long ROWS = 3_000;
    static TestingMariaDb server;
    static Connector connector;

    @BeforeAll
    static void start() throws Exception {
        server = TestingMariaDb.start();
        String database = server.createDatabase("contract");
        try (Connection c = server.connect(database); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE orders (id BIGINT PRIMARY KEY, customer VARCHAR(40) NOT NULL, "
                    + "total DECIMAL(12,2), placed DATE, note TEXT, code BLOB)");
            // customer: a | and a : in every value (checkpoints must keep them), upper and lower case alike
            s.execute("INSERT INTO orders SELECT seq, CONCAT(IF(seq % 2 = 0, 'c|', 'C|'), seq % 97, ':'), seq / 7, "
                    + "DATE '2020-01-01' + INTERVAL (seq % 100) DAY, IF(seq % 5 = 0, NULL, CONCAT(ELT(1 + seq % 4, "
                    + "'a', 'A', 'it''s', 'back\\\\slash'), REPEAT('x', seq % 50))), IF(seq % 7 = 0, NULL, "
                    + "CONCAT('k', seq % 13)) FROM seq_1_to_" + ROWS);
        }
        connector = new MySqlConnectorFactory().create(new ConnectionConfig("contract", Options.of(
                MySqlOptions.CONNECTION, Map.of("url", server.jdbcUrl(database), "user", server.user(),
                        "password", server.password())), Path.of("."), Path.of(".")));
    }

    @AfterAll
    static void stop() {
        if (connector != null) {
            connector.close();
        }
        if (server != null) {
            server.close();
        }
    }

    abstract static class Base extends SourceContractTest {
        @Override
        protected Source createSource() throws Exception {
            return connector.sources().orElseThrow().open(Options.of(MySqlOptions.SOURCE, Map.of("table", "orders")));
        }

        @Override
        protected long expectedRows() {
            return ROWS;
        }

        @Override
        protected SourceCapabilities capabilities() {
            return MySqlConnectorFactory.SOURCE_CAPABILITIES;
        }

        @Override
        protected List<Column> targetColumns(List<Column> sourceColumns) {
            return sourceColumns.stream().map(c -> {
                MySqlType type = MySqlType.parse(c.typeName(), false);
                return new Column(c.name(), type.postgresType(), type.postgresOid(), c.nullable(),
                        Column.Generation.NONE);
            }).toList();
        }
    }

    @Nested
    class None extends Base {
    }

    @Nested
    class Range extends Base {
        @Override
        protected Distribution distribution() {
            return new Distribution(DistributionMethod.RANGE, Optional.of("id"), Optional.empty());
        }

        @Override
        protected Consistency consistency() {
            return Consistency.SNAPSHOT;
        }
    }

    @Nested
    class Modulo extends Base {
        @Override
        protected Distribution distribution() {
            return new Distribution(DistributionMethod.MODULO, Optional.of("primary-key"), Optional.empty());
        }

        @Override
        protected Consistency consistency() {
            return Consistency.SNAPSHOT;
        }
    }

    @Nested
    class Ntile extends Base {
        @Override
        protected Distribution distribution() {
            return new Distribution(DistributionMethod.NTILE, Optional.of("note"), Optional.empty());
        }

        @Override
        protected Consistency consistency() {
            return Consistency.SNAPSHOT;
        }
    }

    @Nested
    class DataDriven extends Base {
        @Override
        protected Distribution distribution() {
            return new Distribution(DistributionMethod.DATA_DRIVEN, Optional.of("placed"), Optional.empty());
        }
    }

    /** Listed values the collation calls equal ('c|1:' and 'C|1:') make one partition, not two reading one's rows. */
    @Nested
    class DataDrivenListed extends Base {
        @Override
        protected Distribution distribution() {
            return new Distribution(DistributionMethod.DATA_DRIVEN, Optional.of("customer"), Optional.of(
                    "SELECT 'c|1:' UNION ALL SELECT 'C|1:' UNION ALL SELECT 'c|2:' UNION ALL SELECT 'nobody'"));
        }
    }

    /** A BLOB key: its values travel as hex, whatever type the server gives HEX()'s result. */
    @Nested
    class DataDrivenOnBlob extends Base {
        @Override
        protected Distribution distribution() {
            return new Distribution(DistributionMethod.DATA_DRIVEN, Optional.of("code"), Optional.empty());
        }
    }
}
