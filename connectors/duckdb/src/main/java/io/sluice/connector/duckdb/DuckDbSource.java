package io.sluice.connector.duckdb;

import io.sluice.spi.data.Column;
import io.sluice.spi.data.ColumnPair;
import io.sluice.spi.data.Digest;
import io.sluice.spi.data.LineageDataset;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.read.ComputedColumns;
import io.sluice.spi.read.Consistency;
import io.sluice.spi.read.PartitionReader;
import io.sluice.spi.read.PlanRequest;
import io.sluice.spi.read.Source;
import io.sluice.spi.read.SourcePartition;
import io.sluice.spi.read.SourceProjection;
import io.sluice.spi.read.SourceRows;
import io.sluice.spi.read.SourceSession;
import io.sluice.spi.read.TableVersions;

import org.duckdb.DuckDBConnection;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import static java.util.Objects.requireNonNull;

/** A DuckDB query, file glob or Iceberg/Delta table as the source of a stream. */
final class DuckDbSource implements Source, ComputedColumns {
    private final DuckDbDatabase database;
    private final SourceRelation declared;
    /** The relation every read runs: the declared one, or a table's pinned to the version the plan found. */
    private volatile SourceRelation resolved;
    /** Planning decisions shown in the projection's notes (plan() runs after project()). */
    private final List<String> planNotes = new CopyOnWriteArrayList<>();
    private volatile List<Column> columns;

    DuckDbSource(DuckDbDatabase database, SourceRelation relation) {
        this.database = requireNonNull(database, "database is null");
        this.declared = requireNonNull(relation, "relation is null");
        this.resolved = relation.needsPin() ? null : relation;
    }

    @Override
    public String describe() {
        SourceRelation known = resolved;
        return (known == null ? declared : known).describe();
    }

    /**
     * The relation to read. An Iceberg or Delta table is pinned here, once per source, to the version asked for or
     * the newest: columns, plan and every read see that one version whatever is committed later.
     */
    private SourceRelation relation() throws ConnectorException {
        SourceRelation known = resolved;
        if (known != null) {
            return known;
        }
        synchronized (this) {
            if (resolved == null) {
                LakeTable table = declared.table().orElseThrow();
                try (DuckDBConnection connection = database.connect(DuckDbDatabase.isRemote(table.folder()))) {
                    resolved = declared.pinned(table.pin(connection));
                } catch (SQLException e) {
                    throw DuckDbErrors.translate(e, DuckDbErrors.Phase.PREFLIGHT, declared.describe(),
                            database.redactor());
                }
            }
            return resolved;
        }
    }

    /** An Iceberg or Delta table's pinned version ({@link LakeVersions}); empty for a query or files. */
    @Override
    public Optional<TableVersions> tableVersions() {
        return declared.table().isEmpty() ? Optional.empty() : Optional.of(new LakeVersions(this::pin, database));
    }

    /** The pinned version of this table source (pinning it now if no call did yet). */
    private LakeTable.Pin pin() throws ConnectorException {
        return relation().pin().orElseThrow();
    }

    /** A files: glob is one dataset, its folder ({@link FileLineage}); a query names nothing: DuckDB SQL may read anything. */
    @Override
    public List<LineageDataset> lineageInputs() {
        if (declared.table().isPresent()) {
            return List.of(FileLineage.of(declared.table().get().folder()));
        }
        return declared.glob().map(g -> List.of(FileLineage.of(g))).orElse(List.of());
    }

    @Override
    public List<Column> columns() throws ConnectorException {
        ChunkErrors.require();
        List<Column> known = columns;
        if (known != null) {
            return known;
        }
        SourceRelation relation = relation();
        List<Column> described = new ArrayList<>();
        try (DuckDBConnection connection = database.connect(DuckDbDatabase.isRemote(relation.query()));
             Statement statement = connection.createStatement();
             ResultSet rs = statement.executeQuery("DESCRIBE " + relation.query())) {
            while (rs.next()) {
                described.add(new Column(rs.getString("column_name"), rs.getString("column_type"), 0,
                        !"NO".equalsIgnoreCase(rs.getString("null")), Column.Generation.NONE));
            }
        } catch (SQLException e) {
            throw DuckDbErrors.translate(e, DuckDbErrors.Phase.PREFLIGHT, relation.describe(), database.redactor());
        }
        columns = List.copyOf(described);
        return columns;
    }

