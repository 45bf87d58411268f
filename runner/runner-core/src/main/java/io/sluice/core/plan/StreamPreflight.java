package io.sluice.core.plan;

import io.sluice.core.RunnerCode;
import io.sluice.core.SluiceException;
import io.sluice.core.spec.StreamSpec;
import io.sluice.core.spec.VerifyMode;
import io.sluice.spi.data.Column;
import io.sluice.spi.data.LockWaits;
import io.sluice.spi.data.RelationIdentity;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.read.Consistency;
import io.sluice.spi.read.Source;
import io.sluice.spi.read.SourceProjection;
import io.sluice.spi.write.LoadPlan;
import io.sluice.spi.write.LoadRequest;
import io.sluice.spi.write.PlannedLoad;
import io.sluice.spi.write.Target;

import java.util.List;
import java.util.Optional;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * What {@code sluice plan} and {@code sluice lint --connect} both check of one stream against its servers, written
 * once so the two cannot disagree: the source and its columns, the target's plan of the load (the table, or the one
 * {@code create: if-missing} makes; merge keys, a replace's dependents and the like), that the source does not read
 * the table the target writes, and that every column maps and converts. It reads catalogs only: no data is scanned
 * and nothing is written. Each step hands what it refuses to {@link Problems}: the planner's throws at the first,
 * lint's collects every side's and goes on where it can.
 */
public final class StreamPreflight {
    /** Which part of the stream a refusal is about. */
    public enum Side {
        SOURCE, TARGET, COLUMNS;

        public String spelled() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** Where a preflight's refusals go. */
    @FunctionalInterface
    public interface Problems {
        /**
         * A step refused the stream: {@code problem} is a {@link ConnectorException}, a {@link SluiceException}, or
         * any other runtime exception (a connector's bug); {@code subject} says what was checked, e.g. {@code source
         * (connection 'src')}. The steps that need what this one would have found are skipped.
         */
        void refused(Side side, String subject, Exception problem);
    }

    /** What passed: the live source and target, the target's plan, and the columns as copied. */
    public record Checked(Source source, List<Column> sourceColumns, Target target, PlannedLoad planned,
                          Set<RelationIdentity> reads, Optional<RelationIdentity> writes, ColumnMappingPlan mapping,
                          SourceProjection projection) {
        public Checked {
            requireNonNull(source, "source is null");
            sourceColumns = List.copyOf(requireNonNull(sourceColumns, "sourceColumns is null"));
            requireNonNull(target, "target is null");
            requireNonNull(planned, "planned is null");
            reads = Set.copyOf(requireNonNull(reads, "reads is null"));
            requireNonNull(writes, "writes is null");
            requireNonNull(mapping, "mapping is null");
            requireNonNull(projection, "projection is null");
        }

        /** What the target decided for the load. */
        public LoadPlan load() {
            return planned.plan();
        }
    }

    private StreamPreflight() {
    }

    /**
     * Checks {@code stream} for a load whose index builds may run {@code degree} at once; returns what passed, empty
     * when a step was refused (and reported to {@code problems}).
     */
    public static Optional<Checked> check(StreamSpec stream, Connections connections, int degree,
                                          Problems problems) {
        return check(stream, connections, degree, StreamChecks.History.NONE, false, LoadRequest.Scope.ALL, problems);
    }

