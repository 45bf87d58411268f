package io.sluice.core.spec;

import io.sluice.spi.data.LockWaits;
import io.sluice.spi.read.Consistency;
import io.sluice.spi.read.Distribution;
import io.sluice.spi.write.LoadMode;

import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The spec's own vocabulary, shared by the loader and the JSON Schema generator so the two cannot drift; which keys go
 * where, and what each means, is {@link SpecReference}'s.
 */
final class SpecKeys {
    static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9_-]*");

    static final String VERSION = "version";
    static final String NAME_KEY = "name";
    static final String DESCRIPTION = "description";
    static final String LEDGER = "ledger";
    static final String CONNECTIONS = "connections";
    static final String DEFAULTS = "defaults";
    static final String STREAMS = "streams";
    static final String MAX_PARALLEL_STREAMS = "max-parallel-streams";
    static final String FAIL_FAST = "fail-fast";

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
    static final String INCREMENTAL = "incremental";
    static final String MERGE_KEY = "merge-key";
    static final String ON_DUPLICATE = "on-duplicate";
    static final String DELETE_MISSING = "delete-missing";
    static final String KEEP_PREVIOUS = "keep-previous";
    static final String INDEXES = "indexes";
    static final String RESET_SEQUENCES = "reset-sequences";
    static final String SCHEMA_CHANGES = "schema-changes";
    static final String REJECTS = "rejects";
    static final String MAX_ROWS = "max-rows";
    static final String MAX_RATIO = "max-ratio";
    static final String TABLE = "table";
    static final List<String> REJECTS_KEYS = List.of(TABLE, MAX_ROWS, MAX_RATIO);
    static final String NUL_BYTES = "nul-bytes";
    static final String COLUMNS = "columns";
    static final String MASK_KEY = "mask-key";
    static final String EXCLUDE_COLUMN = "exclude";
    static final String RENAME = "rename";
    static final String EXPRESSION = "expression";
    static final String MASK = "mask";
    static final String CHECKS = "checks";
    static final String ROWS = "rows";
    static final String NOT_NULL = "not-null";
    static final String UNIQUE = "unique";
    static final String SQL = "sql";
    static final String MIN = "min";
    static final String MAX = "max";
    static final String MIN_RATIO_OF_LAST_RUN = "min-ratio-of-last-run";
    static final String BEFORE = "before";
    static final String AFTER = "after";
    static final List<String> COLUMN_RULE_KEYS = List.of(EXCLUDE_COLUMN, RENAME, TYPE, EXPRESSION, MASK);
    static final String CURSOR = "cursor";
    static final String NEW_FILES = "new-files";
    static final String NEW_SNAPSHOTS = "new-snapshots";
    static final List<String> INCREMENTAL_KEYS = List.of(CURSOR, NEW_FILES, NEW_SNAPSHOTS);

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

    /** The values a whole-number key takes, for a fix: the key's own bounds, not the number type's. */
    static String range(String key) {
        return switch (key) {
            case DEGREE -> "from 1 to " + MAX_DEGREE + " (or -1 to -" + MAX_DEGREE + " for a share of the cores)";
            case MAX_PARALLEL_STREAMS -> "from 1 to " + MAX_DEGREE;
            default -> "of at most " + Long.MAX_VALUE;
        };
    }
    static final int MAX_ATTEMPTS_LIMIT = 1000;
    static final String DURATION_PATTERN = "^[0-9]+(ms|s|m|h)$";

    // The value of each key a spec leaves out, in one place: the binder applies it, the JSON Schema publishes it.
    // (retry's defaults are RetrySpec.DEFAULT.)
    static final boolean DEFAULT_LEDGER = true;
    static final Distribution DEFAULT_DISTRIBUTION = Distribution.none();
    static final int DEFAULT_DEGREE = 1;
    /** batch-size: rows per partition, for the methods that split by it. */
    static final long DEFAULT_ROWS_PER_PARTITION = 1_048_576L;
    static final LoadMode DEFAULT_LOAD_MODE = LoadMode.APPEND;
    static final ColumnMapping DEFAULT_COLUMN_MAPPING = ColumnMapping.NAME;
    static final Consistency DEFAULT_CONSISTENCY = Consistency.SNAPSHOT;
    static final VerifyMode DEFAULT_VERIFY = VerifyMode.NONE;
    /** Long enough for a busy table's short queries to end, short enough that a stuck load says so. */
    static final Duration DEFAULT_LOCK_TIMEOUT = LockWaits.DEFAULT_TIMEOUT;

    private SpecKeys() {
    }

    /** Spec spelling of an enum constant: {@code DATA_DRIVEN} is {@code data-driven}. */
    static String spelling(Enum<?> value) {
        return value.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }

    static <E extends Enum<E>> List<String> spellings(Class<E> type) {
        return java.util.Arrays.stream(type.getEnumConstants()).map(SpecKeys::spelling).toList();
    }

    /** Spec spelling of a duration, in whole seconds where it is some: {@code 60s}, {@code 500ms}. */
    static String spelling(Duration duration) {
        return duration.toMillis() % 1000 == 0 ? duration.toSeconds() + "s" : duration.toMillis() + "ms";
    }

    static <E extends Enum<E>> E parse(Class<E> type, String spelling) {
        return Enum.valueOf(type, spelling.toUpperCase(java.util.Locale.ROOT).replace('-', '_'));
    }
}
