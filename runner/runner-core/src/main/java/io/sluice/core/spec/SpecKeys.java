package io.sluice.core.spec;

import java.util.List;
import java.util.regex.Pattern;

/** The spec's own vocabulary, shared by the loader and the JSON Schema generator so the two cannot drift. */
final class SpecKeys {
    static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9_-]*");

    static final String VERSION = "version";
    static final String NAME_KEY = "name";
    static final String DESCRIPTION = "description";
    static final String LEDGER = "ledger";
    static final String CONNECTIONS = "connections";
    static final String DEFAULTS = "defaults";
    static final String STREAMS = "streams";
    static final List<String> TOP = List.of(VERSION, NAME_KEY, DESCRIPTION, LEDGER, CONNECTIONS, DEFAULTS, STREAMS);

    static final String TYPE = "type";
    static final String CONNECTION = "connection";
    static final String SOURCE = "source";
    static final String TARGET = "target";

    static final String DISTRIBUTION = "distribution";
    static final String DEGREE = "degree";
    static final String BATCH_SIZE = "batch-size";
    static final String LOAD_MODE = "load-mode";
    static final String COLUMN_MAPPING = "column-mapping";
    static final String CONSISTENCY = "consistency";
    static final String VERIFY = "verify";
    static final String RETRY = "retry";
    static final String LOCK_TIMEOUT = "lock-timeout";
    /** Keys a stream shares with {@code defaults:}. */
    static final List<String> SETTINGS = List.of(DISTRIBUTION, DEGREE, BATCH_SIZE, LOAD_MODE, COLUMN_MAPPING,
            CONSISTENCY, VERIFY, RETRY, LOCK_TIMEOUT);
    static final List<String> STREAM = List.of(NAME_KEY, SOURCE, TARGET, DISTRIBUTION, DEGREE, BATCH_SIZE,
            LOAD_MODE, COLUMN_MAPPING, CONSISTENCY, VERIFY, RETRY, LOCK_TIMEOUT);

    static final String METHOD = "method";
    static final String KEY = "key";
    static final String VALUES_QUERY = "values-query";
    static final List<String> DISTRIBUTION_KEYS = List.of(METHOD, KEY, VALUES_QUERY);

    static final String MAX_ATTEMPTS = "max-attempts";
    static final String INITIAL_BACKOFF = "initial-backoff";
    static final String MAX_BACKOFF = "max-backoff";
    static final List<String> RETRY_KEYS = List.of(MAX_ATTEMPTS, INITIAL_BACKOFF, MAX_BACKOFF);

    static final List<String> LEDGER_VALUES = List.of("on", "off", "true", "false");
    static final int MAX_DEGREE = 1024;
    static final long DEFAULT_BATCH_SIZE = 1_048_576L;
    /** Long enough for a busy table's short queries to end, short enough that a stuck load says so. */
    static final java.time.Duration DEFAULT_LOCK_TIMEOUT = java.time.Duration.ofSeconds(60);
    static final String DURATION_PATTERN = "^[0-9]+(ms|s|m|h)$";

    private SpecKeys() {
    }

    /** Spec spelling of an enum constant: {@code DATA_DRIVEN} is {@code data-driven}. */
    static String spelling(Enum<?> value) {
        return value.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }

    static <E extends Enum<E>> List<String> spellings(Class<E> type) {
        return java.util.Arrays.stream(type.getEnumConstants()).map(SpecKeys::spelling).toList();
    }

    static <E extends Enum<E>> E parse(Class<E> type, String spelling) {
        return Enum.valueOf(type, spelling.toUpperCase(java.util.Locale.ROOT).replace('-', '_'));
    }
}
