package io.sluice.bench.jmh;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * The PostgreSQL reader's pass-through loop: {@code readFromCopy()} hands over one row per call as a fresh
 * {@code byte[]}; rows are packed into a reused 64 KiB buffer that goes to {@code writeToCopy} when full (as
 * {@code CopyOutReader} does), against the naive one {@code writeToCopy} per row. Scores are rows per second of
 * client CPU; the row sizes cover narrow rows, TPC-H lineitem (about 220 bytes in binary COPY) and wide rows.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class CopyPassThroughBenchmark {
    static final int ROWS = 4096;
    static final int PACK_BYTES = 1 << 16;

    /** Mean row size in bytes; actual sizes vary ±50 % around it. */
    @Param({"80", "220", "1200"})
    int rowBytes;

    private byte[][] rows;
    private byte[] packBuffer;
    private SimulatedCopyIn copyIn;

    @Setup
    public void setUp() {
        SplittableRandom random = new SplittableRandom(42);
        rows = new byte[ROWS][];
        for (int i = 0; i < ROWS; i++) {
            int size = Math.max(8, rowBytes / 2 + random.nextInt(rowBytes + 1));
            rows[i] = new byte[size];
            random.nextBytes(rows[i]);
        }
        packBuffer = new byte[PACK_BYTES];
        copyIn = new SimulatedCopyIn();
    }

    /** What readFromCopy costs the client: one new array per row. */
    private byte[] readFromCopy(int i) {
        byte[] row = rows[i];
        return Arrays.copyOf(row, row.length);
    }

    @Benchmark
    @OperationsPerInvocation(ROWS)
    public long packedInto64KiB() {
        byte[] buffer = packBuffer;
        int filled = 0;
        for (int i = 0; i < ROWS; i++) {
            byte[] row = readFromCopy(i);
            if (filled + row.length > buffer.length) {
                if (filled > 0) {
                    copyIn.writeToCopy(buffer, 0, filled);
                    filled = 0;
                }
                if (row.length >= buffer.length) {
                    copyIn.writeToCopy(row, 0, row.length);
                    continue;
                }
            }
            System.arraycopy(row, 0, buffer, filled, row.length);
            filled += row.length;
        }
        if (filled > 0) {
            copyIn.writeToCopy(buffer, 0, filled);
        }
        return copyIn.bytesFlushed();
    }

    @Benchmark
    @OperationsPerInvocation(ROWS)
    public long writeToCopyPerRow() {
        for (int i = 0; i < ROWS; i++) {
            byte[] row = readFromCopy(i);
            copyIn.writeToCopy(row, 0, row.length);
        }
        return copyIn.bytesFlushed();
    }
}
