package io.sluice.connector.postgres;

import io.sluice.testkit.TargetFixture;
import io.sluice.testkit.LedgerStoreContractTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The testkit's ledger store contract against a PostgreSQL target (ledger in the default schema, sluice), in a database
 * of its own, so the ledger is created by this class's first test.
 */
class PostgresLedgerStoreContractTest extends LedgerStoreContractTest {
    private static ContractDatabase db;

    @BeforeAll
    static void createDatabase() throws Exception {
        db = new ContractDatabase("ledger_contract");
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
