package io.sluice.spi.read;

import io.sluice.spi.changes.ChangeSource;
import io.sluice.spi.data.Column;
import io.sluice.spi.data.ColumnPair;
import io.sluice.spi.data.LineageDataset;
import io.sluice.spi.data.LockWaits;
import io.sluice.spi.data.RelationIdentity;
import io.sluice.spi.data.TableDefinition;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.error.SpiCode;

import java.util.List;

/**
 * The reading side of one stream. Lifecycle driven by the runner: {@link #columns()} (preflight) -&gt;
 * {@link #project} -&gt; {@link #plan} -&gt; {@link #openSession(Consistency)} -&gt; one reader per partition.
 */
public interface Source {
    /** What is read, for people: a qualified table name, {@code query}, or a file glob. No secrets. */
    String describe();

    /** The columns the source yields, in order. Fails with PREFLIGHT when the object is missing or unreadable. */
    List<Column> columns() throws ConnectorException;

    /**
     * Decides how each mapped column is read for its target type (casts, encodings) and the COPY format of the
     * stream. Fails with INVALID_SPEC naming the column, both types and the fix when a column cannot be converted.
     */
    SourceProjection project(List<ColumnPair> pairs) throws ConnectorException;

    /** Splits the source into partitions. Every row lands in exactly one partition. */
    List<SourcePartition> plan(PlanRequest request) throws ConnectorException;

    /** Rebuilds a partition from its {@link SourcePartition#checkpoint()}; empty when this source cannot. */
    default java.util.Optional<SourcePartition> restore(String checkpoint) throws ConnectorException {
        return java.util.Optional.empty();
    }

    /** The exact statement a partition's reader runs, for {@code sluice plan}. */
    String readStatement(SourcePartition partition, SourceProjection projection);

    /**
     * Opens what the readers share: with SNAPSHOT, a snapshot all readers import (held until the session closes).
     * Readers of one session run concurrently, as many as the runner needs.
     */
    SourceSession openSession(Consistency consistency) throws ConnectorException;

    /**
     * Called at plan time when the stream asks {@code consistency: snapshot} with {@code readers} readers: refuses
     * (naming what is missing, e.g. a privilege) what {@link #openSession(Consistency)} would later be refused, so
     * {@code sluice plan} and {@code lint --connect} find it before a run starts. The default checks nothing.
     */
    default void checkSnapshot(int readers) throws ConnectorException {
    }

    /**
     * This source as a member of a group of sources that read one connection and can read one snapshot together;
     * empty (the default) when it cannot share one with other streams.
     */
    default java.util.Optional<SnapshotGroup> snapshotGroup() {
        return java.util.Optional.empty();
    }

    /**
     * The feed of row changes this source's table follows after its copy ({@code changes:}); empty when it follows
     * none (or its connector cannot follow changes). Sources of one {@link #snapshotGroup()} with one feed share it.
     */
    default java.util.Optional<ChangeSource> changes() {
        return java.util.Optional.empty();
    }

    /**
     * The stored relations this source reads (a table, or the tables and views a query reads), for the runner's
     * same-table check. Empty when the source cannot tell (files, say).
     */
    default java.util.Set<RelationIdentity> relations() throws ConnectorException {
        return java.util.Set.of();
    }

    /**
     * How the session waits for locks on what it reads (e.g. the locks that keep a source table from being
     * truncated under a snapshot). Called once, before {@link #openSession(Consistency)}.
     */
    default void waitForLocks(LockWaits waits) {
        java.util.Objects.requireNonNull(waits, "waits is null");
    }

    /**
     * The reads an incremental stream's cursor needs ({@code incremental: { cursor: ... }}); empty when this source
     * cannot load incrementally by a cursor (refused, SPI006). For sources whose capabilities say they read windows.
     */
    default java.util.Optional<CursorReads> cursorReads() {
        return java.util.Optional.empty();
    }

