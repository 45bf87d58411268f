package io.sluice.core.run;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The progress line of a many-table run speaks of the streams copying now and of the whole run's bytes. */
class RunProgressTest {
    @Test
    void acrossStreamsTheLineNamesOnlyTheRunningOnesAndFinishedEstimatesGiveWayToWhatWasCopied() {
        RunProgress progress = new RunProgress();
        progress.acrossStreams(300, 300L * 1_000_000); // 300 tables estimated at 1 MB each
        for (int i = 0; i < 290; i++) {
            String name = "shop.t" + i;
            progress.startStream(name, 1, 1_000_000);
            progress.addBytes(1_000); // each held 1 kB
            progress.partitionCommitted(10);
            progress.finishStream(name, 1_000_000, 1_000);
        }
        for (int i = 290; i < 295; i++) {
            progress.startStream("shop.t" + i, 1, 1_000_000);
        }
        RunProgress.Snapshot now = progress.snapshot();
        assertEquals("shop.t290, shop.t291, shop.t292 +2 more", now.stream());
        assertEquals(300, now.partitionsTotal());
        assertEquals(290_000 + 10L * 1_000_000, now.estimatedBytes(), "done streams count what they copied");
        assertTrue(now.etaSeconds() == -1 || now.etaSeconds() >= 0, "an estimate, or none");
    }
}
