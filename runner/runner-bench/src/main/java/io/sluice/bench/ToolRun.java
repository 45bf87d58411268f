package io.sluice.bench;

import java.util.OptionalDouble;
import java.util.OptionalLong;

import static java.util.Objects.requireNonNull;

/** What one run of a tool cost: wall time, and where measurable the client's CPU seconds and peak RSS. */
public record ToolRun(double wallSeconds, OptionalDouble clientCpuSeconds, OptionalLong peakRssKb) {
    public ToolRun {
        requireNonNull(clientCpuSeconds, "clientCpuSeconds is null");
        requireNonNull(peakRssKb, "peakRssKb is null");
    }

    /** A run where only the servers work (server-side COPY): no client to measure. */
    public static ToolRun serverOnly(double wallSeconds) {
        return new ToolRun(wallSeconds, OptionalDouble.empty(), OptionalLong.empty());
    }
}
