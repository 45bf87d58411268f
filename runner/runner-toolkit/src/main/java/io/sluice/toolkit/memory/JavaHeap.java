package io.sluice.toolkit.memory;

/**
 * What a run tells its user when a value or a buffer does not fit in the JVM's heap: the heap's size and the setting
 * that gives it more. Rows are streamed, so this happens only where a whole value must be held (a row that
 * {@code rejects:} may send again, a driver that returns a value as one object) or when degree x value is more than
 * the heap.
 */
public final class JavaHeap {
    private static final long MIB = 1L << 20;

    private JavaHeap() {
    }

    /** The most the heap may grow to ({@code -Xmx}, or the JVM's default of a quarter of the machine's memory). */
    public static long maxBytes() {
        try { // the flag -Xmx sets: Runtime.maxMemory() leaves out a survivor space (62 MB under -Xmx64m)
            return Long.parseLong(java.lang.management.ManagementFactory.getPlatformMXBean(
                    com.sun.management.HotSpotDiagnosticMXBean.class).getVMOption("MaxHeapSize").getValue());
        } catch (RuntimeException | LinkageError e) {
            return Runtime.getRuntime().maxMemory(); // a runtime without jdk.management, or another JVM
        }
    }

    /** e.g. {@code 360 MB}: binary megabytes, rounded up, as {@code -Xmx} counts them. */
    public static String megabytes(long bytes) {
        return ((bytes + MIB - 1) / MIB) + " MB";
    }

    /** The heap to suggest for values of {@code valueBytes}: today's and room for two more, in 256 MB steps. */
    public static long suggestedBytes(long valueBytes) {
        long step = 256 * MIB;
        long wanted = Math.max(maxBytes() * 2, maxBytes() + 2 * Math.max(0, valueBytes));
        return (wanted + step - 1) / step * step;
    }

    /** The fix for a heap too small for values of {@code valueBytes}: which option, where. */
    public static String fix(long valueBytes) {
        String xmx = "-Xmx" + suggestedBytes(valueBytes) / MIB + "m";
        return "give the JVM more heap, e.g. " + xmx + " (with the sluice launcher: SLUICE_JAVA_OPTS='-XX:+UseSerialGC "
                + xmx + "', which replaces its default options; with java -jar: java " + xmx + " -jar ...), or lower "
                + "degree: or max-parallel-streams: so fewer such values are held at once; done partitions stay done, "
                + "so sluice run --resume continues";
    }
}
