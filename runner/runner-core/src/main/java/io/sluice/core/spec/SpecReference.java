package io.sluice.core.spec;

import io.sluice.core.spec.SpecKey.Scope;
import io.sluice.spi.data.SchemaChanges;
import io.sluice.spi.read.BadRows;
import io.sluice.spi.read.Consistency;
import io.sluice.spi.write.LoadMode;
import io.sluice.spi.write.LoadRequest;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Every top-level and stream key of spec v1, declared once, in the order docs/spec.md lists them. The loader takes
 * the keys it accepts from here, the JSON Schema its descriptions, and docs/spec.md its two key tables (a test fails
 * when they differ: {@code SpecReferenceTest}). Values and defaults backed by an enum or a default constant are
 * written from them, so a new value shows in the docs without an edit.
 */
final class SpecReference {
    static final List<SpecKey> TOP = List.of(
            new SpecKey(SpecKeys.VERSION, Scope.TOP,
                    "integer",
                    "required",
                    "Spec format version; must be `1`."),
            new SpecKey(SpecKeys.NAME_KEY, Scope.TOP,
                    "string `[a-z0-9][a-z0-9_-]*`",
                    "required",
                    "Pipeline name. `name: nightly-orders`"),
            new SpecKey(SpecKeys.DESCRIPTION, Scope.TOP,
                    "string",
                    "none",
                    "Free text."),
            new SpecKey(SpecKeys.LEDGER, Scope.TOP,
                    "`on` | `off` | `true` | `false`",
                    "`on`",
                    "Keep the run ledger (one row per run and partition) in the target, which makes `sluice run "
                    + "--resume` possible. `off` for targets where Sluice may not create its schema: runs still "
                    + "work, without resume; lint adds a note (SPEC022)."),
            new SpecKey(SpecKeys.MAX_PARALLEL_STREAMS, Scope.TOP,
                    "integer 1…1024",
                    code(String.valueOf(RunSettings.DEFAULT.maxParallelStreams())),
                    "How many streams copy at once, each with its own `degree` (so up to the sum of their degrees "
                    + "connections per server). `1`: one after another, in spec order. More: the largest streams (by "
                    + "estimated size) start first, so the run ends as early as it can. A run that would open more "
                    + "connections to a server than it accepts now is refused at plan time (PLAN005; counted per "
                    + "connection entry: two entries naming one server are counted apart). It also bounds how many "
                    + "table groups of a change feed apply at once (docs/postgres.md, \"Changes\"). "
                    + "`max-parallel-streams: 3`"),
            new SpecKey(SpecKeys.FAIL_FAST, Scope.TOP,
                    "boolean",
                    code(String.valueOf(RunSettings.DEFAULT.failFast())),
                    "`true`: a failed stream stops the others (running ones are cancelled and rolled back, waiting "
                    + "ones skipped). `false`: the others go on; the run then ends with the worst stream's exit "
                    + "code, and `--resume` copies only what is not done, across all streams."),
            new SpecKey(SpecKeys.BEFORE, Scope.TOP,
                    "list of `{ connection, sql }`",
                    "none",
                    "The run's hook: SQL run once per run on a connection a stream loads into, before the first "
                    + "stream starts; see \"Hooks\" below."),
            new SpecKey(SpecKeys.AFTER, Scope.TOP,
                    "list of `{ connection, sql }`",
                    "none",
                    "The run's hook: SQL run once per run on a connection a stream loads into, when every stream "
                    + "is finished; see \"Hooks\" below."),
            new SpecKey(SpecKeys.CONNECTIONS, Scope.TOP,
                    "mapping name → connection",
                    "required",
                    "Named connections, reused by streams."),
            new SpecKey(SpecKeys.DEFAULTS, Scope.TOP,
                    "mapping",
                    "none",
                    "Stream settings every stream inherits (see below)."),
            new SpecKey(SpecKeys.STREAMS, Scope.TOP,
                    "list of streams, at least one",
                    "required",
                    "What to copy."));

