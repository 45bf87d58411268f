package io.sluice.spi;

/** One configured connection. Thread-safe: the runner may open sources and targets from several threads. */
public interface Connector extends AutoCloseable {
    /** The source side of a stream, from the stream's validated {@code source:} options. */
    default Source source(Options sourceOptions) throws ConnectorException {
        throw new ConnectorException(ErrorKind.INVALID_SPEC, SpiCode.SPI001, "this connection cannot be a source",
                "use a connection whose type can read");
    }

    /** The target side of a stream, from the stream's validated {@code target:} options. */
    default Target target(Options targetOptions) throws ConnectorException {
        throw new ConnectorException(ErrorKind.INVALID_SPEC, SpiCode.SPI002, "this connection cannot be a target",
                "use a connection whose type can write, such as postgres");
    }

    /**
     * Lines to show a person about this connection, e.g. how to reach an embedded server with psql. Must not contain
     * secrets.
     */
    default java.util.List<String> notices() {
        return java.util.List.of();
    }

    /**
     * How many more connections this connection's server accepts now (its limit, minus what is reserved and in use),
     * when it can tell: the runner refuses a run that would open more. Empty when unknown.
     */
    default java.util.OptionalInt freeConnections() throws ConnectorException {
        return java.util.OptionalInt.empty();
    }

    @Override
    void close();
}
