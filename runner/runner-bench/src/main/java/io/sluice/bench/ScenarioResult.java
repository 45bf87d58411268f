package io.sluice.bench;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.function.ToDoubleFunction;

import static java.util.Objects.requireNonNull;

/** The outcome of a scenario over all its runs, with the statistics the report shows. */
public record ScenarioResult(ScenarioInfo info, Status status, Optional<String> message, List<RunMeasurement> runs,
                             long rows, long bytes) {
    public enum Status { OK, SKIPPED, FAILED }

    public ScenarioResult {
        requireNonNull(info, "info is null");
        requireNonNull(status, "status is null");
        requireNonNull(message, "message is null");
        runs = List.copyOf(requireNonNull(runs, "runs is null"));
        if (status == Status.OK && runs.isEmpty()) {
            throw new IllegalArgumentException("an OK result needs runs: " + info.id());
        }
    }

    public static ScenarioResult skipped(ScenarioInfo info, String reason, long rows, long bytes) {
        return new ScenarioResult(info, Status.SKIPPED, Optional.of(reason), List.of(), rows, bytes);
    }

    public boolean ok() {
        return status == Status.OK;
    }

    public double medianSeconds() {
        return median(RunMeasurement::wallSeconds);
    }

    public double minSeconds() {
        return runs.stream().mapToDouble(RunMeasurement::wallSeconds).min().orElse(Double.NaN);
    }

    public double maxSeconds() {
        return runs.stream().mapToDouble(RunMeasurement::wallSeconds).max().orElse(Double.NaN);
    }

    public double rowsPerSecond() {
        return rows / medianSeconds();
    }

    /** MB (10^6 bytes) of binary COPY stream per second. */
    public double megabytesPerSecond() {
        return bytes / 1e6 / medianSeconds();
    }

    public OptionalDouble medianClientCpuSeconds() {
        if (runs.isEmpty() || runs.stream().anyMatch(r -> r.tool().clientCpuSeconds().isEmpty())) {
            return OptionalDouble.empty();
        }
        return OptionalDouble.of(median(r -> r.tool().clientCpuSeconds().getAsDouble()));
    }

    /** The client's share of all CPU time the machine spent during the run (median over runs). */
    public OptionalDouble medianClientCpuShare() {
        if (medianClientCpuSeconds().isEmpty() || runs.stream().anyMatch(r -> r.machineCpuSeconds() <= 0)) {
            return OptionalDouble.empty();
        }
        return OptionalDouble.of(median(r -> r.tool().clientCpuSeconds().getAsDouble() / r.machineCpuSeconds()));
    }

    /** Median of the copy time the tool reported itself, when every run reported one. */
    public OptionalDouble medianReportedCopySeconds() {
        if (runs.isEmpty() || runs.stream().anyMatch(r -> r.tool().reportedCopySeconds().isEmpty())) {
            return OptionalDouble.empty();
        }
        return OptionalDouble.of(median(r -> r.tool().reportedCopySeconds().getAsDouble()));
    }

    public double medianMachineCpuSeconds() {
        return median(RunMeasurement::machineCpuSeconds);
    }

    public OptionalLong peakRssKb() {
        return runs.stream().map(r -> r.tool().peakRssKb()).filter(OptionalLong::isPresent)
                .mapToLong(OptionalLong::getAsLong).max();
    }

    private double median(ToDoubleFunction<RunMeasurement> value) {
        double[] v = runs.stream().mapToDouble(value).sorted().toArray();
        if (v.length == 0) {
            return Double.NaN;
        }
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    static double median(double... values) {
        double[] v = Arrays.stream(values).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
}
