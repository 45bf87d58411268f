package io.sluice.connector.duckdb;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.read.BadRows;
import io.sluice.toolkit.copy.BinaryCopyEncoder;

import org.duckdb.DuckDBReadableVector;

import java.nio.charset.StandardCharsets;

import static java.util.Objects.requireNonNull;

/** Encoders whose carrier is a VARCHAR: text types, json/jsonb, enums, bytea (as hex) and uuid. */
final class TextEncoders {
    private static final int JSONB_VERSION = 1;

    private TextEncoders() {
    }

    /**
     * Text into text, varchar(n), char(n), json, jsonb or a type whose binary input is its text (enum labels).
     * varchar(n)/char(n) lengths are checked here so the error names the stream-side column and file.
     */
    static final class TextEncoder extends VectorEncoder {
        private final int maxChars;
        private final boolean blankPadded;
        private final boolean jsonb;
        private final ColumnOrigin origin;
        private final PgType target;
        private final StringCells strings; // null: the fast path is off, values come from getString()
        /** JSON of a value that may hold a NaN or infinite float ({@link JsonNonFinite}): read as a String. */
        private final boolean quoteNonFinite;
        private boolean fromCells;
        private BadRows.NulBytes nulBytes = BadRows.NulBytes.FAIL;

        TextEncoder(int index, PgType target, ColumnOrigin origin) {
            this(index, target, origin, false);
        }

        TextEncoder(int index, PgType target, ColumnOrigin origin, boolean quoteNonFinite) {
            super(index);
            this.quoteNonFinite = quoteNonFinite;
            this.target = requireNonNull(target, "target is null");
            this.origin = requireNonNull(origin, "origin is null");
            this.maxChars = target.base() == PgType.Base.VARCHAR || target.base() == PgType.Base.BPCHAR
                    ? target.length() : -1;
            this.blankPadded = target.base() == PgType.Base.BPCHAR;
            this.jsonb = target.base() == PgType.Base.JSONB;
            this.strings = StringCells.forReader().orElse(null);
        }

        @Override
        protected void bound(DuckDBReadableVector vector) {
            fromCells = !quoteNonFinite && strings != null && strings.bind(vector);
        }

        /** {@code nul-bytes:}: FAIL leaves NULs to the server (no scan); STRIP and REJECT look for them here. */
        void nulBytes(BadRows.NulBytes policy) {
            this.nulBytes = requireNonNull(policy, "policy is null");
        }

        /** Whether the current chunk is read from the string cells (for tests). */
        boolean readsCells() {
            return fromCells;
        }

        /**
         * Bytes go from DuckDB's vector into the COPY buffer without a String (see {@link StringCells}) on the
         * duckdb_jdbc that was tested for it, else through {@code getString()}.
         */
        @Override
        public void encode(int row, BinaryCopyEncoder out) throws ConnectorException {
            if (!fromCells) {
                encodeString(row, out);
                return;
            }
            if (cells.isNull(row)) {
                out.writeNull();
                return;
            }
            int length = strings.length(row);
            int at = out.reserveField((jsonb ? 1 : 0) + length);
            if (jsonb) {
                out.buffer()[at++] = JSONB_VERSION;
            }
            strings.copy(row, length, out.buffer(), at);
            if (nulBytes != BadRows.NulBytes.FAIL) {
                length = nuls(out, at, length);
            }
            checkLength(out.buffer(), at, length);
        }

        /** Strips or refuses the NUL bytes of the value at {@code at}; returns its length after. */
        private int nuls(BinaryCopyEncoder out, int at, int length) throws ConnectorException {
            byte[] bytes = out.buffer();
            int end = at + length;
            int i = at;
            while (i < end && bytes[i] != 0) {
                i++;
            }
            if (i == end) {
                return length;
            }
            if (nulBytes == BadRows.NulBytes.REJECT) {
                throw DataErrors.nulByte(origin, new String(bytes, at, length, StandardCharsets.UTF_8));
            }
            int kept = i;
            for (; i < end; i++) {
                if (bytes[i] != 0) {
                    bytes[kept++] = bytes[i];
                }
            }
            int stripped = kept - at;
            out.shrinkField(at - (jsonb ? 1 : 0), stripped + (jsonb ? 1 : 0));
            return stripped;
        }

