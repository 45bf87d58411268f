package io.sluice.core.plan;

import io.sluice.spi.connector.Connector;
import io.sluice.spi.connector.Options;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.error.SpiCode;
import io.sluice.spi.read.Source;
import io.sluice.spi.write.Target;

/**
 * A stream's source or target opened on its connection. Lint refuses a connection whose type cannot play the part
 * (SPEC015); a spec that reaches planning without lint gets the SPI's code here.
 */
public final class Endpoints {
    private Endpoints() {
    }

    /** The source {@code options} name on {@code connector}, or SPI001 when it cannot read. */
    public static Source source(Connector connector, Options options) throws ConnectorException {
        return connector.sources().orElseThrow(() -> new ConnectorException(ErrorKind.INVALID_SPEC, SpiCode.SPI001,
                "this connection cannot be a source", "use a connection whose type can read")).open(options);
    }

    /** The target {@code options} name on {@code connector}, or SPI002 when it cannot write. */
    public static Target target(Connector connector, Options options) throws ConnectorException {
        return connector.targets().orElseThrow(() -> new ConnectorException(ErrorKind.INVALID_SPEC, SpiCode.SPI002,
                "this connection cannot be a target", "use a connection whose type can write, such as postgres"))
                .open(options);
    }
}
