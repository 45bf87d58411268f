package io.sluice.app.logging;

import java.io.Writer;
import java.util.Locale;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * Stands in for stderr in JSON mode, so that text written by code that knows nothing of JSON (spec diagnostics,
 * connector notices, the final total, error handlers) still leaves as one JSON object per line: each line becomes a
 * {@code message} event. The level comes from the line's start ({@code error...}, {@code warning...}); an indented
 * line (such as {@code "  fix: ..."}) keeps the level of the line before it.
 */
public final class JsonLinesWriter extends Writer {
    private final JsonLog log;
    private final StringBuilder line = new StringBuilder();
    private JsonLog.Level previous = JsonLog.Level.INFO;

    public JsonLinesWriter(JsonLog log) {
        this.log = requireNonNull(log, "log is null");
    }

    @Override
    public synchronized void write(char[] buffer, int offset, int length) {
        for (int i = offset; i < offset + length; i++) {
            char c = buffer[i];
            if (c == '\n' || c == '\r') {
                emit();
            } else {
                line.append(c);
            }
        }
    }

    private void emit() {
        if (line.isEmpty() || line.toString().isBlank()) {
            line.setLength(0);
            return;
        }
        String text = line.toString();
        line.setLength(0);
        JsonLog.Level level = levelOf(text);
        previous = level;
        log.event(level, "message", null, null, text.strip(), Map.of());
    }

    private JsonLog.Level levelOf(String text) {
        if (Character.isWhitespace(text.charAt(0))) {
            return previous;
        }
        String start = text.toLowerCase(Locale.ROOT);
        if (start.startsWith("error") || start.contains(": error[")) {
            return JsonLog.Level.ERROR;
        }
        if (start.startsWith("warning") || start.contains(": warning[")) {
            return JsonLog.Level.WARN;
        }
        return JsonLog.Level.INFO;
    }

    @Override
    public void flush() {
        // Whole lines are written as they end; a partial line waits for its end.
    }

    @Override
    public synchronized void close() {
        emit();
    }
}