    @Override
    public SourceProjection project(List<ColumnPair> pairs) throws ConnectorException {
        List<ColumnConversion> conversions = new ArrayList<>();
        List<String> shaping = new ArrayList<>();
        boolean shaped = pairs.stream().anyMatch(p -> p.source().expression().isPresent());
        for (ColumnPair pair : pairs) {
            Column source = pair.source();
            // A columns: rule's column is computed in a select of its own first, under its new name; the
            // conversion then reads that name like any column.
            shaping.add(source.expression().orElse(Sql.identifier(source.name())) + " AS "
                    + Sql.identifier(source.name()));
            Column plain = new Column(source.name(), source.typeName(), source.copyTypeOid(), source.nullable(),
                    source.generation());
            conversions.add(Conversions.plan(plain, pair.target()));
        }
        return new DuckDbProjection(conversions, planNotes, shaped ? Optional.of(String.join(", ", shaping))
                : Optional.empty(), pairs);
    }

    @Override
    public List<SourcePartition> plan(PlanRequest request) throws ConnectorException {
        planNotes.clear();
        SourceRelation relation = relation();
        DuckDbPlanner planner = new DuckDbPlanner(relation, columns(), planNotes);
        boolean remote = DuckDbDatabase.isRemote(relation.query())
                || request.distribution().valuesQuery().map(DuckDbDatabase::isRemote).orElse(false);
        try (DuckDBConnection connection = database.connect(remote)) {
            return List.copyOf(planner.plan(connection, request));
        } catch (SQLException e) {
            throw DuckDbErrors.translate(e, DuckDbErrors.Phase.PREFLIGHT, relation.describe(), database.redactor());
        }
    }

