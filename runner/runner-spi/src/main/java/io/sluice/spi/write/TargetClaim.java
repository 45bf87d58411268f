package io.sluice.spi.write;

/**
 * A run's ownership of its target, held from before the target is prepared until the stream ends, so two runs never
 * load one table at once (an overlapping scheduler retry, say). Closing it lets the next run in.
 */
public interface TargetClaim extends AutoCloseable {
    /** For targets that cannot be claimed: nothing is held. */
    TargetClaim NONE = () -> {
    };

    @Override
    void close();
}
