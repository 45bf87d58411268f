package io.sluice.testkit;

import io.sluice.spi.connector.TargetCapabilities;
import io.sluice.spi.write.Target;

import java.util.List;

/**
 * The tables a target contract suite works on, provided by the connector under test: one implementation serves the
 * target suite and the ledger suite alike. Each table has two columns in this order: {@code id}, a 64-bit integer, and
 * {@code label}, text that may be NULL.
 */
public interface TargetFixture {
    /** Creates an empty table {@code table} with the columns {@code id} (bigint) and {@code label} (text), in order. */
    void createTable(String table) throws Exception;

    /**
     * A new target over {@code table}, which may not exist, as a new run would get it: each call a new instance
     * (two claimers of one table are two targets).
     */
    Target target(String table) throws Exception;

    /** The committed rows of {@code table}, in any order, read outside every writer's transaction. */
    List<ContractRow> readRows(String table) throws Exception;

    /**
     * Creates an empty table {@code table} of the same shape with {@code id} as its primary key and an index on
     * {@code label}: the table {@link TargetLoadContractTest} merges into and rebuilds the indexes of. Only a fixture
     * whose target declares merge or {@code indexes: rebuild} needs it.
     */
    default void createKeyedTable(String table) throws Exception {
        throw new UnsupportedOperationException("this fixture has no keyed tables; its target declares no merge and "
                + "no index rebuild");
    }

    /** The definitions of {@code table}'s indexes, in any order, for a target that declares index rebuilds. */
    default List<String> indexes(String table) throws Exception {
        throw new UnsupportedOperationException("this fixture lists no indexes; its target declares no rebuild");
    }

    /** What the connector's factory declares of its targets ({@code factory.targetCapabilities()}). */
    default TargetCapabilities capabilities() {
        return TargetCapabilities.BASIC;
    }
}
