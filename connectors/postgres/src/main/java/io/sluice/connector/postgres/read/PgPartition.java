package io.sluice.connector.postgres.read;

import io.sluice.spi.read.SourcePartition;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A partition of a PostgreSQL source: what to read from (the stream's table or query, or one leaf with ONLY) and
 * the WHERE condition, if any.
 *
 * @param relation  the FROM item of the whole stream (its table or query), which a checkpoint is bound to
 * @param portable  whether {@code where} names only columns of the stream (keyed methods), so a target with the
 *                  same column names can select the same rows
 */
public record PgPartition(String id, String relation, String fromClause, Optional<String> where, long estimatedRows,
                   long estimatedBytes, boolean fromOtherRelation, boolean portable) implements SourcePartition {
    /** Checkpoint texts start with this; the number changes when the encoding does. */
    public static final String CHECKPOINT_PREFIX = "sluice-postgres-partition/1:";

    public PgPartition {
        requireNonNull(id, "id is null");
        requireNonNull(relation, "relation is null");
        requireNonNull(fromClause, "fromClause is null");
        requireNonNull(where, "where is null");
    }

    /** A partition of the stream's own relation (not a member read with ONLY). */
    static PgPartition of(String id, String relation, Optional<String> where, long estimatedRows,
                          long estimatedBytes, boolean portable) {
        return new PgPartition(id, relation, relation, where, estimatedRows, estimatedBytes, false, portable);
    }

    /**
     * The same partition kept to {@code condition} too (an incremental run's window): in its checkpoint as well, so
     * a resumed run reads the same window. The id stays, the plan's ids stay unique.
     */
    PgPartition within(String condition) {
        requireNonNull(condition, "condition is null");
        return new PgPartition(id, relation, fromClause, Optional.of(where.map(w -> "(" + w + ") AND ").orElse("")
                + condition), estimatedRows, estimatedBytes, fromOtherRelation, portable);
    }

    /** The same partition, never verified by its condition on the target (it names what only the source has). */
    PgPartition notPortable() {
        return new PgPartition(id, relation, fromClause, where, estimatedRows, estimatedBytes, fromOtherRelation,
                false);
    }

    @Override
    public String predicate() {
        String condition = where.orElse("all rows");
        return fromOtherRelation ? "FROM " + fromClause + " WHERE " + where.orElse("true") : condition;
    }

    @Override
    public Optional<String> portablePredicate() {
        return portable && !fromOtherRelation ? Optional.of(where.orElse("true")) : Optional.empty();
    }

    /**
     * Length-prefixed fields ({@code <length>:<text>,}, lengths in UTF-16 units), so any character in a name, key
     * expression or value survives. The stream's relation is kept as its quoted table name, or for a query as a
     * hash: the query text may hold interpolated values that must not land in the ledger. A member read with ONLY
     * keeps its own FROM item (a quoted table name).
     */
    @Override
    public Optional<String> checkpoint() {
        StringBuilder out = new StringBuilder(CHECKPOINT_PREFIX);
        for (String field : List.of(id, relationLabel(relation), fromClause.equals(relation) ? "" : fromClause,
                where.map(w -> "+" + w).orElse("-"), Long.toString(estimatedRows), Long.toString(estimatedBytes),
                fromOtherRelation ? "1" : "0", portable ? "1" : "0")) {
            out.append(field.length()).append(':').append(field).append(',');
        }
        return Optional.of(out.toString());
    }

    /** Whether the stream reads a query (its relation a parenthesized SELECT), not a table. */
    boolean readsQuery() {
        return relation.startsWith("(");
    }

    /** How a checkpoint names the stream's relation: a table by its quoted name, a query by a hash of its text. */
    static String relationLabel(String relation) {
        if (!relation.startsWith("(")) {
            return relation;
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(relation.getBytes(StandardCharsets.UTF_8));
            return "query sha256:" + HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Rebuilds a partition of {@code relation} from {@link #checkpoint()}. Throws IllegalArgumentException saying what
     * is wrong: not such a checkpoint, damaged, or made for another relation.
     */
    static PgPartition fromCheckpoint(String checkpoint, String relation) {
        requireNonNull(checkpoint, "checkpoint is null");
        requireNonNull(relation, "relation is null");
        if (!checkpoint.startsWith(CHECKPOINT_PREFIX)) {
            throw new IllegalArgumentException("not a checkpoint of a PostgreSQL partition (it should start with '"
                    + CHECKPOINT_PREFIX + "')");
        }
        List<String> fields = new ArrayList<>();
        int at = CHECKPOINT_PREFIX.length();
        while (at < checkpoint.length()) {
            int colon = checkpoint.indexOf(':', at);
            if (colon < 0) {
                throw damaged("no length at offset " + at);
            }
            int length;
            try {
                length = Integer.parseInt(checkpoint.substring(at, colon));
            } catch (NumberFormatException e) {
                throw damaged("bad length at offset " + at);
            }
            int end = colon + 1 + length;
            if (length < 0 || end >= checkpoint.length() || checkpoint.charAt(end) != ',') {
                throw damaged("field at offset " + at + " is cut short");
            }
            fields.add(checkpoint.substring(colon + 1, end));
            at = end + 1;
        }
        if (fields.size() != 8) {
            throw damaged(fields.size() + " fields instead of 8");
        }
        String id = fields.get(0);
        String madeFor = fields.get(1);
        String expected = relationLabel(relation);
        if (!madeFor.equals(expected)) {
            throw new IllegalArgumentException("the checkpoint of partition " + id + " was made for "
                    + (madeFor.startsWith("query ") ? "another query" : madeFor) + ", but this source reads "
                    + (expected.startsWith("query ") ? (madeFor.startsWith("query ") ? "a different query"
                    : "a query") : expected));
        }
        String where = fields.get(3);
        Optional<String> condition;
        if (where.equals("-")) {
            condition = Optional.empty();
        } else if (where.startsWith("+")) {
            condition = Optional.of(where.substring(1));
        } else {
            throw damaged("bad condition field");
        }
        try {
            return new PgPartition(id, relation, fields.get(2).isEmpty() ? relation : fields.get(2), condition,
                    Long.parseLong(fields.get(4)), Long.parseLong(fields.get(5)), flag(fields.get(6)),
                    flag(fields.get(7)));
        } catch (NumberFormatException e) {
            throw damaged("bad estimate");
        }
    }

    private static boolean flag(String value) {
        return switch (value) {
            case "1" -> true;
            case "0" -> false;
            default -> throw damaged("bad flag '" + value + "'");
        };
    }

    private static IllegalArgumentException damaged(String why) {
        return new IllegalArgumentException("damaged checkpoint of a PostgreSQL partition: " + why);
    }

    /** The SELECT of this partition for the given select list. */
    public String select(String selectList) {
        return "SELECT " + selectList + " FROM " + fromClause + where.map(w -> " WHERE " + w).orElse("");
    }
}
