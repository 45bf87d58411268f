package io.sluice.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;

import static java.util.Objects.requireNonNull;

/**
 * What degree saturates a bigger target, from this run's single-stream figures. Measured here: the source's scan rate
 * per stream, the target's ingest rate per stream (the ingest limit), Sluice's CPU per GB and its own degree-1 copy
 * rate. Modelled: everything on other machines, with
 * {@code T(d) = min(d * r1, ceiling)}, {@code r1 = min(r_in, r_out, 1000 / cpuPerGb)} and a ceiling of either the
 * target's cores times {@code r_in} or an I/O limit.
 */
final class ScalingModel {
    /** TPC-H lineitem rows at SF 100 (FastTransfer's published run). */
    static final long SF100_LINEITEM_ROWS = 600_037_902L;
    static final double FASTTRANSFER_DEGREE1_SECONDS = 878;
    static final double FASTTRANSFER_DEGREE128_SECONDS = 67;
    static final int FASTTRANSFER_VCPUS = 128;

    private final double sourceScanMbps;
    private final double ingestMbps;
    private final OptionalDouble sluiceCpuSecondsPerGb;
    private final OptionalDouble sluiceDegree1Mbps;
    private final double bytesPerRow;
    private final Optional<ToolRun> sluiceFixedCost;

    ScalingModel(double sourceScanMbps, double ingestMbps, OptionalDouble sluiceCpuSecondsPerGb,
                 OptionalDouble sluiceDegree1Mbps, double bytesPerRow, Optional<ToolRun> sluiceFixedCost) {
        this.sourceScanMbps = sourceScanMbps;
        this.ingestMbps = ingestMbps;
        this.sluiceCpuSecondsPerGb = requireNonNull(sluiceCpuSecondsPerGb, "sluiceCpuSecondsPerGb is null");
        this.sluiceDegree1Mbps = requireNonNull(sluiceDegree1Mbps, "sluiceDegree1Mbps is null");
        this.bytesPerRow = bytesPerRow;
        this.sluiceFixedCost = requireNonNull(sluiceFixedCost, "sluiceFixedCost is null");
    }

    /** From the results of a run: needs the lineitem LOGGED ingest limit; the Sluice figures are optional. */
    static Optional<ScalingModel> of(ResultComparison c, double sourceScanMbps, TableData lineitem,
                                     Optional<ToolRun> sluiceFixedCost) {
        Optional<ScenarioResult> limit = c.find(Section.LINEITEM_LOGGED, SluiceSlug.INGEST_LIMIT, 0)
                .filter(ScenarioResult::ok);
        if (limit.isEmpty() || !(sourceScanMbps > 0) || lineitem.rows() == 0) {
            return Optional.empty();
        }
        Optional<ScenarioResult> d1 = c.find(Section.LINEITEM_LOGGED, SluiceSlug.CTID, 1).filter(ScenarioResult::ok);
        // Marginal CPU: the degree-1 run's CPU minus what a run with nothing to copy costs.
        double fixedCpu = sluiceFixedCost.flatMap(f -> f.clientCpuSeconds().isPresent()
                ? Optional.of(f.clientCpuSeconds().getAsDouble()) : Optional.empty()).orElse(0.0);
        OptionalDouble cpuPerGb = d1.map(r -> r.medianClientCpuSeconds().isPresent()
                ? OptionalDouble.of(Math.max(0.001, r.medianClientCpuSeconds().getAsDouble() - fixedCpu)
                / (r.bytes() / 1e9))
                : OptionalDouble.empty()).orElse(OptionalDouble.empty());
        // Sluice's own copy time when it reports one (start-up excluded), else the process's wall time.
        OptionalDouble d1Mbps = d1.map(r -> OptionalDouble.of(r.bytes() / 1e6
                / r.medianReportedCopySeconds().orElse(r.medianSeconds()))).orElse(OptionalDouble.empty());
        return Optional.of(new ScalingModel(sourceScanMbps, limit.get().megabytesPerSecond(), cpuPerGb, d1Mbps,
                (double) lineitem.binaryBytes() / lineitem.rows(), sluiceFixedCost));
    }

    /** Modelled single-stream rate: the slowest of the three per-stream rates. */
    double singleStreamMbps() {
        double r = Math.min(sourceScanMbps, ingestMbps);
        if (sluiceCpuSecondsPerGb.isPresent() && sluiceCpuSecondsPerGb.getAsDouble() > 0) {
            r = Math.min(r, 1000 / sluiceCpuSecondsPerGb.getAsDouble());
        }
        return r;
    }