    static final List<SpecKey> STREAM = List.of(
            new SpecKey(SpecKeys.NAME_KEY, Scope.STREAM,
                    "string `[a-z0-9][a-z0-9_-]*`",
                    "required",
                    "Unique within the spec (SPEC011)."),
            new SpecKey(SpecKeys.SOURCE, Scope.STREAM,
                    "mapping",
                    "required",
                    "`connection:` (a name from `connections:`) plus the source options of that connection's "
                    + "connector, e.g. postgres `table: tpch.lineitem` or `query: \"select ...\"`, duckdb `query: "
                    + "...`."),
            new SpecKey(SpecKeys.TARGET, Scope.STREAM,
                    "mapping",
                    "required",
                    "`connection:` plus the target options of that connector, e.g. postgres `table: tpch.lineitem` "
                    + "(required)."),
            new SpecKey(SpecKeys.DISTRIBUTION, Scope.SETTING,
                    "mapping",
                    "`{ method: none }`",
                    "How the source splits the stream into partitions, see below."),
            new SpecKey(SpecKeys.DEGREE, Scope.SETTING,
                    "integer, not 0, -1024…1024",
                    code(String.valueOf(SpecKeys.DEFAULT_DEGREE)),
                    "> 0: partitions copied at once. < 0: available cores / |n| (at least 1), e.g. `-2` on 8 cores "
                    + "is 4. `degree: 8`"),
            new SpecKey(SpecKeys.BATCH_SIZE, Scope.SETTING,
                    "integer > 0",
                    code(String.valueOf(SpecKeys.DEFAULT_ROWS_PER_PARTITION)),
                    "About how many rows one partition holds, for the distribution methods the source splits by "
                    + "rows: postgres `ctid`, `range` and `ntile` (never fewer partitions than `degree`). Other "
                    + "methods ignore it (`none` reads whole, `modulo` makes `degree` buckets, `data-driven` one "
                    + "partition per value, and no DuckDB method uses it); setting it on such a stream is a warning "
                    + "(SPEC026), and it is then not part of the stream's definition, so changing it on `--resume` "
                    + "is fine. `batch-size: 500000`"),
            new SpecKey(SpecKeys.LOAD_MODE, Scope.SETTING,
                    oneOf(LoadMode.class),
                    code(SpecKeys.spelling(SpecKeys.DEFAULT_LOAD_MODE)),
                    "How the rows meet the target; see \"Load modes\" below. `truncate` empties the target once "
                    + "per run, before the first partition writes (a resumed run does not truncate again). With one "
                    + "worker (`degree: 1` or a single partition) the truncation and the copy are one target "
                    + "transaction: all or nothing, and PostgreSQL loads faster; such a load reads the source whole, "
                    + "as `method: none` would, since partitions would only add boundaries (docs/postgres.md, "
                    + "\"Target\"). `replace` loads a new copy beside the target and swaps it in at the end; `merge` "
                    + "inserts or updates by key."),
            new SpecKey(SpecKeys.MERGE_KEY, Scope.SETTING,
                    "list of column names",
                    "the target's primary key",
                    "`merge` only: the columns a source row is matched on. The target needs a unique index on "
                    + "exactly these columns (refused at plan time otherwise, PG216, with the `CREATE UNIQUE INDEX` "
                    + "that fixes it). `merge-key: [order_id, line]`"),
            new SpecKey(SpecKeys.ON_DUPLICATE, Scope.SETTING,
                    oneOf(LoadRequest.OnDuplicate.class),
                    "`error`",
                    "`merge` only: two source rows with one key in one partition fail the partition, naming the "
                    + "key (PG217), or the row read last wins, or (with `rejects:`) every row of that key goes to "
                    + "the rejects table and none loads. Across partitions, the partition committed last wins."),
            new SpecKey(SpecKeys.DELETE_MISSING, Scope.SETTING,
                    "boolean",
                    "`false`",
                    "`merge` only: once every partition is done, delete (in one transaction) the target rows whose "
                    + "key the source did not have, so the target equals the source. Needs the ledger; refused with "
                    + "`incremental`."),
            new SpecKey(SpecKeys.KEEP_PREVIOUS, Scope.SETTING,
                    "boolean",
                    "`false`",
                    "`replace` only: keep the swapped-out table as `<table>_old` (the next such run replaces it) "
                    + "instead of dropping it."),
            new SpecKey(SpecKeys.INDEXES, Scope.SETTING,
                    oneOf(LoadRequest.Indexes.class),
                    "`keep`",
                    "`rebuild`: drop the target's secondary indexes before the load (and, for `truncate`, primary "
                    + "keys and unique constraints no foreign key depends on; never the one a merge finds rows by) "
                    + "and build them again after it, several at once (up to `degree`). Their exact definitions are "
                    + "kept in the ledger before anything is dropped, so a crash at any moment ends, after "
                    + "`--resume`, with every index back as it was. Needs the ledger."),
            new SpecKey(SpecKeys.RESET_SEQUENCES, Scope.SETTING,
                    "boolean",
                    "`true` for `truncate`, `replace` and a created table, else `false`",
                    "After the load, move each sequence that fills an identity or serial column of the target, or "
                    + "that a column's default draws from, past the largest value loaded (never backwards)."),
            new SpecKey(SpecKeys.SCHEMA_CHANGES, Scope.SETTING,
                    oneOf(SchemaChanges.class),
                    "`fail`",
                    "What a run does when the source's columns no longer match the target table's (by name); see "
                    + "\"Schema changes\" below."),
            new SpecKey(SpecKeys.COLUMNS, Scope.STREAM,
                    "mapping",
                    "none",
                    "Rules by source column name: `exclude`, `rename`, `type`, `expression`, `mask`; see \"Columns "
                    + "shaped on the way\" below."),
            new SpecKey(SpecKeys.MASK_KEY, Scope.STREAM,
                    "secret string, 16+ characters",
                    "none",
                    "The key of `mask: hash`, written as `${VAR}` or `${file:PATH}` (a literal is refused, "
                    + "SPEC030). A PostgreSQL source never gets it in SQL text (which the server logs with a "
                    + "statement that fails): the hash reads `current_setting('sluice.mask_key_1')`, set in each "
                    + "reading transaction with a bound parameter. A server that logs every statement with its "
                    + "parameters (`log_statement = all`) still logs it."),
            new SpecKey(SpecKeys.CHECKS, Scope.STREAM,
                    "list",
                    "none",
                    "Assertions on what was loaded, evaluated before the data goes live; see \"Checks\" below."),
            new SpecKey(SpecKeys.BEFORE, Scope.STREAM,
                    "SQL string or list",
                    "none",
                    "Run on the target before the load prepares the table (before `create: if-missing` creates "
                    + "it), once per run; see \"Hooks\" below."),
            new SpecKey(SpecKeys.AFTER, Scope.STREAM,
                    "SQL string or list",
                    "none",
                    "Run on the target once the stream is done and verified, once per run; see \"Hooks\" below."),
            new SpecKey(SpecKeys.COLUMN_MAPPING, Scope.SETTING,
                    oneOf(ColumnMapping.class),
                    code(SpecKeys.spelling(SpecKeys.DEFAULT_COLUMN_MAPPING)),
                    "`name`: source columns go to target columns of the same name (exact, then case-insensitive). "
                    + "`position`: the n-th source column to the n-th target column. Generated target columns: see "
                    + "[postgres.md](postgres.md#target)."),
            new SpecKey(SpecKeys.CONSISTENCY, Scope.SETTING,
                    oneOf(Consistency.class),
                    code(SpecKeys.spelling(SpecKeys.DEFAULT_CONSISTENCY)),
                    "`snapshot`: all partitions read one snapshot of the source where the source supports it "
                    + "(PostgreSQL; a DuckDB source has none to share, and `sluice plan` says so); the streams of a "
                    + "run that read one PostgreSQL connection read one snapshot together, held until the run ends "
                    + "(docs/postgres.md, \"One moment across tables\"). `none`: each partition reads what is "
                    + "committed when it starts."),
            new SpecKey(SpecKeys.VERIFY, Scope.SETTING,
                    oneOf(VerifyMode.class),
                    code(SpecKeys.spelling(SpecKeys.DEFAULT_VERIFY)),
                    "After the load, compare each partition on both sides: `count` row counts; `checksum` an "
                    + "order-independent hash (PostgreSQL to PostgreSQL). `compare`: every row, as `sluice compare` "
                    + "does, against the run's own source snapshot, before the load goes live (see \"verify: "
                    + "compare\" below). Rows read always equal rows written per partition regardless."),
            new SpecKey(SpecKeys.RETRY, Scope.SETTING,
                    "mapping",
                    "see below",
                    "Retries of a partition after a transient failure."),
            new SpecKey(SpecKeys.LOCK_TIMEOUT, Scope.SETTING,
                    "duration",
                    code(SpecKeys.spelling(SpecKeys.DEFAULT_LOCK_TIMEOUT)),
                    "Longest wait for a lock someone else holds: the target table (a `LOCK TABLE`, a long "
                    + "transaction reading it while a truncate waits), the source tables (a queued `TRUNCATE`), or "
                    + "the target's ownership by another run. Meanwhile the progress line and the log say `waiting "
                    + "for lock on ... held by pid N (...)`; after it the run fails naming the table and the "
                    + "blocking backend (PG420; PG421 for another run, exit 4). `0s` waits without limit. Not part "
                    + "of the stream's definition: changing it on `--resume` is fine."),
            new SpecKey(SpecKeys.REJECTS, Scope.SETTING,
                    "mapping `{ table, max-rows, max-ratio }`",
                    "none",
                    "Rows that cannot be loaded go to `table` (in the target's database; created when missing) "
                    + "with the reason, instead of failing their partition, until there are more than `max-rows` in "
                    + "the run or more than `max-ratio` of the rows read; see \"Bad rows\" below."),
            new SpecKey(SpecKeys.NUL_BYTES, Scope.SETTING,
                    oneOf(BadRows.NulBytes.class),
                    "`reject` with `rejects:`, else `fail`",
                    "A NUL character in a text value (PostgreSQL text cannot hold one): removed from the value, "
                    + "the row set aside, or left for the server to refuse (the partition fails, as before). See "
                    + "\"Bad rows\" below."),
            new SpecKey(SpecKeys.INCREMENTAL, Scope.STREAM,
                    "mapping `{ cursor: EXPR }`, `{ new-files: true }` or `{ new-snapshots: true }`",
                    "none",
                    "`new-files` (a DuckDB `files:` source, one partition per file): each run loads only the files "
                    + "no successful run loaded before, same name, size and modification time. `new-snapshots` (a "
                    + "DuckDB `iceberg:` or `delta:` source): each run loads only the data files the table's "
                    + "versions since the last successful run's added; a delete or rewrite in between is refused "
                    + "(DUCK020). `cursor`: each run reads only the rows whose `cursor` (a column or SQL expression "
                    + "of a PostgreSQL table or query source, whose values only grow: numbers, timestamps, dates, "
                    + "text) is above the highest value the last successful run read, and at most the highest value "
                    + "when this run plans; the first run reads everything, `sluice run --full-refresh` does once. "
                    + "See \"Incremental loads\" below. Needs the ledger and `verify: none` (SPEC027). `incremental: "
                    + "{ cursor: updated_at }`"));