    /**
     * As above, {@code history} giving the checks' values of the stream's last done run (a rows ratio's base);
     * {@code fullRefresh}: an incremental stream reads every row this once; {@code scope}: what of the load the run does.
     */
    public static Optional<Checked> check(StreamSpec stream, Connections connections, int degree,
                                          StreamChecks.History history, boolean fullRefresh, LoadRequest.Scope scope,
                                          Problems problems) {
        requireNonNull(stream, "stream is null");
        requireNonNull(connections, "connections is null");
        requireNonNull(problems, "problems is null");
        String sourceSubject = "source (connection '" + stream.source().connection() + "')";
        Source source = null;
        List<Column> sourceColumns = null;
        try {
            source = ShapedSource.of(Endpoints.source(connections.get(stream.source().connection()),
                    stream.source().options()), stream.columnRules(), stream.name());
            sourceColumns = source.columns();
            if (source.changes().isPresent()) {
                source.changes().get().checkChanges(false); // the source's own refusals before the target's
            }
        } catch (ConnectorException | RuntimeException e) {
            problems.refused(Side.SOURCE, sourceSubject, e);
            source = null;
        }

        String targetSubject = "target (connection '" + stream.target().connection() + "')";
        Target target = null;
        PlannedLoad planned = null;
        try {
            target = Endpoints.target(connections.get(stream.target().connection()), stream.target().options());
            // Planning reads the target (and its ledger) too: it waits no longer for a lock than the run will.
            target.waitForLocks(LockWaits.silent(stream.lockTimeout()));
            if (source != null) {
                if (source.changes().isPresent()) {
                    ChangeFollowChecks.refuse(stream, target);
                }
                LoadRequest request = stream.load().request(degree);
                if (!stream.hooks().before().isEmpty()) {
                    request = request.withBeforeHook();
                }
                if (!stream.checks().isEmpty()) {
                    request = request.withChecks(StreamChecks.of(stream.checks(), target, history));
                }
                if (stream.rejects().isPresent()) {
                    request = request.withRejects(stream.rejects().get().table());
                }
                if (stream.incremental().isPresent() && !fullRefresh) {
                    request = request.withNewRowsOnly();
                }
                request = request.withScope(scope);
                planned = target.planLoad(request, source);
                // The columns a check names are those of the table as the load leaves it (created, changed).
                StreamChecks.requireColumns(stream.name(), stream.checks(), planned.plan().table());
            } else {
                target.table(); // the target's own problems, told apart from the source's
            }
        } catch (ConnectorException | RuntimeException e) {
            problems.refused(Side.TARGET, targetSubject, e);
            planned = null;
        }
        if (source == null || planned == null) {
            return Optional.empty();
        }
        LoadPlan load = planned.plan();

        Set<RelationIdentity> reads;
        Optional<RelationIdentity> writes;
        try {
            writes = planned.relation();
            reads = writes.isPresent() || stream.consistency() == Consistency.SNAPSHOT ? source.relations() : Set.of();
            refuseReadingTheTarget(stream, reads, writes);
            if (load.rejects().isPresent()) {
                Set<RelationIdentity> read = stream.consistency() == Consistency.SNAPSHOT || writes.isPresent()
                        ? reads : source.relations();
                refuseRejectsReadByTheSource(stream, read, load.rejects().get());
            }
        } catch (ConnectorException | RuntimeException e) {
            problems.refused(Side.TARGET, targetSubject, e);
            return Optional.empty();
        }

        String table = load.table().qualifiedName();
        try {
            Source read = source;
            ColumnMappingPlan mapping = ColumnMapper.plan(stream.name(), sourceColumns, load.table().columns(),
                    stream.columnMapping(), stream.load().schemaChanges(), table, c -> typeCreatedFor(read, c));
            SourceProjection projection = source.project(mapping.copied());
            if (stream.verify() == VerifyMode.COMPARE) {
                projection.requireComparable();
            }
            return Optional.of(new Checked(source, sourceColumns, target, planned, reads, writes, mapping,
                    projection));
        } catch (ConnectorException | RuntimeException e) {
            problems.refused(Side.COLUMNS, "columns of " + table, e);
            return Optional.empty();
        }
    }

    /** The type {@code create: if-missing} would give {@code column}: what the fix to add it names. */
    private static String typeCreatedFor(Source source, Column column) {
        try {
            return source.copyColumns().stream().filter(c -> c.name().equals(column.name())).findFirst()
                    .map(Column::typeName).orElse(column.typeName());
        } catch (ConnectorException | RuntimeException e) {
            return column.typeName(); // only a fix's wording: the column's own type says as much
        }
    }

    /** Rows set aside into a table the source reads would be read again (or lost to a truncate). */
    private static void refuseRejectsReadByTheSource(StreamSpec stream, Set<RelationIdentity> reads,
                                                     RelationIdentity rejects) {
        for (RelationIdentity read : reads) {
            if (read.key().equals(rejects.key())) {
                throw new SluiceException(ErrorKind.PREFLIGHT, RunnerCode.PLAN010, "stream '" + stream.name()
                        + "': the rejects table " + rejects.display() + " is a table the source reads: rows set "
                        + "aside would be read back", "name a rejects table of its own (the run creates it)")
                        .at(stream.rejects().orElseThrow().position());
            }
        }
    }

    /**
     * A stream whose source reads its own target destroys or multiplies rows (a truncate empties the table its
     * snapshot then reads as empty; one worker waits on its own lock forever; an append copies its own output), so it
     * is refused, however the two connections spell the server.
     */
    private static void refuseReadingTheTarget(StreamSpec stream, Set<RelationIdentity> reads,
                                               Optional<RelationIdentity> written) {
        if (written.isEmpty()) {
            return;
        }
        for (RelationIdentity read : reads) {
            if (read.key().equals(written.get().key())) {
                boolean sameConnection = stream.source().connection().equals(stream.target().connection());
                throw new SluiceException(ErrorKind.PREFLIGHT, RunnerCode.PLAN001, "stream '" + stream.name()
                        + "': the source reads the target table " + written.get().display() + (sameConnection ? ""
                        : " (connections '" + stream.source().connection() + "' and '" + stream.target().connection()
                        + "' reach the same database)") + ": a load would "
                        + (stream.load().emptiesFirst() ? "empty the rows it is about to read"
                        : "read its own output"), "load into another table (copy into a staging table first to "
                        + "rewrite a table in place)");
            }
        }
    }
}
