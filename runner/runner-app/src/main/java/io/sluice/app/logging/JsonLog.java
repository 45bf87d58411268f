package io.sluice.app.logging;

import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import java.io.PrintWriter;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

import static java.util.Objects.requireNonNull;

/**
 * {@code --log-format json}: one JSON object per line with {@code timestamp}, {@code level}, {@code run-id},
 * {@code stream}, {@code partition}, {@code event} and {@code message}, then event-specific figures. The first seven
 * keys are always there (null when they do not apply), so log shippers can map them once. Every string value passes
 * the redactor before it is encoded: a secret is masked whatever JSON escaping would make of it.
 */
public final class JsonLog {
    public enum Level { DEBUG, INFO, WARN, ERROR }

    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    private final PrintWriter out;
    private final UnaryOperator<String> redact;
    private final Clock clock;
    private final Supplier<String> runIdBeforeStart;
    private volatile String runId;

    /**
     * @param runIdBeforeStart the run id for lines written before {@link #runId} is called (spec diagnostics, a
     *                         preflight error): what {@code --run-id} said, or null
     */
    public JsonLog(PrintWriter out, UnaryOperator<String> redact, Clock clock, Supplier<String> runIdBeforeStart) {
        this.out = requireNonNull(out, "out is null");
        this.redact = requireNonNull(redact, "redact is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.runIdBeforeStart = requireNonNull(runIdBeforeStart, "runIdBeforeStart is null");
    }

    /** The run id every later line carries. */
    public void runId(String runId) {
        this.runId = requireNonNull(runId, "runId is null");
    }

    public void event(Level level, String event, String stream, Integer partition, String message,
                      Map<String, ?> fields) {
        requireNonNull(level, "level is null");
        requireNonNull(event, "event is null");
        requireNonNull(fields, "fields is null");
        ObjectNode line = MAPPER.createObjectNode();
        line.put("timestamp", clock.instant().truncatedTo(ChronoUnit.MILLIS).toString());
        line.put("level", level.name());
        putString(line, "run-id", runId != null ? runId : runIdBeforeStart.get());
        putString(line, "stream", stream);
        if (partition == null) {
            line.putNull("partition");
        } else {
            line.put("partition", partition);
        }
        line.put("event", event);
        putString(line, "message", message);
        fields.forEach((key, value) -> {
            switch (value) {
                case null -> line.putNull(key);
                case Integer n -> line.put(key, n);
                case Long n -> line.put(key, n);
                case Double n -> line.put(key, n);
                case Boolean b -> line.put(key, b);
                default -> line.put(key, redact.apply(value.toString()));
            }
        });
        String text = MAPPER.writeValueAsString(line);
        synchronized (out) {
            out.println(text);
            out.flush();
        }
    }

    private void putString(ObjectNode line, String key, String value) {
        if (value == null) {
            line.putNull(key);
        } else {
            line.put(key, redact.apply(value));
        }
    }
}
