package io.sluice.bench;

import java.util.Optional;

/** One way of moving one data set into one target table, run several times by {@link BenchRunner}. */
public interface Scenario {
    ScenarioInfo info();

    /** Empty when the scenario can run on this machine; otherwise why not (it is reported as skipped). */
    Optional<String> skipReason();

    /** Once before the first run, untimed: what the scenario needs beyond the generated data. */
    default void prepare() throws ScenarioFailure {
    }

    /** Moves the data once into the (empty) target table. */
    ToolRun run(int runNumber) throws ScenarioFailure, InterruptedException;
}
