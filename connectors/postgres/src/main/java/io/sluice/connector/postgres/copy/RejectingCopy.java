// Over 450 lines: savepoint, resend and bisection of a segment are one state machine.
package io.sluice.connector.postgres.copy;

import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.connector.postgres.session.PostgresErrors;
import io.sluice.spi.data.RejectedRow;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.toolkit.memory.JavaHeap;

import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.sluice.connector.postgres.catalog.PostgresCode.PG211;
import static io.sluice.connector.postgres.catalog.PostgresCode.PG244;
import static java.util.Objects.requireNonNull;

/**
 * A partition's binary COPY that sets rows the server refuses aside ({@code rejects:}) instead of failing. The
 * tuples are cut out of the byte stream and kept for the current segment (at most {@link #SEGMENT_BYTES}, so memory
 * stays bounded), sent as they come inside a savepoint. When the server refuses a row, the COPY's error names its
 * line: the segment rolls back to the savepoint, the rows before it are sent again, the row goes to the rejects
 * table, and the rest continues in a new COPY. An error without a line (a constraint checked at the end of the
 * statement) splits the rows in halves until the refused ones are alone. Only errors that a row's values cause
 * (SQLSTATE classes 22 and 23, and a trigger's {@code RAISE}) set a row aside; anything else fails the partition.
 * With a {@link RowScreen}, the rows the target's NOT NULL and CHECK constraints refuse are left out by the COPY itself
 * and noted by the server, so they fail no COPY. Rejects are inserted between COPYs, in the partition's transaction,
 * so they commit with its rows or not at all.
 */
final class RejectingCopy {
    /**
     * The most bytes of rows sent and not yet past a savepoint's release: what a refused row makes the writer send
     * again. Each segment costs three round trips (end the COPY, release and take the savepoint, start a COPY), which
     * a busy server makes dear, so a clean load uses large segments; a refused row shrinks them (less to send again
     * when the next one comes soon), and each clean segment doubles them back.
     */
    static final int SEGMENT_BYTES = 8 << 20;
    static final int SMALL_SEGMENT_BYTES = 256 << 10;
    /** A screened COPY starts smaller: its refusal rate is not known yet, and too many refusals fail one COPY. */
    static final int FIRST_SCREENED_SEGMENT_BYTES = 1 << 20;
    /** A binary COPY's header (no flags, no extension) and trailer, which each COPY this package starts sends. */
    static final byte[] HEADER = {'P', 'G', 'C', 'O', 'P', 'Y', '\n', (byte) 0xFF, '\r', '\n', 0,
            0, 0, 0, 0, 0, 0, 0, 0};
    static final byte[] TRAILER = {(byte) 0xFF, (byte) 0xFF};
    private static final Pattern COPY_LINE = Pattern.compile("COPY [^\\n]*?, line (\\d+)");
    private static final String SAVEPOINT = "sluice_rows";

    private final Connection connection;
    private final String copySql;
    private final RejectsTable rejects;
    private final PostgresErrors errors;
    private final String what;
    private final RowScreen.PerTable screens; // null: the COPY does not write the target itself
    private RowScreen screen; // null: none, or this session could not use it

    private RejectedRow.Origin origin;
    private CopyIn copy;
    // the segment: whole tuples from segment start, their offsets; bytes after the last whole tuple are partial
    private byte[] segment = new byte[1 << 16];
    private int length;
    private int[] starts = new int[1024];
    private int tuples;
    private int scanned; // byte offset of the next tuple to cut
    private int known; // tuples whose starts are found: a writer told the count of the rest, not where they start
    private int knownEnd; // where tuple `known` starts
    private int sentTo; // bytes of the segment the current COPY has
    private int copyFirst; // the current COPY's first tuple
    private int headerLeft = HEADER.length; // bytes of the incoming header still to skip (then its extension)
    private int headerSeen;
    private int extension;
    private boolean ended;
    private long tuplesBefore; // tuples of earlier segments
    private long refused;
    private int segmentLimit = SEGMENT_BYTES;
    private boolean refusedInSegment;
    private int screenedInSegment;
    private final List<RejectedRow> pending = new ArrayList<>(); // the reader's, written at the next segment end
    private final List<RejectsTable.Refused> refusedPending = new ArrayList<>(); // the server's, likewise
    private long clientRejected;
    private long[] clientRows = new long[16]; // their row numbers as read, ascending
    private int clientCount;
    private final List<String> sample = new ArrayList<>();
    private static final int SAMPLE_ROWS = 3;