    double sf100Gigabytes() {
        return SF100_LINEITEM_ROWS * bytesPerRow / 1e9;
    }

    String render() {
        StringBuilder md = new StringBuilder("## Scaling model (inputs measured in this run, the rest modelled)\n\n");
        md.append("| input | value | source |\n|---|--:|---|\n");
        md.append(row("source scan rate, one stream (`COPY TO STDOUT`, discarded)", mbps(sourceScanMbps), "measured"));
        md.append(row("target ingest rate, one stream (ingest limit, LOGGED)", mbps(ingestMbps), "measured"));
        md.append(row("Sluice run with nothing to copy (JVM start-up, planning, shutdown)",
                sluiceFixedCost.map(f -> String.format(Locale.ROOT, "%.2f s wall, %.2f s CPU", f.wallSeconds(),
                        f.clientCpuSeconds().orElse(Double.NaN))).orElse("–"), "measured"));
        md.append(row("Sluice client CPU per GB moved (ctid, degree 1, minus the run with nothing to copy)",
                sluiceCpuSecondsPerGb.isPresent() ? String.format(Locale.ROOT, "%.2f s/GB",
                        sluiceCpuSecondsPerGb.getAsDouble()) : "–", "measured"));
        md.append(row("Sluice degree-1 copy rate", sluiceDegree1Mbps.isPresent() ? mbps(sluiceDegree1Mbps.getAsDouble())
                : "–", "measured"));
        md.append(row("single-stream rate r1 = min(scan, ingest, 1000 / CPU per GB)", mbps(singleStreamMbps()),
                "modelled"));
        double gb = sf100Gigabytes();
        md.append(row("TPC-H SF100 lineitem as binary COPY", String.format(Locale.ROOT, "%.0f GB", gb),
                "extrapolated from this run's bytes per row"));
        double ftD1 = gb * 1000 / FASTTRANSFER_DEGREE1_SECONDS;
        double ftCeiling = gb * 1000 / FASTTRANSFER_DEGREE128_SECONDS;
        md.append(row("FastTransfer degree 1 / degree 128 on 128 vCPU", String.format(Locale.ROOT,
                "%.0f s / %.0f s (%.0f / %.0f MB/s)", FASTTRANSFER_DEGREE1_SECONDS, FASTTRANSFER_DEGREE128_SECONDS,
                ftD1, ftCeiling), "published; MB/s assume the same bytes"));
        md.append('\n');

        double r1 = singleStreamMbps();
        double cpuCeiling = FASTTRANSFER_VCPUS * ingestMbps;
        md.append("Modelled SF100 lineitem time by degree on a 128-vCPU source and target, `T(d) = min(d × r1, "
                + "ceiling)`: with the target CPU-bound (ceiling 128 × ingest rate, no contention: optimistic) and "
                + "with the I/O ceiling FastTransfer's degree-128 point implies. Degree to saturate = ceiling / r1.\n\n");
        md.append("| degree | modelled s, CPU-bound | modelled s, FastTransfer's ceiling | FastTransfer published s |\n");
        md.append("|--:|--:|--:|--:|\n");
        for (int d : degrees()) {
            md.append("| ").append(d).append(" | ").append(seconds(gb, Math.min(d * r1, cpuCeiling))).append(" | ")
                    .append(seconds(gb, Math.min(d * r1, ftCeiling))).append(" | ")
                    .append(d == 1 ? "878" : d == 128 ? "67" : "").append(" |\n");
        }
        md.append(String.format(Locale.ROOT, "%nDegree that saturates: %.0f (CPU-bound ceiling), %.0f (FastTransfer's "
                + "ceiling).%n%n", Math.ceil(cpuCeiling / r1), Math.ceil(ftCeiling / r1)));
        return md.toString();
    }

    private static List<Integer> degrees() {
        List<Integer> d = new ArrayList<>();
        for (int i = 1; i <= 128; i *= 2) {
            d.add(i);
        }
        return d;
    }

    private static String row(String input, String value, String source) {
        return "| " + input + " | " + value + " | " + source + " |\n";
    }

    private static String mbps(double v) {
        return String.format(Locale.ROOT, "%.0f MB/s", v);
    }

    private static String seconds(double gigabytes, double mbps) {
        return String.format(Locale.ROOT, "%.0f", gigabytes * 1000 / mbps);
    }
}
