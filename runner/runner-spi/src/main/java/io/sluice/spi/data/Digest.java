package io.sluice.spi.data;

import java.math.BigInteger;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * What verification compares: a row count and, for {@code verify: checksum}, an order-independent checksum (the sum
 * of a 64-bit hash of each row's text). Both are additive, so partitions add up to a stream, and the rows a run
 * appended are the target's digest after minus before.
 */
public record Digest(long rows, Optional<BigInteger> checksum) {
    public enum Level { COUNT, CHECKSUM }

    public Digest {
        requireNonNull(checksum, "checksum is null");
    }

    public static Digest zero(Level level) {
        return new Digest(0, level == Level.CHECKSUM ? Optional.of(BigInteger.ZERO) : Optional.empty());
    }

    public Digest plus(Digest other) {
        return new Digest(rows + other.rows, checksum.flatMap(a -> other.checksum.map(a::add)));
    }

    public Digest minus(Digest other) {
        return new Digest(rows - other.rows, checksum.flatMap(a -> other.checksum.map(a::subtract)));
    }
}
