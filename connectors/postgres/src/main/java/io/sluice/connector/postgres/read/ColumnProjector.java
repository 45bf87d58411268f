package io.sluice.connector.postgres.read;

import io.sluice.connector.postgres.catalog.PostgresCatalog;
import io.sluice.connector.postgres.catalog.QualifiedName;
import io.sluice.connector.postgres.catalog.SqlQuote;
import io.sluice.connector.postgres.copy.BinaryCopyCompatibility;
import io.sluice.connector.postgres.copy.CopyDataFrames;

import io.sluice.spi.data.Column;
import io.sluice.spi.data.ColumnPair;
import io.sluice.spi.data.CopyFormat;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static io.sluice.connector.postgres.catalog.PostgresCode.PG301;
import static io.sluice.connector.postgres.catalog.PostgresCode.PG302;
import static java.util.Objects.requireNonNull;

/**
 * Decides how each mapped column is read: as is when both sides have the same type, else cast on the source to the
 * target's type. Casts go to the type without its modifier ({@code character varying}, not {@code (10)}): an
 * explicit cast to {@code varchar(10)} would silently truncate, whereas the target's COPY enforces the modifier and
 * reports a too-long value as an error.
 */
public final class ColumnProjector {
    private final PostgresCatalog catalog;
    private final String fromClause;
    private final String objectName;

    ColumnProjector(PostgresCatalog catalog, String fromClause, String objectName) {
        this.catalog = requireNonNull(catalog, "catalog is null");
        this.fromClause = requireNonNull(fromClause, "fromClause is null");
        this.objectName = requireNonNull(objectName, "objectName is null");
    }

    PostgresProjection project(List<ColumnPair> pairs) throws SQLException, ConnectorException {
        List<String> expressions = new ArrayList<>();
        List<String> digestExpressions = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        List<String> textReasons = new ArrayList<>();
        BinaryCopyCompatibility binary = new BinaryCopyCompatibility(catalog.connection());
        for (ColumnPair pair : pairs) {
            Column source = pair.source();
            Column target = pair.target();
            // A columns: rule's column is the expression it computes (renamed: the column it reads).
            String reference = source.expression().map(e -> "(" + e + ")")
                    .orElseGet(() -> SqlQuote.identifier(source.name()));
            long readType;
            if (sameType(source, target)) {
                expressions.add(reference);
                boolean builtIn = PostgresCatalog.oid(target) < PostgresCatalog.FIRST_NORMAL_OID;
                digestExpressions.add(builtIn && !source.typeName().equals(target.typeName())
                        ? reference + "::" + target.typeName() : reference);
                readType = PostgresCatalog.oid(source);
            } else {
                String castType = castTypeName(target);
                Optional<Long> castOid = catalog.typeOid(castType);
                if (castOid.isEmpty()) {
                    throw new ConnectorException(ErrorKind.INVALID_SPEC, PG302, "column "
                            + SqlQuote.identifier(source.name()) + " of " + objectName + " is " + source.typeName()
                            + " but the target column " + SqlQuote.identifier(target.name()) + " is " + target.typeName()
                            + ", a type the source server does not have",
                            "create the type on the source server too, or read from a query: that converts the column");
                }
                String expression = reference + "::" + castType;
                checkCast(expression, source, target);
                expressions.add(expression);
                digestExpressions.add(reference + "::" + target.typeName());
                notes.add("column " + SqlQuote.identifier(source.name()) + ": " + source.typeName() + " cast to "
                        + target.typeName() + " on the source");
                readType = castOid.get();
            }
            binary.textReason(readType).ifPresent(
                    why -> textReasons.add("column " + SqlQuote.identifier(target.name()) + ": " + why));
        }
        CopyFormat format = textReasons.isEmpty() ? CopyFormat.BINARY : CopyFormat.TEXT;
        if (format == CopyFormat.TEXT) {
            notes.add(0, "text COPY for the whole stream because " + String.join("; ", textReasons));
        }
        notes.add(CopyDataFrames.selection().describe());
        return new PostgresProjection(format, expressions, notes, digestExpressions);
    }

    /**
     * Same OID for built-in types; same name for user-defined ones, whose OIDs differ between servers. The
     * modifier may differ (varchar(20) into varchar(10)): the target enforces its own.
     */
    static boolean sameType(Column source, Column target) {
        long sourceOid = PostgresCatalog.oid(source);
        long targetOid = PostgresCatalog.oid(target);
        if (sourceOid == 0 || targetOid == 0) {
            return false;
        }
        if (sourceOid < PostgresCatalog.FIRST_NORMAL_OID || targetOid < PostgresCatalog.FIRST_NORMAL_OID) {
            return sourceOid == targetOid;
        }
        return unqualified(source.typeName()).equals(unqualified(target.typeName()));
    }

    /** {@code public.mood} and {@code mood} name the same type when the schema is simply not on a search_path. */
    private static String unqualified(String typeName) {
        String arraySuffix = "";
        String name = typeName;
        while (name.endsWith("[]")) {
            arraySuffix += "[]";
            name = name.substring(0, name.length() - 2);
        }
        try {
            return QualifiedName.parse(name).name() + arraySuffix;
        } catch (IllegalArgumentException e) {
            return typeName;
        }
    }

    private String castTypeName(Column target) throws SQLException {
        long targetOid = PostgresCatalog.oid(target);
        if (targetOid == 0) {
            // a type written in a columns: rule, not read from a catalog: this server says what it is
            targetOid = catalog.typeOid(target.typeName()).orElse(0L);
        }
        if (targetOid > 0 && targetOid < PostgresCatalog.FIRST_NORMAL_OID) {
            return catalog.typeName(targetOid); // built-in: same OID here, without the modifier
        }
        return target.typeName();
    }

    /** Lets PostgreSQL judge the cast without reading a row. */
    private void checkCast(String expression, Column source, Column target) throws SQLException, ConnectorException {
        try {
            catalog.expressionTypes(List.of(expression), fromClause);
        } catch (SQLException e) {
            if (e.getSQLState() == null || !e.getSQLState().startsWith("42")) {
                throw e; // not about the cast (a lost connection, say): reported as such
            }
            String server = e.getMessage() == null ? "" : e.getMessage().replaceFirst("^ERROR: ", "");
            int newline = server.indexOf('\n');
            if (newline > 0) {
                server = server.substring(0, newline);
            }
            throw new ConnectorException(ErrorKind.INVALID_SPEC, PG301, "column "
                    + SqlQuote.identifier(source.name()) + " of " + objectName + " is " + source.typeName()
                    + " and cannot be converted to " + target.typeName() + " (target column "
                    + SqlQuote.identifier(target.name()) + "): " + server,
                    "change the target column's type, map another column onto it, or read from a query: that "
                            + "converts the column explicitly");
        }
    }
}
