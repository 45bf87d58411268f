package io.sluice.bench;

import java.io.IOException;
import java.util.Optional;
import java.util.OptionalDouble;

import static java.util.Objects.requireNonNull;

/**
 * What one Sluice CLI run costs with nothing to copy (an empty lineitem-shaped table, ctid, degree 1): JVM start-up,
 * planning and shutdown. Subtracted from the degree-1 run's CPU, it gives the marginal CPU per GB the scaling model
 * needs; at small scales the fixed part would otherwise dominate.
 */
final class SluiceFixedCostProbe {
    static final String EMPTY_TABLE = "lineitem_empty";

    private final SluiceLauncher launcher;
    private final PgEndpoint source;
    private final PgEndpoint target;

    SluiceFixedCostProbe(SluiceLauncher launcher, PgEndpoint source, PgEndpoint target) {
        this.launcher = requireNonNull(launcher, "launcher is null");
        this.source = requireNonNull(source, "source is null");
        this.target = requireNonNull(target, "target is null");
    }

    /** Median wall and CPU seconds over {@code runs}; empty when Sluice failed or its jar is missing. */
    Optional<ToolRun> measure(int runs) throws InterruptedException {
        if (!java.nio.file.Files.isRegularFile(launcher.jar())) {
            return Optional.empty();
        }
        String table = TpchData.SCHEMA + "." + EMPTY_TABLE;
        String yaml = SluiceSpec.postgresToPostgres("bench-fixed-cost", source, target, table, table, "ctid",
                Optional.empty(), 1);
        double[] wall = new double[runs];
        double[] cpu = new double[runs];
        try {
            var spec = launcher.writeSpec("fixed-cost", yaml);
            // Not counted: the launcher's first run of a build writes its start-up archive, which every later run
            // (the scenarios' included) then maps, as a user's runs do after their first.
            if (launcher.run(spec, "fixed-cost-warm-up").exitCode() != 0) {
                return Optional.empty();
            }
            for (int i = 0; i < runs; i++) {
                TimedProcess.Result result = launcher.run(spec, "fixed-cost-run" + (i + 1));
                if (result.exitCode() != 0 || result.run().clientCpuSeconds().isEmpty()) {
                    return Optional.empty();
                }
                wall[i] = result.run().wallSeconds();
                cpu[i] = result.run().clientCpuSeconds().getAsDouble();
            }
        } catch (IOException e) {
            return Optional.empty();
        }
        return Optional.of(new ToolRun(ScenarioResult.median(wall), OptionalDouble.of(ScenarioResult.median(cpu)),
                java.util.OptionalLong.empty()));
    }
}
