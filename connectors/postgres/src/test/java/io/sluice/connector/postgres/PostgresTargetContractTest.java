package io.sluice.connector.postgres;

import io.sluice.spi.data.CopyFormat;
import io.sluice.testkit.TargetContractTest;
import io.sluice.testkit.TargetFixture;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;

/**
 * The testkit's target contract against a PostgreSQL table, in a database of this class's own: in binary COPY, and
 * in the nested class in text COPY (what the runner sends when a column has no binary form the target reads).
 */
class PostgresTargetContractTest extends TargetContractTest {
    private static ContractDatabase db;

    @BeforeAll
    static void createDatabase() throws Exception {
        db = new ContractDatabase("target_contract");
    }

    @AfterAll
    static void closeConnector() {
        db.close();
    }

    @Override
    protected TargetFixture fixture() {
        return db;
    }

    @Nested
    class InTextFormat extends TargetContractTest {
        @Override
        protected CopyFormat format() {
            return CopyFormat.TEXT;
        }

        @Override
        protected TargetFixture fixture() {
            return db;
        }
    }
}