    RejectingCopy(Connection connection, String copySql, RejectsTable rejects, PostgresErrors errors, String what,
                  Optional<RowScreen.PerTable> screens) {
        this.connection = requireNonNull(connection, "connection is null");
        this.rejects = requireNonNull(rejects, "rejects is null");
        this.errors = requireNonNull(errors, "errors is null");
        this.what = requireNonNull(what, "what is null");
        this.screens = requireNonNull(screens, "screens is null").orElse(null);
        this.copySql = requireNonNull(copySql, "copySql is null");
    }

    void origin(RejectedRow.Origin origin) {
        this.origin = requireNonNull(origin, "origin is null");
    }

    RejectedRow.Origin origin() throws ConnectorException {
        return requireOrigin();
    }

    /** Rows the load's own step set aside after the COPY ({@link AfterCopy#setAside}): counted as refused. */
    void movedAside(long rows, String reason) {
        if (rows > 0) {
            refused += rows;
            if (sample.size() < SAMPLE_ROWS) {
                sample.add(reason);
            }
        }
    }

    /** Starts the first segment. */
    void start() throws SQLException {
        if (screens != null) {
            execute("SAVEPOINT sluice_screen");
            try {
                screen = screens.get(connection).orElse(null);
                if (screen != null) {
                    PostgresConnections.madeTemporaryObjects(connection);
                    execute(RowScreen.FUNCTION + "; RELEASE SAVEPOINT sluice_screen");
                } else {
                    execute("RELEASE SAVEPOINT sluice_screen");
                }
            } catch (SQLException e) { // no TEMP privilege, no PL/pgSQL: the server's errors find the rows instead
                execute("ROLLBACK TO SAVEPOINT sluice_screen; RELEASE SAVEPOINT sluice_screen");
                screen = null;
            }
        }
        execute(savepoint());
        if (screen != null) {
            try {
                copy = openCopy();
                segmentLimit = FIRST_SCREENED_SEGMENT_BYTES;
                return;
            } catch (SQLException e) {
                // the clause does not parse or may not run here (a schema its checks use without USAGE on it, a
                // whole-row reference beside a generated column): the server's errors find the rows instead
                execute("ROLLBACK TO SAVEPOINT " + SAVEPOINT);
                screen = null;
            }
        }
        copy = openCopy();
    }

    /** Takes the segment's savepoint; with a screen, the next COPY's refusals count from zero. */
    private String savepoint() {
        return "SAVEPOINT " + SAVEPOINT + (screen == null ? "" : "; " + RowScreen.RESET);
    }

    boolean copyActive() {
        return copy != null && copy.isActive();
    }

    CopyIn activeCopy() {
        return copy;
    }

    void reject(RejectedRow row) {
        requireNonNull(row, "row is null");
        pending.add(row);
        clientRejected++;
        sampled(row.code(), row.message(), row.column());
        if (row.rowNumber() > 0) {
            if (clientCount == clientRows.length) {
                clientRows = Arrays.copyOf(clientRows, clientCount * 2);
            }
            clientRows[clientCount++] = row.rowNumber();
        }
    }

    private void sampled(String code, String message, Optional<String> column) {
        if (sample.size() < SAMPLE_ROWS) {
            sample.add(code + ": " + message + column.map(c -> " (" + c + ")").orElse(""));
        }
    }

    List<String> sample() {
        return List.copyOf(sample);
    }

    long rejected() {
        return clientRejected + refused;
    }

    long refused() {
        return refused;
    }

