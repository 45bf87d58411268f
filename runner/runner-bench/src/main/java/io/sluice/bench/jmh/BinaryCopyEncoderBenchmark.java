package io.sluice.bench.jmh;

import io.sluice.spi.data.CopySink;
import io.sluice.spi.error.ConnectorException;
import io.sluice.toolkit.copy.BinaryCopyEncoder;

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

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * {@link BinaryCopyEncoder} per type family: rows of {@value #FIELDS} fields of one family, encoded into the reused
 * 64 KiB buffer; the sink only counts bytes, so the score is the encoder's own cost in values per second.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class BinaryCopyEncoderBenchmark {
    static final int ROWS = 1024;
    static final int FIELDS = 16;
    private static final int VALUES = 4096;

    @Param({"bool", "int4", "int8", "float8", "text-short-ascii", "text-long-ascii", "text-utf8", "bytes16", "null"})
    String family;

    private BinaryCopyEncoder encoder;
    private long[] longs;
    private double[] doubles;
    private String[] strings;
    private byte[][] bytes;
    private long sunk;
    private int next;
    /** The family as a small int: a tableswitch in the loop costs every family the same, a String switch not. */
    private int kind;

    @Setup
    public void setUp() {
        SplittableRandom random = new SplittableRandom(7);
        longs = new long[VALUES];
        doubles = new double[VALUES];
        strings = new String[VALUES];
        bytes = new byte[VALUES][16];
        for (int i = 0; i < VALUES; i++) {
            longs[i] = random.nextLong();
            doubles[i] = random.nextDouble() * 1e6;
            strings[i] = switch (family) {
                case "text-short-ascii" -> "SHIP-" + random.nextInt(1000); // like l_shipmode, l_returnflag
                case "text-long-ascii" -> "carefully final deposits detect slyly agai " + random.nextInt(); // l_comment
                case "text-utf8" -> "Größe " + random.nextInt(1000) + " – Ünïcödé ✓";
                default -> "";
            };
            random.nextBytes(bytes[i]);
        }
        kind = java.util.List.of("bool", "int4", "int8", "float8", "bytes16", "null").indexOf(family); // -1: text
        CopySink sink = (buffer, offset, length) -> sunk += length;
        encoder = new BinaryCopyEncoder(sink);
    }

    @Benchmark
    @OperationsPerInvocation(ROWS * FIELDS)
    public long encode() throws ConnectorException {
        BinaryCopyEncoder e = encoder;
        for (int r = 0; r < ROWS; r++) {
            e.startRow(FIELDS);
            for (int f = 0; f < FIELDS; f++) {
                int i = next++ & (VALUES - 1);
                switch (kind) {
                    case 0 -> e.writeBoolean((longs[i] & 1) == 0);
                    case 1 -> e.writeInt4((int) longs[i]);
                    case 2 -> e.writeInt8(longs[i]);
                    case 3 -> e.writeFloat8(doubles[i]);
                    case 4 -> e.writeBytes(bytes[i], 0, 16);
                    case 5 -> e.writeNull();
                    default -> e.writeText(strings[i]);
                }
            }
        }
        return sunk;
    }
}
