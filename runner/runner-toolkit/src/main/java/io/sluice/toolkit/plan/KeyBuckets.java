package io.sluice.toolkit.plan;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Partitions over a key of any sortable type for sources that plan by SQL predicates, from values the source's server
 * gave (rendered as literals of its dialect): {@code distribution: ntile}'s half-open ranges between boundaries and
 * {@code data-driven}'s one partition per value. The server compares, so its collation and type rules decide where
 * a row goes, and every row lands in exactly one partition.
 */
public final class KeyBuckets {
    private KeyBuckets() {
    }

    /**
     * {@code key < b1}, {@code key >= b1 AND key < b2}, ..., {@code key >= bn} over ascending boundary literals (none:
     * every non-NULL key), ids {@code method:i/n}, plus {@code method:null} for NULL keys when the key is nullable.
     * The outer ranges are open, so keys beyond the planned span (rows added since) still land in one.
     */
    public static List<KeyRanges.Bucket> between(String method, String key, List<String> boundaries,
                                                 boolean nullable) {
        requireNonNull(method, "method is null");
        requireNonNull(key, "key is null");
        requireNonNull(boundaries, "boundaries is null");
        List<String> predicates = new ArrayList<>();
        if (boundaries.isEmpty()) {
            predicates.add(key + " IS NOT NULL");
        } else {
            predicates.add(key + " < " + boundaries.getFirst());
            for (int i = 1; i < boundaries.size(); i++) {
                predicates.add(key + " >= " + boundaries.get(i - 1) + " AND " + key + " < " + boundaries.get(i));
            }
            predicates.add(key + " >= " + boundaries.getLast());
        }
        List<KeyRanges.Bucket> buckets = new ArrayList<>();
        for (int i = 0; i < predicates.size(); i++) {
            buckets.add(new KeyRanges.Bucket(method + ":" + (i + 1) + "/" + predicates.size(), predicates.get(i)));
        }
        if (nullable) {
            buckets.add(new KeyRanges.Bucket(method + ":null", key + " IS NULL"));
        }
        return buckets;
    }

    /**
     * One partition per value ({@code key = literal}, id {@code value='text'}); with {@code others} (the values came
     * from a values-query) a last one takes the non-NULL keys the list missed, so no row is lost; NULL keys get
     * their own when the key is nullable.
     */
    public static List<KeyRanges.Bucket> perValue(String key, List<String> literals, List<String> texts,
                                                  boolean others, boolean nullable) {
        requireNonNull(key, "key is null");
        if (literals.size() != texts.size()) {
            throw new IllegalArgumentException(literals.size() + " literals for " + texts.size() + " values");
        }
        List<KeyRanges.Bucket> buckets = new ArrayList<>();
        for (int i = 0; i < literals.size(); i++) {
            buckets.add(new KeyRanges.Bucket("value='" + readable(texts.get(i)) + "'", key + " = " + literals.get(i)));
        }
        if (others) {
            buckets.add(new KeyRanges.Bucket("value-others", literals.isEmpty() ? key + " IS NOT NULL"
                    : key + " IS NOT NULL AND " + key + " NOT IN (" + String.join(", ", literals) + ")"));
        }
        if (nullable) {
            buckets.add(new KeyRanges.Bucket("value-null", key + " IS NULL"));
        }
        return buckets;
    }

    /** Short printable values stay as they are; long or odd ones get a prefix and a hash so ids remain unique. */
    public static String readable(String value) {
        requireNonNull(value, "value is null");
        boolean plain = value.length() <= 40 && value.chars().allMatch(c -> c >= 0x20 && c < 0x7f);
        if (plain) {
            return value;
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
            String prefix = value.codePoints().limit(24).filter(c -> c >= 0x20 && c != 0x7f)
                    .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).toString();
            return prefix + "~" + HexFormat.of().formatHex(digest, 0, 6);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
