package io.sluice.connector.postgres.read;

import io.sluice.spi.data.RowHash;

import java.util.List;

/**
 * The SQL of each {@link RowHash} over value expressions (rendered under {@link DigestQuery#SETTINGS}): a row's hash,
 * a value's hash, a key's bucket and a table without a key's row text. {@link RowHash#PORTABLE} spells out what
 * MySQL/MariaDB and DuckDB compute alike (MD5, character counts, commas) instead of PostgreSQL's record text.
 */
final class RowHashSql {
    private RowHashSql() {
    }

    /** The row's 64-bit (POSTGRES) or 60-bit (PORTABLE) hash, which digests sum. */
    static String row(RowHash hash, List<String> expressions) {
        return switch (hash) {
            case POSTGRES -> "hashtextextended(" + recordText(expressions) + ", 0)";
            case PORTABLE -> md5Bits(rowText(expressions));
        };
    }

    /** One value's hash; NULL for NULL. */
    static String value(RowHash hash, String expression) {
        return switch (hash) {
            case POSTGRES -> "hashtextextended((" + expression + ")::text, 0)";
            case PORTABLE -> md5Bits("(" + expression + ")::text");
        };
    }

    /** The bucket among {@code count} of the key made of {@code keys}. */
    static String bucket(RowHash hash, List<String> keys, int count) {
        return switch (hash) {
            case POSTGRES -> "mod(hashtextextended(" + recordText(keys) + ", 1) & 9223372036854775807, " + count + ")";
            case PORTABLE -> "mod(" + md5Bits(rowText(keys)) + ", " + count + ")";
        };
    }

    /** The text that keys a row of a table without a key: the whole row's. */
    static String wholeRow(RowHash hash, List<String> expressions) {
        return switch (hash) {
            case POSTGRES -> recordText(expressions);
            case PORTABLE -> rowText(expressions);
        };
    }

    private static String recordText(List<String> expressions) {
        return "ROW(" + String.join(", ", expressions) + ")::text";
    }

    /** Each value as {@code <characters>:<text>} or {@code N}, joined by commas (never NULL). */
    private static String rowText(List<String> expressions) {
        return String.join(" || ',' || ", expressions.stream().map(e -> "coalesce(length((" + e + ")::text)::text"
                + " || ':' || (" + e + ")::text, 'N')").toList());
    }

    /** The first 15 hex digits of the text's MD5 as a non-negative bigint. */
    private static String md5Bits(String text) {
        return "('x0' || substr(md5(" + text + "), 1, 15))::bit(64)::bigint";
    }
}
