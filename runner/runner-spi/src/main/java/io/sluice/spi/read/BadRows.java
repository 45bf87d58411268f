package io.sluice.spi.read;

import io.sluice.spi.data.RejectedRow;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.error.SpiCode;

/**
 * How a transfer treats rows that cannot be loaded ({@code rejects:}, {@code nul-bytes:}). The runner passes one to
 * {@link PartitionReader#transferTo(CopySink, BadRows)}; a reader that can tell a bad value before it is sent sets
 * its row aside here instead of failing, and keeps reading.
 */
public interface BadRows {
    /** Today's behaviour: a bad value fails its partition; NUL bytes are left for the target to refuse. */
    BadRows FAIL = new BadRows() {
        @Override
        public boolean setsAside() {
            return false;
        }

        @Override
        public NulBytes nulBytes() {
            return NulBytes.FAIL;
        }

        @Override
        public void reject(RejectedRow row) throws ConnectorException {
            throw new ConnectorException(ErrorKind.FAILED, SpiCode.SPI011, "this stream sets no rows aside",
                    "add rejects: to the stream");
        }
    };

    /** {@code nul-bytes:}: what a NUL character (U+0000, which PostgreSQL text cannot hold) in a text value gets. */
    enum NulBytes {
        /** Sent as it is, so the target refuses the partition (no rejects: and no nul-bytes: set). */
        FAIL,
        /** Removed from the value; the rest of the value loads. */
        STRIP,
        /** The row is set aside (the default with rejects:). */
        REJECT
    }

    /** Whether a row with a bad value is set aside ({@link #reject}); else the value fails its partition. */
    boolean setsAside();

    NulBytes nulBytes();

    /** Sets {@code row} aside; it commits with the partition or not at all. Fails once there are too many. */
    void reject(RejectedRow row) throws ConnectorException;
}
