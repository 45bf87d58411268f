package io.sluice.testkit;

import io.sluice.spi.data.Column;
import io.sluice.spi.data.ColumnPair;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.read.Consistency;
import io.sluice.spi.read.PlanRequest;
import io.sluice.spi.read.Source;
import io.sluice.spi.read.SourcePartition;
import io.sluice.spi.read.SourceProjection;
import io.sluice.spi.read.SourceSession;
import io.sluice.spi.write.LoadMode;
import io.sluice.spi.write.LoadRequest;
import io.sluice.spi.write.PlannedLoad;
import io.sluice.spi.write.Target;

import java.util.List;

/**
 * The source a load is planned with in tests: columns only (the suites' two, or a table's own). A target reads a
 * source's description only (its columns, for a table it creates or compares); the load's rows come through the
 * writers.
 */
public final class ContractSource implements Source {
    static final ContractSource INSTANCE = new ContractSource(List.of(Column.of("id", "bigint"),
            Column.of("label", "text")));

    private final List<Column> columns;

    private ContractSource(List<Column> columns) {
        this.columns = List.copyOf(columns);
    }

    /**
     * An append load of {@code target}, planned as the runner plans one with a source shaped like its table: the
     * handle a test writes through.
     */
    public static PlannedLoad appendTo(Target target) throws ConnectorException {
        return target.planLoad(LoadRequest.of(LoadMode.APPEND), new ContractSource(target.table().columns()));
    }

    @Override
    public String describe() {
        return "the contract suite's rows";
    }

    @Override
    public List<Column> columns() {
        return columns;
    }

    /** The columns are typed in PostgreSQL's names already. */
    @Override
    public Column copyColumn(Column column) {
        return column;
    }

    @Override
    public SourceProjection project(List<ColumnPair> pairs) {
        throw new UnsupportedOperationException("a load reads no rows through its source");
    }

    @Override
    public List<SourcePartition> plan(PlanRequest request) {
        throw new UnsupportedOperationException("a load reads no rows through its source");
    }

    @Override
    public String readStatement(SourcePartition partition, SourceProjection projection) {
        throw new UnsupportedOperationException("a load reads no rows through its source");
    }

    @Override
    public SourceSession openSession(Consistency consistency) {
        throw new UnsupportedOperationException("a load reads no rows through its source");
    }
}