    /**
     * A data file of an Iceberg or Delta table at the version the interrupted run pinned: a resume reads what that
     * run planned, whatever was committed since. Refused when the recorded version has other columns than the one
     * this run's projection was planned on (a schema change committed in between).
     */
    @Override
    public Optional<SourcePartition> restore(String checkpoint) throws ConnectorException {
        Optional<LakeCheckpoint.Restored> parsed = LakeCheckpoint.parse(checkpoint);
        if (parsed.isEmpty() || declared.table().isEmpty()) {
            return Optional.empty();
        }
        LakeCheckpoint.Restored r = parsed.get();
        LakeTable table = declared.table().get();
        if (r.format() != table.format() || !r.folder().equals(table.folder())) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, DuckDbCode.DUCK123, "partition " + r.id() + " was "
                    + "planned on " + r.format().name().toLowerCase(java.util.Locale.ROOT) + " table " + r.folder()
                    + ", and this stream reads " + declared.describe(), "resume with the table the run started "
                    + "with, or start a new run without --resume");
        }
        LakeTable.Pin pin = new LakeTable.Pin(table, r.metadata(), r.version());
        SourceRelation fresh = relation();
        if (!fresh.pin().equals(Optional.of(pin))) {
            requireSameColumns(pin);
        }
        return Optional.of(DuckDbPartition.of(r.id(), new LakeTable.PinnedFiles(pin, r.files()), r.rows(), r.bytes()));
    }

    private void requireSameColumns(LakeTable.Pin pin) throws ConnectorException {
        List<String> recorded = new ArrayList<>();
        try (DuckDBConnection connection = database.connect(DuckDbDatabase.isRemote(pin.table().folder()));
             Statement statement = connection.createStatement();
             ResultSet rs = statement.executeQuery("DESCRIBE " + pin.query())) {
            while (rs.next()) {
                recorded.add(rs.getString("column_name") + " " + rs.getString("column_type"));
            }
        } catch (SQLException e) {
            throw DuckDbErrors.translate(e, DuckDbErrors.Phase.PREFLIGHT, pin.describe(), database.redactor());
        }
        List<String> now = columns().stream().map(c -> c.name() + " " + c.typeName()).toList();
        if (!recorded.equals(now)) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, DuckDbCode.DUCK123, "the run being resumed read "
                    + pin.describe() + ", whose columns (" + String.join(", ", recorded) + ") are not those of "
                    + describe() + " (" + String.join(", ", now) + ") that this run planned with",
                    "start a new run without --resume: it loads the newest version whole");
        }
    }

    @Override
    public String readStatement(SourcePartition partition, SourceProjection projection) {
        return ((DuckDbProjection) projection).selectFrom(((DuckDbPartition) partition).relation());
    }

    @Override
    public SourceSession openSession(Consistency consistency) {
        return new DuckDbSession(database, declared.table().isPresent() ? "version" : "none");
    }


    /**
     * Readers share nothing but the database instance: DuckDB has no snapshot to export across connections (a
     * table's readers all read its pinned version instead: {@code snapshotMode} "version").
     */
    private record DuckDbSession(DuckDbDatabase database, String snapshotMode) implements SourceSession {

        @Override
        public PartitionReader openReader(SourcePartition partition, SourceProjection projection) {
            return new DuckDbPartitionReader(database, (DuckDbPartition) partition, (DuckDbProjection) projection);
        }

        /**
         * Counts only: a checksum would hash DuckDB's rendering of values, which is not PostgreSQL's, so the two
         * sides could never agree.
         */
        @Override
        public Optional<Digest> digest(SourcePartition partition, SourceProjection projection, Digest.Level level)
                throws ConnectorException {
            if (level != Digest.Level.COUNT) {
                return Optional.empty();
            }
            String relation = ((DuckDbPartition) partition).relation();
            try (DuckDBConnection connection = database.connect(DuckDbDatabase.isRemote(relation));
                 Statement statement = connection.createStatement();
                 ResultSet rs = statement.executeQuery("SELECT count(*) FROM (" + relation + ") AS counted")) {
                rs.next();
                return Optional.of(new Digest(rs.getLong(1), Optional.empty()));
            } catch (SQLException e) {
                throw DuckDbErrors.translate(e, DuckDbErrors.Phase.READ, partition.predicate(), database.redactor());
            }
        }

        @Override
        public Optional<SourceRows> rows() {
            return Optional.of(new DuckDbRows(database));
        }

        @Override
        public void close() {
        }
    }

    @Override
    public java.util.Optional<ComputedColumns> computedColumns() {
        return java.util.Optional.of(this);
    }

    /** The expression's DuckDB type, as DESCRIBE over the source's relation gives it. */
    @Override
    public Column expressionColumn(String name, String expression) throws ConnectorException {
        SourceRelation relation = relation();
        String sql = "DESCRIBE SELECT " + expression + " AS " + Sql.identifier(name) + " FROM (" + relation.query()
                + ") AS sluice_r";
        try (DuckDBConnection connection = database.connect(DuckDbDatabase.isRemote(relation.query()));
             Statement statement = connection.createStatement();
             ResultSet rs = statement.executeQuery(sql)) {
            rs.next();
            return new Column(name, rs.getString("column_type"), 0, true, Column.Generation.NONE);
        } catch (SQLException e) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, DuckDbCode.DUCK105,
                    "columns: expression " + expression + " (for column " + name + ") is not valid on " + relation.describe() + ": "
                    + database.redactor().redact(String.valueOf(e.getMessage()).lines().findFirst().orElse("")),
                    "write DuckDB SQL over the source's columns, e.g. lower(email)");
        }
    }

    /** As the PostgreSQL source computes it, so both give the same text: {@code H(key || H(key || value))}. */
    @Override
    public String keyedHash(String reference, String keyLiteral) {
        return "sha256(" + keyLiteral + " || sha256(" + keyLiteral + " || " + reference + "))";
    }

    @Override
    public Column copyColumn(Column column) throws ConnectorException {
        return CreatedType.of(column);
    }
}
