package io.sluice.connector.postgres.read;

import io.sluice.connector.postgres.catalog.ResolvedTable;
import io.sluice.connector.postgres.changes.ChangeSlot;
import io.sluice.connector.postgres.changes.PostgresChangeFeed;
import io.sluice.connector.postgres.session.ControlConnection;
import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.connector.postgres.session.PostgresErrors;
import io.sluice.connector.postgres.session.TableLocks;
import io.sluice.spi.changes.ChangeFeed;
import io.sluice.spi.changes.ChangeSource;
import io.sluice.spi.data.SharedSnapshot;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The change feed a PostgreSQL table source follows ({@code changes:}): its slot and publication, the snapshot the copy
 * reads, the feed opened at the ledger's position. The members of a feed are these objects of its streams' sources.
 */
final class PostgresChangeSource implements ChangeSource {
    private final PostgresSource source;
    private final ChangeSlot slot;
    private final PostgresConnections connections;

    PostgresChangeSource(PostgresSource source, ChangeSlot slot) {
        this.source = requireNonNull(source, "source is null");
        this.connections = source.connections();
        this.slot = requireNonNull(slot, "slot is null");
    }

    @Override
    public String toString() {
        return source.describe();
    }

    @Override
    public String feed() {
        return slot.slot();
    }

    /** The lockable tables of {@code members}, each once, checked to be of this source's group. */
    private java.util.Set<ResolvedTable> tablesOf(List<ChangeSource> members) throws ConnectorException {
        java.util.Set<ResolvedTable> tables = new java.util.LinkedHashSet<>();
        for (ChangeSource member : members) {
            if (!(member instanceof PostgresChangeSource c) || c.connections != connections) {
                throw new IllegalArgumentException(member + " is not of this source's snapshot group");
            }
            tables.addAll(c.source.lockableTables());
        }
        return tables;
    }

    @Override
    public void checkChanges(boolean established) throws ConnectorException {
        try (ControlConnection control = connections.control("checking the change feed of " + source.describe())) {
            slot.check(control.connection(), source.tablesRead(), established);
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "cannot check the change feed "
                    + "of " + source.describe());
        }
    }

    @Override
    public List<ChangeSource> newToChanges(List<ChangeSource> sources) throws ConnectorException {
        requireNonNull(sources, "sources is null");
        try (ControlConnection control = connections.control("reading the publication of slot "
                + slot.slot())) {
            java.util.Set<ResolvedTable> unpublished = slot.unpublished(control.connection(), tablesOf(sources));
            List<ChangeSource> joining = new java.util.ArrayList<>();
            for (ChangeSource member : sources) {
                if (tablesOf(List.of(member)).stream().anyMatch(unpublished::contains)) {
                    joining.add(member);
                }
            }
            return joining;
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "cannot read the publication of "
                    + "slot " + slot.slot());
        }
    }

    @Override
    public void joinChanges(List<ChangeSource> sources) throws ConnectorException {
        requireNonNull(sources, "sources is null");
        try (ControlConnection control = connections.control("adding tables to the change feed of slot "
                + slot.slot())) {
            slot.publish(control.connection(), tablesOf(sources));
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "cannot add tables to the "
                    + "publication of slot " + slot.slot());
        }
    }

    /**
     * The publication (when missing), then ACCESS SHARE on every table, then the slot, whose exported snapshot the
     * copy reads: no DDL slips between the two, and the slot's first change is the first one the copy did not see.
     * The replication connection stays idle until the snapshot closes, which keeps the snapshot importable.
     */
    @Override
    public SharedSnapshot startChanges(List<ChangeSource> sources) throws ConnectorException {
        requireNonNull(sources, "sources is null");
        List<ResolvedTable> tables = List.copyOf(tablesOf(sources));
        PostgresSnapshotGroup.requireLockRoom(connections, tables.size(), sources.size());
        Connection coordinator = null;
        Connection replication = null;
        try (ControlConnection control = connections.control("starting the change feed of slot " + slot.slot())) {
            slot.check(control.connection(), tables, false);
            slot.ensurePublication(control.connection(), tables);
            slot.dropIfIdle(control.connection());
            int major = control.connection().getMetaData().getDatabaseMajorVersion();
            coordinator = connections.open("the locks of the change feed of slot " + slot.slot());
            coordinator.setAutoCommit(false);
            new TableLocks(connections, source.lockWaits()).lock(coordinator, tables.stream().map(ResolvedTable::quoted)
                    .toList(), TableLocks.Mode.ACCESS_SHARE, "read it", ErrorKind.PREFLIGHT);
            replication = connections.openReplication("creating slot " + slot.slot());
            ChangeSlot.Created created = slot.create(replication, major);
            Connection heldLocks = coordinator;
            Connection heldSnapshot = replication;
            return new SharedSnapshot() {
                @Override
                public String id() {
                    return created.snapshot();
                }

                @Override
                public Optional<String> changesFrom() {
                    return Optional.of(created.consistentPoint());
                }

                @Override
                public void close() {
                    PostgresConnections.closeQuietly(heldSnapshot);
                    PostgresConnections.closeQuietly(heldLocks);
                }
            };
        } catch (SQLException e) {
            PostgresConnections.closeQuietly(replication);
            PostgresConnections.closeQuietly(coordinator);
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "cannot start the change feed "
                    + "of slot " + slot.slot());
        } catch (ConnectorException | RuntimeException e) {
            PostgresConnections.closeQuietly(replication);
            PostgresConnections.closeQuietly(coordinator);
            throw e;
        }
    }

    @Override
    public ChangeFeed openChanges(List<ChangeSource> sources, String from) throws ConnectorException {
        requireNonNull(sources, "sources is null");
        return PostgresChangeFeed.open(connections, slot, from, List.copyOf(tablesOf(sources)));
    }
}
