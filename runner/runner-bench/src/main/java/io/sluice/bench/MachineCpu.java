package io.sluice.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The whole machine's CPU time from {@code /proc/stat} (all processes, all cores): servers, client and everything
 * else. Zero where there is no {@code /proc}.
 */
final class MachineCpu {
    /** USER_HZ: 100 on every Linux the kernel ABI allows user space to see. */
    private static final double TICKS_PER_SECOND = 100.0;
    private static final Path PROC_STAT = Path.of("/proc/stat");

    private MachineCpu() {
    }

    /** Busy CPU seconds since boot: user, nice, system, irq, softirq and steal; not idle or iowait. */
    static double busySeconds() {
        try {
            for (String line : Files.readAllLines(PROC_STAT)) {
                if (line.startsWith("cpu ")) {
                    String[] f = line.trim().split("\\s+");
                    long busy = 0;
                    for (int i : new int[] {1, 2, 3, 6, 7, 8}) {
                        busy += i < f.length ? Long.parseLong(f[i]) : 0;
                    }
                    return busy / TICKS_PER_SECOND;
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: machine CPU is reported as 0
        }
        return 0;
    }

    /**
     * CPU seconds of this process's children that it has waited for ({@code cutime + cstime}): the fallback for a
     * child's CPU when {@code /usr/bin/time} is missing.
     */
    static double waitedChildrenSeconds() {
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
            // after "pid (comm) ": state is field 3, so cutime (16) and cstime (17) are indexes 13 and 14
            return (Long.parseLong(f[13]) + Long.parseLong(f[14])) / TICKS_PER_SECOND;
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }
}
