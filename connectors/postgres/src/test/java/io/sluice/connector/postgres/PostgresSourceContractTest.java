package io.sluice.connector.postgres;

import io.sluice.spi.connector.SourceCapabilities;
import io.sluice.spi.read.Consistency;
import io.sluice.spi.read.Distribution;
import io.sluice.spi.read.DistributionMethod;
import io.sluice.spi.read.Source;
import io.sluice.testkit.SourceContractTest;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;

/**
 * The testkit's source contract over a PostgreSQL table of 5,000 rows (several types, NULLs), in a database of its
 * own: here with the default distribution, in the nested classes with a key ({@code range}, under a shared snapshot)
 * and by physical position ({@code ctid}).
 */
class PostgresSourceContractTest extends SourceContractTest {
    private static final long ROWS = 5_000;
    private static ContractDatabase db;

    @BeforeAll
    static void createFixture() throws Exception {
        db = new ContractDatabase("source_contract");
        db.execute("CREATE TABLE items (id bigint PRIMARY KEY, name text, amount numeric(12,2), "
                        + "created timestamptz, flag boolean, payload bytea)",
                "INSERT INTO items SELECT g, CASE WHEN g % 7 = 0 THEN NULL ELSE 'item ' || g || ' \u00e9' END, "
                        + "g * 1.25, timestamptz '2024-01-01 00:00:00+00' + g * interval '1 minute', g % 2 = 0, "
                        + "decode(md5(g::text), 'hex') FROM generate_series(1, " + ROWS + ") AS g",
                "ANALYZE items");
    }

    @AfterAll
    static void closeConnector() {
        db.close();
    }

    private static Source itemsSource() throws Exception {
        return db.connector().sources().orElseThrow().open(CopyHarness.sourceTable("items"));
    }

    @Override
    protected SourceCapabilities capabilities() {
        return new PostgresConnectorFactory().sourceCapabilities();
    }

    @Override
    protected Source createSource() throws Exception {
        return itemsSource();
    }

    @Override
    protected long expectedRows() {
        return ROWS;
    }

    /** The same table under another distribution method: each nested class below runs the whole suite again. */
    abstract class OtherMethod extends SourceContractTest {
        @Override
        protected SourceCapabilities capabilities() {
            return new PostgresConnectorFactory().sourceCapabilities();
        }

        @Override
        protected Source createSource() throws Exception {
            return itemsSource();
        }

        @Override
        protected long expectedRows() {
            return ROWS;
        }
    }

    @Nested
    class RangeOnTheKey extends OtherMethod {
        @Override
        protected Distribution distribution() {
            return CopyHarness.distribution(DistributionMethod.RANGE, "id");
        }

        @Override
        protected Consistency consistency() {
            return Consistency.SNAPSHOT;
        }
    }

    @Nested
    class Ctid extends OtherMethod {
        @Override
        protected Distribution distribution() {
            return CopyHarness.distribution(DistributionMethod.CTID, null);
        }
    }
}
