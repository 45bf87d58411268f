package io.sluice.spi;

import io.sluice.spi.connector.Connector;
import io.sluice.spi.connector.Problem;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorCode;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.error.SpiCode;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ErrorCodeTest {
    @Test
    void anErrorCodeIsReportedByItsName() {
        ConnectorException e = new ConnectorException(ErrorKind.DATA, SpiCode.SPI003, "message", "fix");
        assertEquals("SPI003", e.code());
        assertEquals(ErrorKind.DATA, e.kind());
        assertEquals("fix", e.fix().orElseThrow());
        assertEquals("SPI004", Problem.error(SpiCode.SPI004, "table", "message", null).code());
        assertEquals("SPI004", Problem.warning(SpiCode.SPI004, "table", "message", null).code());
    }

    @Test
    void aCodeIsRequired() {
        assertThrows(NullPointerException.class,
                () -> new ConnectorException(ErrorKind.FAILED, (ErrorCode) null, "message", null));
        assertThrows(NullPointerException.class, () -> Problem.error((ErrorCode) null, "table", "message", null));
    }

    @Test
    void aConnectorWithoutRolesOffersNeitherSide() {
        Connector connector = () -> {
        };
        assertTrue(connector.sources().isEmpty(), "no source unless the connector says so");
        assertTrue(connector.targets().isEmpty(), "no target unless the connector says so");
    }
}
