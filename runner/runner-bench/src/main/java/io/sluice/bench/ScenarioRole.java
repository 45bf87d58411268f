package io.sluice.bench;

/** How a scenario's figures are used in the report. */
public enum ScenarioRole {
    /** The target's ingest limit: server-side COPY FROM a file; every ratio is against it. */
    INGEST_LIMIT,
    /** A tool users would pick instead of Sluice. */
    BASELINE,
    /** Sluice itself. */
    SLUICE,
    /**
     * Another measure of the target, for context: the ingest limit in the transaction shape Sluice's truncate load
     * by one worker uses (TRUNCATE, COPY FREEZE, COMMIT). No ratio is against it.
     */
    REFERENCE
}
