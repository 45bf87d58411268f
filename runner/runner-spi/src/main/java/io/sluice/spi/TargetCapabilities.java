package io.sluice.spi;

/**
 * What a connector's targets can do, known without connecting; declared once by the factory
 * ({@link ConnectorFactory#targetCapabilities()}), the only place the core asks.
 *
 * @param replacesInOneTransaction whether {@link Target#openReplacingTransaction} works: the runner then loads a
 *        truncate stream that one worker writes in one transaction, so a failure leaves the target as it was and the
 *        target may skip work for rows nobody else can see before the commit (PostgreSQL: no WAL on
 *        {@code wal_level=minimal}, rows written frozen)
 */
public record TargetCapabilities(boolean replacesInOneTransaction) {
    /** A target that writes each partition in a transaction of its own, and nothing more. */
    public static final TargetCapabilities BASIC = new TargetCapabilities(false);
}
