package io.sluice.connector.postgres;

import io.sluice.testkit.TargetFixture;
import io.sluice.testkit.TargetLoadContractTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The testkit's load lifecycle contract against PostgreSQL tables: every load mode, rebuilds and aborts. */
class PostgresTargetLoadContractTest extends TargetLoadContractTest {
    private static ContractDatabase db;

    @BeforeAll
    static void createDatabase() throws Exception {
        db = new ContractDatabase("load_contract");
    }

    @AfterAll
    static void closeConnector() {
        db.close();
    }

    @Override
    protected TargetFixture fixture() {
        return db;
    }
}
