package io.sluice.core.run;

import io.sluice.core.SluiceException;
import io.sluice.core.run.report.PartitionReport;
import io.sluice.core.run.report.RunReport;
import io.sluice.core.run.report.StreamReport;
import io.sluice.core.run.report.Verification;
import io.sluice.spi.error.ErrorKind;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The run's exit code tells the truth: 3 and 4 say nothing was written, so a run that wrote rows never ends with them. */
class RunReportTest {
    private static final SluiceException MISSING = new SluiceException(ErrorKind.PREFLIGHT, "PG203",
            "table shop.b does not exist", "check the name");

    @Test
    void aPreflightFailureAfterAnotherStreamCommittedRowsExitsOne() {
        StreamReport done = stream("shop.a", StreamReport.State.DONE, 1, Optional.empty());
        StreamReport missing = stream("shop.b", StreamReport.State.FAILED, 0, Optional.of(MISSING));
        assertEquals(1, report(List.of(done, missing)).exitCode(), "rows of shop.a were committed");
        assertEquals(4, report(List.of(missing)).exitCode(), "nothing was written: 4 stays");
        assertEquals(0, report(List.of(done)).exitCode());
    }

    private static RunReport report(List<StreamReport> streams) {
        Optional<SluiceException> error = streams.stream().flatMap(s -> s.error().stream()).findFirst();
        return new RunReport("run-1", "spec", "checksum", Instant.EPOCH, Instant.EPOCH, streams, false, error);
    }

    private static StreamReport stream(String name, StreamReport.State state, int donePartitions,
                                       Optional<SluiceException> error) {
        List<PartitionReport> partitions = java.util.stream.IntStream.range(0, donePartitions)
                .mapToObj(i -> new PartitionReport(i, "p" + i, "true", PartitionReport.State.DONE, 10, 10, 100, 1,
                        Duration.ZERO, Optional.empty())).toList();
        return new StreamReport(name, state, 1, 10L * donePartitions, 100, Duration.ZERO, partitions,
                Math.max(1, donePartitions), 0, error, Verification.notRequested(), 0, 0);
    }
}
