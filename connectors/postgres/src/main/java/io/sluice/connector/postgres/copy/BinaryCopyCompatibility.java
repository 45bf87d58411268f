package io.sluice.connector.postgres.copy;

import io.sluice.connector.postgres.catalog.PostgresCatalog;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Decides whether a type's binary COPY form can go from one server to another unchanged.
 *
 * <p>Binary values do not carry their own type, with two exceptions: an array writes its element type's OID, and
 * a composite writes each field's type OID. Built-in types have the same OIDs on every server; user-defined ones
 * (enums, composites, domains, extension types) are numbered per server. PostgreSQL 18 (measured) and recent minor
 * releases of older branches accept a foreign OID when both sides' OIDs are outside the built-in range, but older
 * releases refuse it ("wrong element type"), and the target's version is not known when the format is chosen.
 * So a user-defined type inside an array or a composite makes the stream use text COPY. Scalar enums, domains and
 * composites of built-in fields carry no OID of their own and stay binary. Types without binary send/receive
 * functions need text COPY whatever their OID.
 */
public final class BinaryCopyCompatibility {
    private static final int MAX_DEPTH = 16;

    private final Connection connection;
    private final Map<Long, TypeInfo> types = new HashMap<>();
    /**
     * Built-in types (OIDs below {@link PostgresCatalog#FIRST_NORMAL_OID}) are the same on every server: described
     * once per process, not once per table of a run of thousands.
     */
    private static final Map<Long, TypeInfo> BUILT_IN = new java.util.concurrent.ConcurrentHashMap<>();

    public BinaryCopyCompatibility(Connection connection) {
        this.connection = requireNonNull(connection, "connection is null");
    }

    /** Why values of {@code typeOid} must travel as text between servers, or empty when binary is safe. */
    public Optional<String> textReason(long typeOid) throws SQLException {
        return reason(typeOid, false, 0);
    }

    private Optional<String> reason(long oid, boolean insideArrayOrComposite, int depth) throws SQLException {
        if (depth > MAX_DEPTH) {
            return Optional.empty();
        }
        TypeInfo type = type(oid);
        if (!type.hasBinaryIo()) {
            return Optional.of("type " + type.name() + " has no binary send/receive functions");
        }
        if (insideArrayOrComposite && oid >= PostgresCatalog.FIRST_NORMAL_OID) {
            return Optional.of("the binary form carries the OID of the user-defined type " + type.name()
                    + ", which each server numbers differently (older PostgreSQL releases refuse a foreign OID)");
        }
        switch (type.kind()) {
            case 'd' -> {
                return reason(type.baseType(), insideArrayOrComposite, depth + 1);
            }
            case 'c' -> {
                for (long field : fieldTypes(type.relation())) {
                    Optional<String> r = reason(field, true, depth + 1);
                    if (r.isPresent()) {
                        return r;
                    }
                }
                return Optional.empty();
            }
            case 'r' -> {
                return type.rangeSubtype() == 0 ? Optional.empty()
                        : reason(type.rangeSubtype(), insideArrayOrComposite, depth + 1);
            }
            case 'm' -> {
                return type.multirangeRange() == 0 ? Optional.empty()
                        : reason(type.multirangeRange(), insideArrayOrComposite, depth + 1);
            }
            default -> {
                // A true array is a varlena with an element type; fixed-size ones (point, name) embed no OID.
                if (type.element() != 0 && type.length() == -1) {
                    return reason(type.element(), true, depth + 1);
                }
                return Optional.empty();
            }
        }
    }

    private TypeInfo type(long oid) throws SQLException {
        TypeInfo cached = oid < PostgresCatalog.FIRST_NORMAL_OID ? BUILT_IN.get(oid) : types.get(oid);
        if (cached != null) {
            return cached;
        }
        try (PreparedStatement p = connection.prepareStatement(
                "SELECT format_type(t.oid, NULL), t.typtype, t.typelem, t.typlen, t.typbasetype, t.typrelid, "
                        + "t.typsend::oid <> 0 AND t.typreceive::oid <> 0, "
                        + "(SELECT r.rngsubtype FROM pg_range r WHERE r.rngtypid = t.oid) "
                        + "FROM pg_type t WHERE t.oid = ?::oid")) {
            p.setLong(1, oid);
            try (ResultSet rs = p.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException("type with OID " + oid + " not found");
                }
                char kind = rs.getString(2).charAt(0);
                TypeInfo info = new TypeInfo(rs.getString(1), kind, rs.getLong(3), rs.getInt(4), rs.getLong(5),
                        rs.getLong(6), rs.getBoolean(7), rs.getLong(8), kind == 'm' ? multirangeRange(oid) : 0);
                (oid < PostgresCatalog.FIRST_NORMAL_OID ? BUILT_IN : types).put(oid, info);
                return info;
            }
        }
    }

    private long multirangeRange(long oid) throws SQLException {
        try (PreparedStatement p = connection.prepareStatement(
                "SELECT rngtypid FROM pg_range WHERE rngmultitypid = ?::oid")) {
            p.setLong(1, oid);
            try (ResultSet rs = p.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        }
    }

    private List<Long> fieldTypes(long relation) throws SQLException {
        List<Long> fields = new ArrayList<>();
        try (PreparedStatement p = connection.prepareStatement(
                "SELECT atttypid FROM pg_attribute WHERE attrelid = ?::oid AND attnum > 0 AND NOT attisdropped "
                        + "ORDER BY attnum")) {
            p.setLong(1, relation);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    fields.add(rs.getLong(1));
                }
            }
        }
        return fields;
    }

    private record TypeInfo(String name, char kind, long element, int length, long baseType, long relation,
                            boolean hasBinaryIo, long rangeSubtype, long multirangeRange) {
    }
}
