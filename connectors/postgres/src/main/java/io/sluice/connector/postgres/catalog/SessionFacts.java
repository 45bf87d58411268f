package io.sluice.connector.postgres.catalog;

import java.sql.Connection;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What one session's answers cannot change while it lives: the server it is connected to and the built-in types'
 * OIDs. Planning 10,000 tables asked the server these ~13 times per table; a kept control connection now asks once.
 * Held per connection object (weakly: a closed connection's facts go with it), never across sessions, since a
 * server restart changes its start time and a reconnect may reach another server.
 */
public final class SessionFacts {
    private static final Map<Connection, SessionFacts> BY_CONNECTION = Collections.synchronizedMap(new WeakHashMap<>());

    /** A type as the server names it: its OID and whether it is a pseudo-type no column can have. */
    public record KnownType(long oid, boolean pseudo) {
    }

    volatile Integer serverVersionNum;
    /** {@code postgres:<postmaster start>:<port>:<database oid>}, the server part of a relation key. */
    volatile String databaseKey;
    /** Type text to built-in type: user types are not kept, a run may create them. */
    final Map<String, KnownType> builtInTypes = new ConcurrentHashMap<>();

    static SessionFacts of(Connection connection) {
        return BY_CONNECTION.computeIfAbsent(connection, c -> new SessionFacts());
    }

    Optional<KnownType> builtInType(String text) {
        return Optional.ofNullable(builtInTypes.get(text));
    }
}
