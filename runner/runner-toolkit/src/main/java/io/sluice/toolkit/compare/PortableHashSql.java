package io.sluice.toolkit.compare;

import io.sluice.spi.data.Buckets;

import java.util.ArrayList;
import java.util.List;

/**
 * The statements of {@link io.sluice.spi.data.RowHash#PORTABLE} for an engine that is not PostgreSQL, built from the few
 * expressions its {@link Dialect} spells: the digest, the inner select a listing and bucket digests read, and the
 * listing in key order.
 */
public final class PortableHashSql {
    /** What differs between engines. */
    public interface Dialect {
        /** Each value as {@code <characters>:<text>} or {@code N}, joined by commas (never NULL). */
        String rowText(List<String> texts);

        /** The first 15 hex digits of the text's MD5 as a non-negative integer; NULL for NULL. */
        String md5Bits(String text);

        /** {@code number} modulo {@code count}. */
        String modulo(String number, int count);

        /** A number (a sum) as decimal text. */
        String asText(String number);

        /** An ORDER BY item for a key text: code point order (UTF-8 bytes), as PostgreSQL's {@code COLLATE "C"}. */
        String codePointOrder(String text);
    }

    private PortableHashSql() {
    }

    /** Count and checksum of the rows of {@code from} (a FROM item) over the value {@code texts}. */
    public static String digest(Dialect dialect, List<String> texts, String from) {
        return "SELECT count(*), " + dialect.asText("coalesce(sum(" + dialect.md5Bits(dialect.rowText(texts))
                + "), 0)") + " FROM " + from;
    }

    /** Key texts {@code k1..}, value hashes {@code h1..}, the row's hash {@code d} and its bucket {@code b}. */
    public static String inner(Dialect dialect, List<String> texts, List<Integer> keyColumns, int buckets,
                               String from) {
        List<String> keys = keyColumns.isEmpty() ? texts : keyColumns.stream().map(texts::get).toList();
        List<String> select = new ArrayList<>();
        if (keyColumns.isEmpty()) {
            select.add(dialect.rowText(texts) + " AS k1");
        } else {
            for (int i = 0; i < keys.size(); i++) {
                select.add(keys.get(i) + " AS k" + (i + 1));
            }
        }
        for (int i = 0; i < texts.size(); i++) {
            select.add(dialect.md5Bits(texts.get(i)) + " AS h" + (i + 1));
        }
        select.add(dialect.md5Bits(dialect.rowText(texts)) + " AS d");
        select.add(dialect.modulo(dialect.md5Bits(dialect.rowText(keys)), buckets) + " AS b");
        return "SELECT " + String.join(", ", select) + " FROM " + from;
    }

    /** Each bucket's count and checksum over {@code inner} (of {@link #inner}), in one pass. */
    public static String bucketDigests(Dialect dialect, String inner) {
        return "SELECT b, count(*), " + dialect.asText("coalesce(sum(d), 0)") + " FROM (" + inner
                + ") AS r GROUP BY b";
    }

    /** The rows of {@code inner} (of {@link #inner}) in the chosen buckets, keys then hashes, in key order. */
    public static String listing(Dialect dialect, String inner, int keyCount, int columnCount, Buckets buckets) {
        List<String> out = new ArrayList<>();
        List<String> order = new ArrayList<>();
        for (int i = 1; i <= keyCount; i++) {
            out.add("k" + i);
            order.add(dialect.codePointOrder("k" + i));
        }
        for (int i = 1; i <= columnCount; i++) {
            out.add("h" + i);
        }
        return "SELECT " + String.join(", ", out) + " FROM (" + inner + ") AS r" + (buckets.all() ? ""
                : " WHERE b IN (" + String.join(", ", buckets.chosen().stream().map(String::valueOf).toList()) + ")")
                + " ORDER BY " + String.join(", ", order);
    }
}