    /**
     * Takes bytes of the stream; {@code rows} when they are that many whole tuples ({@link
     * io.sluice.spi.data.CopySink#writeRows}): then where each starts is found only if one is refused. Else -1.
     */
    void write(byte[] buffer, int offset, int count, int rows) throws ConnectorException, SQLException {
        if (ended) {
            throw new ConnectorException(ErrorKind.FAILED, PG211, what + ": bytes after the COPY trailer",
                    "report this as a bug");
        }
        int from = offset;
        int end = offset + count;
        while (headerLeft > 0 && from < end) { // the reader's header: each COPY gets the writer's own
            if (headerSeen < HEADER.length) {
                if (headerSeen >= HEADER.length - 4) { // the last four bytes: the header extension's length
                    extension = (extension << 8) | (buffer[from] & 0xFF);
                }
                headerSeen++;
                headerLeft--;
                from++;
                if (headerSeen == HEADER.length) {
                    headerLeft = extension;
                }
                continue;
            }
            int skip = Math.min(headerLeft, end - from);
            headerLeft -= skip;
            from += skip;
        }
        if (from >= end) {
            return;
        }
        if (rows >= 0 && scanned == length) { // whole tuples after whole tuples
            append(buffer, from, end - from);
            tuples += rows;
            scanned = length;
        } else if (end - from == TRAILER.length && scanned == length && buffer[from] == -1 && buffer[from + 1] == -1) {
            ended = true; // the trailer alone, after whole tuples: the writer sends its own
        } else {
            append(buffer, from, end - from);
            cut();
        }
        if (sentTo < scanned) {
            send();
        }
        if (scanned >= segmentLimit && !ended) {
            endSegment();
        }
    }

    /** Ends the last segment: returns the rows the target took. */
    long finish() throws ConnectorException, SQLException {
        if (!ended) {
            throw new ConnectorException(ErrorKind.FAILED, PG211, what + ": the stream ended without its trailer",
                    "report this as a bug");
        }
        endSegment();
        execute("RELEASE SAVEPOINT " + SAVEPOINT);
        copy = null;
        return tuplesBefore - refused;
    }

    private void append(byte[] buffer, int from, int count) throws ConnectorException {
        if (length + count > segment.length) {
            grow(Math.max(length + count, (long) segment.length * 2));
        }
        System.arraycopy(buffer, from, segment, length, count);
        length += count;
        if (scanned < length) { // a tuple in part: make room for all of it at once, not by doublings past it
            long end = announcedEnd(scanned, length);
            if (end > segment.length) {
                grow(end);
            }
        }
    }

    /**
     * A tuple is kept whole until its segment is past a savepoint, however long its values: a row the server refuses
     * is sent again. A heap too small for it fails the partition naming the row's size (nothing of it is committed).
     */
    private void grow(long bytes) throws ConnectorException {
        try {
            segment = Arrays.copyOf(segment, (int) Math.min(bytes, Integer.MAX_VALUE - 16));
        } catch (OutOfMemoryError e) {
            long row = announcedEnd(scanned, length) - scanned;
            throw new ConnectorException(ErrorKind.FAILED, PG244, what + ": a row of " + JavaHeap.megabytes(row)
                    + " does not fit in the JVM's heap (at most " + JavaHeap.megabytes(JavaHeap.maxBytes())
                    + ") beside the rows rejects: keeps to send again", "load this table without rejects: (a row is "
                    + "then streamed whatever its size), or " + JavaHeap.fix(row), e);
        }
    }

    /** At least where the tuple at {@code at} ends, by the lengths of the fields it has announced by {@code limit}. */
    private long announcedEnd(int at, int limit) {
        if (at + 2 > limit) {
            return limit;
        }
        int fields = fieldCount(at);
        long p = at + 2;
        for (int f = 0; f < fields && p + 4 <= limit; f++) {
            p += 4 + Math.max(fieldLength((int) p), 0);
        }
        return Math.max(p, limit);
    }

    /** Finds the whole tuples among the bytes appended; stops at a partial one, or at the trailer. */
    private void cut() {
        startsUpTo(tuples);
        int at = scanned;
        while (at + 2 <= length) {
            if (fieldCount(at) == -1) {
                ended = true;
                length = at; // the trailer is the writer's to send
                break;
            }
            int end = endOfTupleAt(at, length);
            if (end < 0) {
                break;
            }
            addStart(at);
            at = end;
        }
        scanned = at;
        knownEnd = at;
    }

    /** Finds where tuples {@code [known, count)} start, among bytes a writer said are whole tuples. */
    private void startsUpTo(int count) {
        while (known < count) {
            int at = knownEnd;
            addStart(at);
            knownEnd = endOfTupleAt(at, scanned);
        }
    }

    private void addStart(int at) {
        if (known == starts.length) {
            starts = Arrays.copyOf(starts, known * 2);
        }
        starts[known++] = at;
        tuples = Math.max(tuples, known);
    }

    private int fieldCount(int at) {
        return (short) (((segment[at] & 0xFF) << 8) | (segment[at + 1] & 0xFF));
    }

