package io.sluice.bench;

import java.util.OptionalDouble;
import java.util.OptionalLong;

import static java.util.Objects.requireNonNull;

/**
 * What one run of a tool cost: wall time, and where measurable the client's CPU seconds, peak RSS, and the copy time
 * the tool reports itself (Sluice's summary line: wall time minus it is the CLI's start-up and shutdown).
 */
public record ToolRun(double wallSeconds, OptionalDouble clientCpuSeconds, OptionalLong peakRssKb,
                      OptionalDouble reportedCopySeconds) {
    public ToolRun {
        requireNonNull(clientCpuSeconds, "clientCpuSeconds is null");
        requireNonNull(peakRssKb, "peakRssKb is null");
        requireNonNull(reportedCopySeconds, "reportedCopySeconds is null");
    }

    public ToolRun(double wallSeconds, OptionalDouble clientCpuSeconds, OptionalLong peakRssKb) {
        this(wallSeconds, clientCpuSeconds, peakRssKb, OptionalDouble.empty());
    }

    ToolRun withReportedCopySeconds(OptionalDouble seconds) {
        return new ToolRun(wallSeconds, clientCpuSeconds, peakRssKb, seconds);
    }

    /** A run where only the servers work (server-side COPY): no client to measure. */
    public static ToolRun serverOnly(double wallSeconds) {
        return new ToolRun(wallSeconds, OptionalDouble.empty(), OptionalLong.empty());
    }
}
