package io.sluice.bench;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Runs the scenarios round-robin (run 1 of every scenario, then run 2, ...), so drift on a shared machine spreads
 * over all of them instead of favouring whichever ran first. Before every run the target table is truncated and
 * both servers checkpoint; after it the target's row count must equal the source's, or the run is a harness
 * failure.
 */
final class BenchRunner {
    private final PgEndpoint source;
    private final PgEndpoint target;
    private final TpchData data;
    private final int runs;
    private final BenchLog log;
    private boolean wrongRowCount;

    BenchRunner(PgEndpoint source, PgEndpoint target, TpchData data, int runs, BenchLog log) {
        this.source = requireNonNull(source, "source is null");
        this.target = requireNonNull(target, "target is null");
        this.data = requireNonNull(data, "data is null");
        this.runs = runs;
        this.log = requireNonNull(log, "log is null");
        if (runs < 1) {
            throw new IllegalArgumentException("runs must be at least 1: " + runs);
        }
    }

    /** True when some run left a wrong row count: the figures of that scenario are void. */
    boolean sawWrongRowCount() {
        return wrongRowCount;
    }

    List<ScenarioResult> run(List<Scenario> scenarios) throws InterruptedException {
        Map<Scenario, List<RunMeasurement>> measured = new LinkedHashMap<>();
        Map<Scenario, ScenarioResult> finished = new LinkedHashMap<>();
        for (Scenario scenario : scenarios) {
            Optional<String> skip = scenario.skipReason();
            if (skip.isPresent()) {
                log.step("skip " + scenario.info().id() + ": " + skip.get());
                finished.put(scenario, ScenarioResult.skipped(scenario.info(), skip.get(), rows(scenario),
                        bytes(scenario)));
            } else {
                try {
                    scenario.prepare();
                    measured.put(scenario, new ArrayList<>());
                } catch (ScenarioFailure e) {
                    log.loud("FAILED " + scenario.info().id() + " (preparing): " + e.getMessage());
                    finished.put(scenario, new ScenarioResult(scenario.info(), ScenarioResult.Status.FAILED,
                            Optional.of(e.getMessage()), List.of(), rows(scenario), bytes(scenario)));
                }
            }
        }
        for (int run = 1; run <= runs; run++) {
            for (Scenario scenario : scenarios) {
                if (finished.containsKey(scenario)) {
                    continue;
                }
                Optional<String> failure = runOnce(scenario, run, measured.get(scenario));
                if (failure.isPresent()) {
                    finished.put(scenario, new ScenarioResult(scenario.info(), ScenarioResult.Status.FAILED, failure,
                            measured.get(scenario), rows(scenario), bytes(scenario)));
                }
            }
        }
        try {
            // Leave the target empty, as found: the tables these scenarios filled.
            truncate(scenarios.stream().map(s -> s.info().target()).distinct().toArray(BenchTarget[]::new));
        } catch (SQLException e) {
            log.step("could not empty the target tables: " + e.getMessage());
        }
        List<ScenarioResult> results = new ArrayList<>();
        for (Scenario scenario : scenarios) {
            results.add(finished.containsKey(scenario) ? finished.get(scenario)
                    : new ScenarioResult(scenario.info(), ScenarioResult.Status.OK, Optional.empty(),
                    measured.get(scenario), rows(scenario), bytes(scenario)));
        }
        return results;
    }

    /** Empty on success (the measurement is added), else the failure message. */
    private Optional<String> runOnce(Scenario scenario, int run, List<RunMeasurement> into)
            throws InterruptedException {
        ScenarioInfo info = scenario.info();
        try {
            truncate(info.target());
            prepare(info.target());
            checkpoint(source);
            checkpoint(target);
        } catch (SQLException e) {
            return Optional.of("could not prepare the target: " + e.getMessage());
        }
        log.step("run " + run + "/" + runs + " " + info.id());
        double cpuBefore = MachineCpu.busySeconds();
        ToolRun tool;
        try {
            tool = scenario.run(run);
        } catch (ScenarioFailure e) {
            log.loud("FAILED " + info.id() + ": " + e.getMessage());
            return Optional.of(e.getMessage());
        } catch (RuntimeException e) {
            log.loud("FAILED " + info.id() + " (harness error): " + e);
            return Optional.of("harness error: " + e);
        }
        double machineCpu = MachineCpu.busySeconds() - cpuBefore;
        long expected = rows(scenario);
        long found;
        try {
            found = count(info.target());
        } catch (SQLException e) {
            return Optional.of("could not count the target's rows: " + e.getMessage());
        }
        if (found != expected) {
            wrongRowCount = true;
            String message = "WRONG ROW COUNT after run " + run + ": the target has " + found + " rows, the source "
                    + expected;
            log.loud(info.id() + ": " + message);
            return Optional.of(message);
        }
        into.add(new RunMeasurement(tool, machineCpu, found));
        log.step(String.format("  %.2f s, %.0f MB/s, client CPU %s, machine CPU %.1f s", tool.wallSeconds(),
                bytes(scenario) / 1e6 / tool.wallSeconds(),
                tool.clientCpuSeconds().isPresent() ? String.format("%.2f s", tool.clientCpuSeconds().getAsDouble())
                        : "-", machineCpu));
        return Optional.empty();
    }

    private long rows(Scenario scenario) {
        return scenario.info().target().data(data).rows();
    }

    private long bytes(Scenario scenario) {
        return scenario.info().target().data(data).binaryBytes();
    }

    private void truncate(BenchTarget... targets) throws SQLException {
        try (Connection c = target.connect(); Statement s = c.createStatement()) {
            for (BenchTarget t : targets) {
                s.execute("TRUNCATE " + String.join(", ", t.qualifiedTables()));
            }
        }
    }

    /**
     * The emptied table as the scenario expects it, untimed. A prefilled table is filled by the server reading the
     * dumped binary COPY file itself.
     */
    private void prepare(BenchTarget t) throws SQLException {
        try (Connection c = target.connect(); Statement s = c.createStatement()) {
            switch (t.preparation()) {
                case EMPTY -> { }
                case PREFILLED -> {
                    s.execute("COPY " + t.qualifiedTable() + " FROM '" + t.data(data).binaryFile().toAbsolutePath()
                            .toString().replace("'", "''") + "' (FORMAT binary)");
                    s.execute("VACUUM ANALYZE " + t.qualifiedTable());
                }
                case EMPTY_WITH_INDEXES -> {
                    for (String sql : BenchTarget.createIndexSql(t.qualifiedTable(), true)) {
                        s.execute(sql);
                    }
                }
                case EMPTY_WITHOUT_INDEXES -> {
                    for (BenchTarget.SecondaryIndex index : BenchTarget.SECONDARY_INDEXES) {
                        s.execute("DROP INDEX IF EXISTS " + TpchData.SCHEMA + "." + index.name());
                    }
                }
            }
        }
    }

    /** So no run pays for the previous run's dirty buffers; needs superuser or pg_checkpoint, else skipped. */
    private static void checkpoint(PgEndpoint server) throws SQLException {
        try (Connection c = server.connect(); Statement s = c.createStatement()) {
            s.execute("CHECKPOINT");
        } catch (SQLException e) {
            if (!"42501".equals(e.getSQLState())) { // insufficient_privilege: a user's server, leave it be
                throw e;
            }
        }
    }

    private long count(BenchTarget t) throws SQLException {
        long rows = 0;
        try (Connection c = target.connect(); Statement s = c.createStatement()) {
            for (String table : t.qualifiedTables()) {
                try (ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
                    rs.next();
                    rows += rs.getLong(1);
                }
            }
        }
        return rows;
    }
}
