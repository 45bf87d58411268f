package io.sluice.bench;

import static java.util.Objects.requireNonNull;

/** One checked run of a scenario: the tool's own figures, the machine's CPU during it, and the rows found after. */
public record RunMeasurement(ToolRun tool, double machineCpuSeconds, long rows) {
    public RunMeasurement {
        requireNonNull(tool, "tool is null");
    }

    public double wallSeconds() {
        return tool.wallSeconds();
    }
}
