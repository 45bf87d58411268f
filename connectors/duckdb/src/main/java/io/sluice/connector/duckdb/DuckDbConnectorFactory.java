package io.sluice.connector.duckdb;

import io.sluice.spi.connector.ConnectionConfig;
import io.sluice.spi.connector.Connector;
import io.sluice.spi.connector.ConnectorFactory;
import io.sluice.spi.connector.Option;
import io.sluice.spi.connector.OptionSchema;
import io.sluice.spi.connector.Options;
import io.sluice.spi.connector.Problem;
import io.sluice.spi.connector.Role;
import io.sluice.spi.connector.SourceCapabilities;
import io.sluice.spi.connector.StreamShape;
import io.sluice.spi.read.DistributionMethod;
import io.sluice.spi.read.IncrementalMode;
import io.sluice.spi.read.Source;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import static io.sluice.connector.duckdb.DuckDbCode.DUCK001;
import static io.sluice.connector.duckdb.DuckDbCode.DUCK002;
import static io.sluice.connector.duckdb.DuckDbCode.DUCK004;
import static io.sluice.connector.duckdb.DuckDbCode.DUCK011;

public final class DuckDbConnectorFactory implements ConnectorFactory {
    @Override
    public String name() {
        return "duckdb";
    }

    @Override
    public String description() {
        return "DuckDB source: any DuckDB query, Parquet/CSV/JSON files, or Iceberg and Delta tables, local or on S3";
    }

    @Override
    public Set<Role> roles() {
        return EnumSet.of(Role.SOURCE);
    }

    @Override
    public OptionSchema connectionOptions() {
        return DuckDbOptions.CONNECTION;
    }

    @Override
    public OptionSchema sourceOptions() {
        return DuckDbOptions.SOURCE;
    }

    /** The duckdb_jdbc that runs, how values and text are read from it and whether its mid-query failures can be caught. */
    @Override
    public List<String> runtimeNotes() {
        return List.of(DuckDbJdbcVersion.runtime().describe(), VectorCells.selection().describe(),
                StringCells.selection().describe(), ChunkErrors.describe());
    }

    /**
     * No ctid, and no method follows rows per partition: each partition runs the whole query, so the planner makes
     * degree partitions, or one per file or value (see {@link DuckDbPlanner}).
     */
    static final SourceCapabilities SOURCE_CAPABILITIES = new SourceCapabilities(EnumSet.of(DistributionMethod.NONE,
            DistributionMethod.DATA_DRIVEN, DistributionMethod.RANGE, DistributionMethod.MODULO,
            DistributionMethod.NTILE), Set.of(), false,
            // DuckDB calls are JNI and pin a virtual thread's carrier (a sleeper stalled 2.2 s next to a query).
            Source.ThreadModel.PLATFORM,
            // a files: source's plan is one partition per file, versioned by its size and modification time; an
            // iceberg:/delta: source's, one per data file of a pinned table version
            Set.of(IncrementalMode.NEW_FILES, IncrementalMode.NEW_SNAPSHOTS),
            // sluice compare: values printed as PostgreSQL prints them, hashed by RowHash.PORTABLE
            true);

    @Override
    public SourceCapabilities sourceCapabilities() {
        return SOURCE_CAPABILITIES;
    }

    @Override
    public List<Problem> lintStream(StreamShape stream) {
        if (stream.role() != Role.SOURCE) {
            return List.of();
        }
        Options options = stream.options();
        List<String> set = new ArrayList<>();
        for (Option<String> option : SourceRelation.WHAT) {
            if (options.isSet(option)) {
                set.add(option.key());
            }
        }
        List<Problem> problems = new ArrayList<>();
        if (set.size() != 1) {
            problems.add(Problem.error(DUCK001, set.isEmpty() ? "query" : set.get(set.size() - 1),
                    "a duckdb source needs exactly one of query, files, iceberg or delta"
                            + (set.isEmpty() ? "" : "; it sets " + String.join(" and ", set)),
                    "set query: to DuckDB SQL, files: to a glob such as data/*.parquet, or iceberg:/delta: to a "
                            + "table's folder"));
        }
        boolean table = set.contains(DuckDbOptions.ICEBERG.key()) || set.contains(DuckDbOptions.DELTA.key());
        for (Option<?> tableOnly : List.of(DuckDbOptions.VERSION, DuckDbOptions.WHERE)) {
            if (options.isSet(tableOnly) && !table) {
                problems.add(Problem.error(DUCK004, tableOnly.key(), tableOnly.key() + " applies to iceberg: and "
                        + "delta: tables", "remove " + tableOnly.key() + ", or read a table with iceberg: or delta:"
                        + (tableOnly == DuckDbOptions.WHERE ? " (a query: source filters in its SQL)" : "")));
            }
        }
        if (table && options.isSet(DuckDbOptions.FORMAT)) {
            problems.add(Problem.error(DUCK002, DuckDbOptions.FORMAT.key(), "format applies to files:, not to a "
                    + "table", "remove format: the table says its own"));
        }
        // A method outside sourceCapabilities() (ctid) is the core's SPEC016 in lint; DUCK010 is the planner's.
        if (stream.distribution().method() == DistributionMethod.DATA_DRIVEN
                && stream.distribution().valuesQuery().isEmpty()) {
            problems.add(Problem.error(DUCK011, "distribution",
                    "data-driven on a DuckDB source needs a values-query",
                    "e.g. values-query: select file from glob('data/*.parquet')"));
        }
        return problems;
    }

    @Override
    public Connector create(ConnectionConfig config) {
        return new DuckDbConnector(DuckDbSettings.from(config));
    }
}
