package io.sluice.connector.postgres.session;

import io.sluice.spi.error.ConnectorException;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** The target server's roles, as the owners, grants and policies Sluice creates name them. */
public final class ServerRoles {
    private ServerRoles() {
    }

    /** Which of {@code roles} the target server does not have, in name order. */
    public static List<String> missing(Set<String> roles, String what, PostgresConnections connections)
            throws ConnectorException {
        List<String> missing = new ArrayList<>();
        if (roles.isEmpty()) {
            return missing;
        }
        try (ControlConnection control = connections.control("finding the roles " + what + " needs");
             PreparedStatement p = control.connection().prepareStatement("SELECT r FROM unnest(?::text[]) r "
                     + "WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) ORDER BY r")) {
            p.setArray(1, control.connection().createArrayOf("text", roles.toArray()));
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    missing.add(rs.getString(1));
                }
            }
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "cannot read the roles of the "
                    + "target server");
        }
        return missing;
    }
}
