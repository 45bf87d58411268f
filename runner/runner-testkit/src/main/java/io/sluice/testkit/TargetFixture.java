package io.sluice.testkit;

import io.sluice.spi.Target;
import io.sluice.spi.TargetCapabilities;

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

    /** What the connector's factory declares of its targets ({@code factory.targetCapabilities()}). */
    default TargetCapabilities capabilities() {
        return TargetCapabilities.BASIC;
    }
}