    /**
     * Its ability to read one version of a versioned table, fixed at plan (and so to follow new versions with
     * {@code incremental: { new-snapshots: true }}); empty (the default) for a source that reads whatever is there
     * when a partition starts.
     */
    default java.util.Optional<TableVersions> tableVersions() {
        return java.util.Optional.empty();
    }

    /**
     * The source's columns typed as its binary COPY stream carries them ({@link Column#typeName()} the type's name in
     * the COPY format, a PostgreSQL type name; {@link Column#copyTypeOid()} its OID): what a target table created from the source ({@code create: if-missing}) gets, so the table
     * and the load never disagree. The default types each column by {@link #copyColumn}: a source whose columns
     * are PostgreSQL columns needs neither, one that maps its own types overrides that one only.
     */
    default java.util.List<Column> copyColumns() throws ConnectorException {
        java.util.List<Column> typed = new java.util.ArrayList<>();
        for (Column column : columns()) {
            typed.add(copyColumn(column));
        }
        return typed;
    }

    /**
     * The statement that creates the type {@code typeName} (an enum, a domain, a composite or range type of the
     * source), for the fix of an error that a target lacks it. Empty when the source cannot tell.
     */
    default java.util.Optional<String> typeDefinition(String typeName) throws ConnectorException {
        java.util.Objects.requireNonNull(typeName, "typeName is null");
        return java.util.Optional.empty();
    }

    /**
     * The stored table this source copies whole, row for row (a table, not a query over one), for the runner to tell
     * a target which of its tables holds the copy of a table another one refers to. Empty (the default) otherwise.
     */
    default java.util.Optional<RelationIdentity> copiedTable() throws ConnectorException {
        return java.util.Optional.empty();
    }

    /**
     * What defines the table this source reads beyond its columns (keys, constraints, defaults, identity, indexes,
     * partitioning, comments, the types its columns need), for a target that creates its copy. Empty (the default)
     * when the source reads no single table or cannot tell.
     */
    default java.util.Optional<TableDefinition> tableDefinition() throws ConnectorException {
        return java.util.Optional.empty();
    }

    /** Where readers may run ({@link io.sluice.spi.connector.SourceCapabilities#readerThreads()}). */
    enum ThreadModel {
        VIRTUAL,
        PLATFORM
    }

    /**
     * What this source reads, named for lineage (OpenLineage's naming): the tables, or the files' folder. Empty when
     * it cannot tell (a query it does not parse), which leaves the run's lineage without inputs, nothing else.
     */
    default java.util.List<LineageDataset> lineageInputs() throws ConnectorException {
        return java.util.List.of();
    }

    /**
     * The source's ability to compute columns from expressions and masks in its own dialect; empty (the default) when
     * it cannot, which refuses such {@code columns:} rules at plan (SPI009).
     */
    default java.util.Optional<ComputedColumns> computedColumns() {
        return java.util.Optional.empty();
    }

    /**
     * The objects of the schema the source's table is in beyond its tables (functions, views, triggers, policies...),
     * for a target that carries the whole schema ({@code objects: all}); empty (the default) when the source cannot
     * read them or reads no table, which refuses that option at plan.
     */
    default java.util.Optional<SchemaObjects> schemaObjects() throws ConnectorException {
        return java.util.Optional.empty();
    }

    /**
     * {@code column}, one of this source's or computed by it ({@link ComputedColumns#expressionColumn}), typed as a
     * created table gets it, as {@link #copyColumns()} types the source's own. The default takes a column that has
     * a PostgreSQL type as it is.
     */
    default Column copyColumn(Column column) throws ConnectorException {
        java.util.Objects.requireNonNull(column, "column is null");
        if (column.copyTypeOid() == 0) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, SpiCode.SPI008, describe() + " cannot say which "
                    + "PostgreSQL type column " + column.name() + " has", "give the column a type: in its columns: "
                    + "rule, or create the target table yourself");
        }
        return column;
    }
}
