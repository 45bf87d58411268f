package io.sluice.connector.postgres.write;

import io.sluice.connector.postgres.catalog.PostgresCode;
import io.sluice.connector.postgres.catalog.QualifiedName;
import io.sluice.connector.postgres.catalog.SqlQuote;
import io.sluice.connector.postgres.session.ControlConnection;
import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.connector.postgres.session.PostgresErrors;
import io.sluice.connector.postgres.session.ServerRoles;
import io.sluice.connector.postgres.write.load.CarriedObjects;
import io.sluice.spi.data.TableDefinition;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.read.SchemaObject;
import io.sluice.spi.read.Source;
import io.sluice.spi.write.LoadMode;
import io.sluice.spi.write.LoadRequest;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import static java.util.Objects.requireNonNull;

/**
 * What of the source table's access rules a table the load creates gets: its grants ({@code privileges: copy}) and
 * its owner, through {@code owners:} (source role -> target role; grants to a mapped role go to its target role too).
 * Everything is decided at plan: a rule the load could not keep is refused before anything is created (PG233), a role
 * the target server lacks (PG234), an owner the loading user cannot give the table to (PG235), a source owner the map
 * does not name (PG236). Roles belong to the server: Sluice never creates one.
 *
 * @param copyPrivileges {@code privileges: copy}
 * @param owners         {@code owners:}, empty: the loading user owns what it creates
 */
public record TableAccess(boolean copyPrivileges, Map<String, String> owners) {
    public static final TableAccess NONE = new TableAccess(false, Map.of());

    public TableAccess {
        owners = Map.copyOf(requireNonNull(owners, "owners is null"));
    }