    /** The length a field announces at {@code at} (-1 for NULL). */
    private int fieldLength(int at) {
        return ((segment[at] & 0xFF) << 24) | ((segment[at + 1] & 0xFF) << 16) | ((segment[at + 2] & 0xFF) << 8)
                | (segment[at + 3] & 0xFF);
    }

    /** Where the tuple at {@code at} ends, or -1 when it does not end by {@code limit}. */
    private int endOfTupleAt(int at, int limit) {
        int fields = fieldCount(at);
        int p = at + 2;
        for (int f = 0; f < fields; f++) {
            if (p + 4 > limit) {
                return -1;
            }
            p += 4 + Math.max(fieldLength(p), 0);
            if (p > limit) {
                return -1;
            }
        }
        return p;
    }

    private int tupleStart(int tuple) {
        startsUpTo(tuple + 1);
        return starts[tuple];
    }

    private int tupleEnd(int tuple) {
        startsUpTo(Math.min(tuple + 2, tuples));
        return tuple + 1 < tuples ? starts[tuple + 1] : scanned;
    }

    /** Sends the whole tuples the current COPY lacks; a refusal is handled where it comes up. */
    private void send() throws ConnectorException, SQLException {
        int from = sentTo;
        int to = scanned;
        try {
            copy.writeToCopy(segment, from, to - from);
            sentTo = to;
        } catch (SQLException e) {
            refusedWhileStreaming(e);
        }
    }

    /** Ends the current COPY and releases its savepoint; the next segment starts empty. */
    private void endSegment() throws ConnectorException, SQLException {
        boolean done = copy == null;
        while (!done) {
            try {
                if (sentTo < scanned) {
                    copy.writeToCopy(segment, sentTo, scanned - sentTo);
                    sentTo = scanned;
                }
                copy.writeToCopy(TRAILER, 0, TRAILER.length);
                takeScreened(copyFirst, tuples, copy.endCopy());
                done = true;
            } catch (SQLException e) {
                refusedWhileStreaming(e); // then the rest, in the COPY it opened
            }
        }
        if (pending.isEmpty() && refusedPending.isEmpty()) {
            execute("RELEASE SAVEPOINT " + SAVEPOINT + "; " + savepoint()); // one round trip
        } else {
            execute("RELEASE SAVEPOINT " + SAVEPOINT);
            writePending();
            execute(savepoint());
        }
        segmentLimit = refusedInSegment ? SMALL_SEGMENT_BYTES : Math.min(SEGMENT_BYTES, segmentLimit * 2);
        if (screenedInSegment > 0) { // about a fifth of what one COPY may report, at the rate this segment had
            long fitting = (long) scanned * (RowScreen.MOST_PER_COPY / 5) / screenedInSegment;
            segmentLimit = (int) Math.max(SMALL_SEGMENT_BYTES, Math.min(segmentLimit, fitting));
        }
        refusedInSegment = false;
        screenedInSegment = 0;
        tuplesBefore += tuples;
        int carried = length - scanned;
        System.arraycopy(segment, scanned, segment, 0, carried);
        length = carried;
        tuples = 0;
        scanned = 0;
        known = 0;
        knownEnd = 0;
        sentTo = 0;
        copyFirst = 0;
        if (segment.length > SEGMENT_BYTES * 2) {
            segment = Arrays.copyOf(segment, Math.max(carried, 1 << 16));
        }
        copy = ended ? null : openCopy();
    }

    /**
     * The current COPY failed: roll back to the segment's savepoint; a row the error names is set aside after the
     * rows before it are loaded again, and a new COPY carries on with the rows after it; without a line, the
     * segment's rows so far are loaded piece by piece.
     */
    private void refusedWhileStreaming(SQLException e) throws ConnectorException, SQLException {
        requireRowError(e);
        cancelQuietly();
        execute("ROLLBACK TO SAVEPOINT " + SAVEPOINT);
        Optional<Integer> line = line(e);
        if (line.isPresent() && copyFirst + line.get() - 1 < tuples && tooManyScreened(e)) {
            // the screen refused more rows than one COPY notes: those rows again in smaller COPYs
            int last = copyFirst + line.get() - 1;
            loadInChunks(copyFirst, last + 1);
            segmentLimit = SMALL_SEGMENT_BYTES;
            copyFirst = last + 1;
            sentTo = tupleEnd(last);
        } else if (line.isPresent() && copyFirst + line.get() - 1 < tuples) {
            int bad = copyFirst + line.get() - 1;
            loadPieces(copyFirst, bad);
            setAside(bad, e);
            copyFirst = bad + 1;
            sentTo = tupleEnd(bad);
        } else {
            // no line (a check at the statement's end): every whole row so far, in pieces
            loadPieces(copyFirst, tuples);
            copyFirst = tuples;
            sentTo = scanned;
        }
        execute("RELEASE SAVEPOINT " + SAVEPOINT + "; " + savepoint()); // one round trip
        copy = openCopy();
    }