    private SpecReference() {
    }

    /** The names of {@code keys} in {@code scopes}. */
    static List<String> names(List<SpecKey> keys, Scope... scopes) {
        List<Scope> wanted = List.of(scopes);
        return keys.stream().filter(k -> wanted.contains(k.scope())).map(SpecKey::name).toList();
    }

    /** The markdown table of {@code keys}, as docs/spec.md holds it between its spec-keys markers. */
    static String table(List<SpecKey> keys) {
        StringBuilder out = new StringBuilder("| Key | Type | Default | Meaning |\n|---|---|---|---|\n");
        for (SpecKey key : keys) {
            out.append("| `").append(key.name()).append("` | ").append(cell(key.values())).append(" | ")
                    .append(cell(key.defaultValue())).append(" | ").append(cell(key.meaning())).append(" |\n");
        }
        return out.toString();
    }

    /** {@code doc} with each spec-keys block (top, stream) replaced by its generated table. */
    static String updated(String doc) {
        return replaceBlock(replaceBlock(doc, "top", TOP), "stream", STREAM);
    }

    private static String replaceBlock(String doc, String name, List<SpecKey> keys) {
        String start = "<!-- spec-keys: " + name + " -->\n";
        String end = "<!-- /spec-keys: " + name + " -->";
        int from = doc.indexOf(start);
        int to = doc.indexOf(end);
        if (from < 0 || to < from) {
            throw new IllegalArgumentException("docs/spec.md has no block " + start.strip() + " ... " + end);
        }
        return doc.substring(0, from + start.length()) + table(keys) + doc.substring(to);
    }

    private static String cell(String text) {
        return text.replace("|", "\\|");
    }

    private static <E extends Enum<E>> String oneOf(Class<E> type) {
        return SpecKeys.spellings(type).stream().map(SpecReference::code).collect(Collectors.joining(" | "));
    }

    private static String code(String text) {
        return "`" + text + "`";
    }
}