    /**
     * The definition a table the load creates gets ({@code definition}, as the source gives it): grants kept and
     * mapped or left out, the owner mapped or left out; refused as the class says.
     */
    Optional<TableDefinition> carried(LoadRequest request, Optional<TableDefinition> definition,
                                      boolean withDefinition, Source source, QualifiedName name,
                                      PostgresConnections connections) throws ConnectorException {
        if (!copyPrivileges && owners.isEmpty()) {
            return definition.map(TableDefinition::withoutGrants).map(d -> d.withOwner(Optional.empty()));
        }
        String asked = copyPrivileges && !owners.isEmpty() ? "privileges: copy and owners:"
                : copyPrivileges ? "privileges: copy" : "owners:";
        String why = !withDefinition ? "definition: bare creates it with columns only"
                : definition.isEmpty() ? source.describe() + " gives no table definition (a query, another kind of "
                + "source, or columns: rules that reshape it)"
                : request.mode() != LoadMode.APPEND && request.mode() != LoadMode.TRUNCATE ? "a "
                + request.mode().name().toLowerCase(Locale.ROOT) + " load creates it with columns only" : "";
        if (!why.isEmpty()) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, PostgresCode.PG233, asked + " on " + name.quoted()
                    + ", which the load creates, but " + why + ": the source's access rules would be lost",
                    "remove " + asked + ", or copy a PostgreSQL table with load-mode append or truncate and "
                    + "definition: full");
        }
        TableDefinition source0 = definition.get();
        Optional<String> owner = Optional.empty();
        if (!owners.isEmpty()) {
            String sourceOwner = source0.owner().orElse("");
            if (!owners.containsKey(sourceOwner)) {
                throw new ConnectorException(ErrorKind.INVALID_SPEC, PostgresCode.PG236, "owners: names no role for "
                        + sourceOwner + ", which owns the source of " + name.quoted(), "add " + sourceOwner
                        + ": <target role> to owners:");
            }
            owner = Optional.of(owners.get(sourceOwner));
        }
        List<TableDefinition.Grant> grants = new ArrayList<>();
        if (copyPrivileges) {
            for (TableDefinition.Grant grant : source0.grants()) {
                grants.add(new TableDefinition.Grant(grant.column(), grant.grantee().map(g -> owners.getOrDefault(g, g)),
                        grant.privilege(), grant.grantable()));
            }
        }
        Set<String> roles = new TreeSet<>();
        grants.forEach(g -> g.grantee().ifPresent(roles::add));
        refuseMissingRoles(roles, owner, name.quoted(), connections);
        return Optional.of(source0.withGrants(grants).withOwner(owner));
    }

    /**
     * Who owns a schema's created objects and what they grant: with {@code owners:}, the target role each object
     * that has an owner goes to, by key (without it the loading user keeps what it creates); with
     * {@code privileges: copy}, the grants of objects whose source privileges are set, to mapped roles. Refused at plan
     * as for a table: PG236 a source owner without an entry, PG234 a role the server lacks, PG235 an owner the loading
     * user cannot give them to.
     */
    CarriedObjects.Access objectAccess(List<SchemaObject> objects, String schema, PostgresConnections connections)
            throws ConnectorException {
        String what = "the objects of schema " + SqlQuote.identifier(schema);
        if (copyPrivileges) {
            Set<String> grantees = new TreeSet<>();
            objects.forEach(o -> o.privileges().ifPresent(grants -> grants.forEach(g -> g.grantee()
                    .ifPresent(r -> grantees.add(owners.getOrDefault(r, r))))));
            refuseMissingRoles(grantees, Optional.empty(), what, connections);
        }
        if (owners.isEmpty()) {
            return new CarriedObjects.Access(Map.of(), copyPrivileges, owners);
        }
        Map<String, String> ownerByKey = new java.util.HashMap<>();
        Set<String> targets = new TreeSet<>();
        for (SchemaObject object : objects) {
            if (object.owner().isEmpty()) {
                continue;
            }
            String target = owners.get(object.owner().get());
            if (target == null) {
                throw new ConnectorException(ErrorKind.INVALID_SPEC, PostgresCode.PG236, "owners: names no role for "
                        + object.owner().get() + ", which owns " + object.kind().label() + " " + object.name()
                        + " of schema " + SqlQuote.identifier(schema) + " (objects: all)", "add "
                        + object.owner().get() + ": <target role> to owners:");
            }
            ownerByKey.put(object.key(), target);
            targets.add(target);
        }
        for (String target : targets) {
            refuseMissingRoles(Set.of(), Optional.of(target), what, connections);
        }
        return new CarriedObjects.Access(ownerByKey, copyPrivileges, owners);
    }

    /**
     * PG234 when one of {@code roles} or the {@code owner} is missing on the target server; PG235 when the loading user
     * cannot give {@code what} to the owner (and go on loading it).
     */
    public static void refuseMissingRoles(Set<String> granted, Optional<String> owner, String what,
                                          PostgresConnections connections) throws ConnectorException {
        Set<String> roles = new TreeSet<>(granted);
        owner.ifPresent(roles::add);
        if (roles.isEmpty()) {
            return;
        }
        List<String> missing = ServerRoles.missing(roles, what, connections);
        if (!missing.isEmpty()) {
            throw new ConnectorException(ErrorKind.PREFLIGHT, PostgresCode.PG234, what + " is created with "
                    + "roles this server does not have: " + String.join(", ", missing), "create them on the target "
                    + "server first (e.g. CREATE ROLE " + SqlQuote.identifier(missing.getFirst()) + "; roles belong "
                    + "to the server, Sluice does not create them), or leave them out of privileges: and owners:");
        }
        if (owner.isEmpty()) {
            return;
        }
        boolean mayOwn;
        try (ControlConnection control = connections.control("finding whether the connection's user may give "
                + what + " away");
             PreparedStatement p = control.connection().prepareStatement("SELECT pg_has_role(current_user, ?, "
                     + "'MEMBER') AND pg_has_role(current_user, ?, 'USAGE')")) {
            p.setString(1, owner.get());
            p.setString(2, owner.get());
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                mayOwn = rs.getBoolean(1);
            }
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "cannot read the roles of the "
                    + "target server");
        }
        if (!mayOwn) {
            throw new ConnectorException(ErrorKind.PREFLIGHT, PostgresCode.PG235, "owners: " + what
                    + " would be owned by " + owner.get() + ", and the connection's user is not a member of that "
                    + "role that inherits its privileges: it could not give it away and go on loading it",
                    "GRANT " + SqlQuote.identifier(owner.get()) + " TO the connection's user, or map the owner to "
                    + "a role it is a member of");
        }
    }
}