    /** Loads tuples {@code [from, to)} in COPYs of at most as many rows as one COPY's screen may refuse. */
    private void loadInChunks(int from, int to) throws ConnectorException, SQLException {
        for (int at = from; at < to; at += RowScreen.MOST_PER_COPY) {
            loadPieces(at, Math.min(to, at + RowScreen.MOST_PER_COPY));
        }
    }

    /**
     * Loads tuples {@code [from, to)} of the segment, each attempt in a savepoint of its own inside the segment's,
     * setting aside what the server refuses.
     */
    private void loadPieces(int from, int to) throws ConnectorException, SQLException {
        while (from < to) {
            execute("SAVEPOINT sluice_piece" + (screen == null ? "" : "; " + RowScreen.RESET));
            CopyIn piece = null;
            try {
                piece = openCopy();
                int first = tupleStart(from);
                piece.writeToCopy(segment, first, tupleEnd(to - 1) - first);
                piece.writeToCopy(TRAILER, 0, TRAILER.length);
                takeScreened(from, to, piece.endCopy());
                execute("RELEASE SAVEPOINT sluice_piece");
                return;
            } catch (SQLException e) {
                requireRowError(e);
                if (piece != null && piece.isActive()) {
                    try {
                        piece.cancelCopy();
                    } catch (SQLException ignored) {
                        // rolled back next
                    }
                }
                execute("ROLLBACK TO SAVEPOINT sluice_piece");
                execute("RELEASE SAVEPOINT sluice_piece");
                Optional<Integer> line = line(e);
                if (tooManyScreened(e) && to - from > RowScreen.MOST_PER_COPY) {
                    loadInChunks(from, to);
                    return;
                } else if (line.isPresent() && from + line.get() - 1 < to) {
                    int bad = from + line.get() - 1;
                    loadPieces(from, bad);
                    setAside(bad, e);
                    from = bad + 1;
                } else if (to - from == 1) {
                    setAside(from, e);
                    return;
                } else {
                    int middle = (from + to) >>> 1;
                    loadPieces(from, middle);
                    loadPieces(middle, to);
                    return;
                }
            }
        }
    }

    /** COPY's CONTEXT, {@code COPY t, line 3, column name: "..."}: a value's refusal (too long, out of range)
     * names its column there only. */
    private static final java.util.regex.Pattern COPY_COLUMN = java.util.regex.Pattern.compile(
            "^COPY .*?, line \\d+, column (.+?)(?:: .*)?$", java.util.regex.Pattern.DOTALL);

    static Optional<String> copyColumn(String where) {
        if (where == null) {
            return Optional.empty();
        }
        java.util.regex.Matcher m = COPY_COLUMN.matcher(where.lines().findFirst().orElse(""));
        return m.matches() ? Optional.of(m.group(1)) : Optional.empty();
    }

    /** Sets aside a row whose COPY failed: the segment shrinks, since each such row costs sending rows again. */
    private void setAside(int tuple, SQLException e) {
        refusedInSegment = true;
        segmentLimit = SMALL_SEGMENT_BYTES; // the segment under way ends at the next write past it
        ServerErrorMessage server = e instanceof PSQLException p ? p.getServerErrorMessage() : null;
        Optional<String> column = Optional.ofNullable(server == null ? null : server.getColumn())
                .or(() -> Optional.ofNullable(server == null ? null : server.getConstraint())
                        .map(c -> "constraint " + c))
                .or(() -> copyColumn(server == null ? null : server.getWhere()));
        String message = errors.scrub(server != null && server.getMessage() != null ? server.getMessage()
                : String.valueOf(e.getMessage()));
        setAside(tuple, e.getSQLState() == null ? "" : e.getSQLState(), message, column);
    }

