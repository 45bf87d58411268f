package io.sluice.bench;

import java.util.List;
import java.util.Locale;

import static java.util.Objects.requireNonNull;

/** Every run's raw figures, one line each, for tracking regressions across harness runs. */
final class RunsCsv {
    private final List<ScenarioResult> results;

    RunsCsv(List<ScenarioResult> results) {
        this.results = List.copyOf(requireNonNull(results, "results is null"));
    }

    String render() {
        StringBuilder csv = new StringBuilder(
                "scenario,role,tool,degree,status,run,wall_s,client_cpu_s,peak_rss_kb,machine_cpu_s,rows,bytes,reported_copy_s\n");
        for (ScenarioResult r : results) {
            ScenarioInfo i = r.info();
            String prefix = String.join(",", i.id(), i.role().name().toLowerCase(Locale.ROOT),
                    "\"" + i.tool().replace("\"", "\"\"") + "\"", String.valueOf(i.degree()),
                    r.status().name().toLowerCase(Locale.ROOT));
            if (r.runs().isEmpty()) {
                csv.append(prefix).append(",,,,,,,").append(r.bytes()).append(",\n");
            }
            for (int n = 0; n < r.runs().size(); n++) {
                RunMeasurement m = r.runs().get(n);
                csv.append(prefix).append(',').append(n + 1).append(',')
                        .append(String.format(Locale.ROOT, "%.3f", m.wallSeconds())).append(',')
                        .append(m.tool().clientCpuSeconds().isPresent()
                                ? String.format(Locale.ROOT, "%.2f", m.tool().clientCpuSeconds().getAsDouble()) : "")
                        .append(',')
                        .append(m.tool().peakRssKb().isPresent() ? String.valueOf(m.tool().peakRssKb().getAsLong()) : "")
                        .append(',').append(String.format(Locale.ROOT, "%.2f", m.machineCpuSeconds())).append(',')
                        .append(m.rows()).append(',').append(r.bytes()).append(',')
                        .append(m.tool().reportedCopySeconds().isPresent()
                                ? String.format(Locale.ROOT, "%.3f", m.tool().reportedCopySeconds().getAsDouble()) : "")
                        .append('\n');
            }
        }
        return csv.toString();
    }
}