        /** The public path: a String per value, encoded to UTF-8. */
        private void encodeString(int row, BinaryCopyEncoder out) throws ConnectorException {
            String value = vector.getString(row);
            if (value == null) {
                out.writeNull();
                return;
            }
            if (quoteNonFinite) {
                value = JsonNonFinite.quote(value);
            }
            byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
            int at = out.reserveField((jsonb ? 1 : 0) + utf8.length);
            if (jsonb) {
                out.buffer()[at++] = JSONB_VERSION;
            }
            System.arraycopy(utf8, 0, out.buffer(), at, utf8.length);
            int length = utf8.length;
            if (nulBytes != BadRows.NulBytes.FAIL) {
                length = nuls(out, at, length);
            }
            checkLength(out.buffer(), at, length);
        }

        private void checkLength(byte[] utf8, int at, int length) throws ConnectorException {
            // UTF-8 has at least one byte per character, so only a value with more bytes than allowed can be too long.
            if (maxChars >= 0 && length > maxChars) {
                countCharacters(utf8, at, length);
            }
        }

        private void countCharacters(byte[] utf8, int start, int length) throws ConnectorException {
            int end = start + length;
            if (blankPadded) {
                // PostgreSQL drops trailing spaces that do not fit a char(n)
                while (end > start && utf8[end - 1] == ' ') {
                    end--;
                }
            }
            int chars = 0;
            for (int i = start; i < end; i++) {
                if ((utf8[i] & 0xC0) != 0x80) { // not a continuation byte: a character starts here
                    chars++;
                }
            }
            if (chars > maxChars) {
                throw DataErrors.tooLong(origin, target, new String(utf8, start, length, StandardCharsets.UTF_8));
            }
        }
    }

    /** BLOB arrives as hex (the chunk API has no BLOB getter) and is decoded into the bytea value. */
    static final class BlobHexEncoder extends VectorEncoder {
        private final ScratchBytes scratch = new ScratchBytes();

        BlobHexEncoder(int index) {
            super(index);
        }

        @Override
        public void encode(int row, BinaryCopyEncoder out) throws ConnectorException {
            String hex = vector.getString(row);
            if (hex == null) {
                out.writeNull();
                return;
            }
            scratch.clear();
            for (int i = 0; i + 1 < hex.length(); i += 2) {
                scratch.putByte((Character.digit(hex.charAt(i), 16) << 4) | Character.digit(hex.charAt(i + 1), 16));
            }
            out.writeBytes(scratch.array(), 0, scratch.length());
        }
    }

    /** UUID arrives as its canonical text and is written as 16 bytes. */
    static final class UuidEncoder extends VectorEncoder {
        private final ColumnOrigin origin;
        private final PgType target;
        private final long[] parsed = new long[2];

        UuidEncoder(int index, PgType target, ColumnOrigin origin) {
            super(index);
            this.target = requireNonNull(target, "target is null");
            this.origin = requireNonNull(origin, "origin is null");
        }

        @Override
        public void encode(int row, BinaryCopyEncoder out) throws ConnectorException {
            String text = vector.getString(row);
            if (text == null) {
                out.writeNull();
                return;
            }
            writeUuid(text, 0, text.length(), out, origin, target, parsed);
        }
    }

    static void writeUuid(CharSequence text, int start, int end, BinaryCopyEncoder out, ColumnOrigin origin,
                          PgType target, long[] into) throws ConnectorException {
        if (!parseUuid(text, start, end, into)) {
            throw DataErrors.unreadable(origin, target, text.subSequence(start, end).toString(), "not a UUID");
        }
        out.beginField(16);
        out.putLong(into[0]);
        out.putLong(into[1]);
    }

    /** Parses 32 hex digits (dashes anywhere) into two longs; false when it is not a UUID. */
    static boolean parseUuid(CharSequence text, int start, int end, long[] into) {
        long high = 0;
        long low = 0;
        int digits = 0;
        for (int i = start; i < end; i++) {
            char c = text.charAt(i);
            if (c == '-') {
                continue;
            }
            int d = Character.digit(c, 16);
            if (d < 0 || digits == 32) {
                return false;
            }
            if (digits < 16) {
                high = (high << 4) | d;
            } else {
                low = (low << 4) | d;
            }
            digits++;
        }
        into[0] = high;
        into[1] = low;
        return digits == 32;
    }
}
