package io.sluice.spi.read;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/** The distribution a stream asks for: method, and for keyed methods the key column or SQL expression. */
public record Distribution(DistributionMethod method, Optional<String> key, Optional<String> valuesQuery) {
    public Distribution {
        requireNonNull(method, "method is null");
        requireNonNull(key, "key is null");
        requireNonNull(valuesQuery, "valuesQuery is null");
    }

    public static Distribution none() {
        return new Distribution(DistributionMethod.NONE, Optional.empty(), Optional.empty());
    }
}