    /**
     * The rows of a COPY that just ended ({@code [first, end)} of the segment) that its screen left out, as its function
     * noted them: each is set aside with what the server would have said. Their number must be what the COPY did not
     * take, or a row would be lost without a word. A COPY that took every row costs no round trip here.
     */
    private void takeScreened(int first, int end, long taken) throws ConnectorException, SQLException {
        long left = end - first - taken;
        if (screen == null || left == 0) {
            return;
        }
        String noted;
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(RowScreen.NOTED_QUERY)) {
            noted = rs.next() ? rs.getString(1) : null;
        }
        long found = 0;
        for (RowScreen.Refused row : screen.noted(noted)) {
            if (row.line() < 1 || first + row.line() - 1 >= end) {
                throw new ConnectorException(ErrorKind.FAILED, PG211, what + ": a refused row's line " + row.line()
                        + " is not in its COPY of " + (end - first) + " rows", "report this as a bug");
            }
            RowScreen.Refusal r = row.refusal();
            setAside(first + row.line() - 1, r.code(), r.message(), r.column());
            screenedInSegment++;
            found++;
        }
        if (found != left) {
            throw new ConnectorException(ErrorKind.FAILED, PG211, what + ": the target took " + taken + " of "
                    + (end - first) + " rows of a COPY and noted " + found + " it refused", "report this as a bug");
        }
    }

    private void setAside(int tuple, String state, String message, Optional<String> column) {
        refused++;
        long sent = tuplesBefore + tuple + 1;
        sampled(state, message, column);
        // kept until the segment's end, then decoded and written together: a round trip per row costs more
        refusedPending.add(new RejectsTable.Refused(asRead(sent), Arrays.copyOfRange(segment, tupleStart(tuple),
                tupleEnd(tuple)), column, state, message));
    }

    /** A row's number as read: its number among the rows sent, plus the reader's rows set aside before it. */
    private long asRead(long sent) {
        long row = sent;
        for (int i = 0; i < clientCount && clientRows[i] <= row; i++) {
            row++;
        }
        return row;
    }

    private void writePending() throws ConnectorException, SQLException {
        if (!pending.isEmpty()) {
            rejects.insert(connection, requireOrigin(), pending);
            pending.clear();
        }
        if (!refusedPending.isEmpty()) {
            rejects.insertRefused(connection, requireOrigin(), refusedPending);
            refusedPending.clear();
        }
    }

    private RejectedRow.Origin requireOrigin() throws ConnectorException {
        if (origin == null) {
            throw new ConnectorException(ErrorKind.FAILED, PG211, what + ": rows set aside before the writer was "
                    + "told whose they are", "report this as a bug");
        }
        return origin;
    }

    private CopyIn openCopy() throws SQLException {
        CopyIn opened = connection.unwrap(PGConnection.class).getCopyAPI().copyIn(screen == null ? copySql
                : screen.screened(copySql));
        opened.writeToCopy(HEADER, 0, HEADER.length);
        return opened;
    }

    private void cancelQuietly() {
        try {
            if (copy != null && copy.isActive()) {
                copy.cancelCopy();
            }
        } catch (SQLException ignored) {
            // the rollback to the savepoint follows
        }
    }

    /** Rows are set aside only for what their values cause; the rest fails the partition as before. */
    private void requireRowError(SQLException e) throws SQLException {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        if (!(state.startsWith("22") || state.startsWith("23") || state.equals("P0001")
                || tooManyScreened(e))) {
            throw e;
        }
    }

    private boolean tooManyScreened(SQLException e) {
        return screen != null && RowScreen.TOO_MANY_STATE.equals(e.getSQLState());
    }

    static Optional<Integer> line(SQLException e) {
        return e instanceof PSQLException p ? line(p.getServerErrorMessage()) : Optional.empty();
    }

    /** The line of the COPY a server message came from, as its context names it. */
    static Optional<Integer> line(ServerErrorMessage server) {
        if (server != null && server.getWhere() != null) {
            Matcher m = COPY_LINE.matcher(server.getWhere());
            if (m.find()) {
                return Optional.of(Integer.parseInt(m.group(1)));
            }
        }
        return Optional.empty();
    }

    private void execute(String sql) throws SQLException {
        try (Statement s = connection.createStatement()) {
            s.execute(sql);
        }
    }
}
