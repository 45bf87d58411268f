package io.sluice.core.spec;

import io.sluice.core.diag.Position;

import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The parsed YAML document as a small tree that remembers where each node and key was written, so every diagnostic
 * can point at a line and column. Internal to the loader: the rest of Sluice sees only the typed spec records.
 */
sealed interface YamlNode permits YamlNode.Mapping, YamlNode.Sequence, YamlNode.Scalar {
    Position position();

    /** "a mapping", "a list", "a string": how a message names what was found. */
    String kind();

    /** One {@code key: value} pair; the key's own position is where "unknown key" points. */
    record Entry(String key, Position keyPosition, YamlNode value) {
        public Entry {
            requireNonNull(key, "key is null");
            requireNonNull(keyPosition, "keyPosition is null");
            requireNonNull(value, "value is null");
        }
    }

    record Mapping(List<Entry> entries, Position position) implements YamlNode {
        public Mapping {
            entries = List.copyOf(requireNonNull(entries, "entries is null"));
            requireNonNull(position, "position is null");
        }

        Optional<Entry> entry(String key) {
            return entries.stream().filter(e -> e.key().equals(key)).findFirst();
        }

        Optional<YamlNode> get(String key) {
            return entry(key).map(Entry::value);
        }

        @Override
        public String kind() {
            return "a mapping";
        }
    }

    record Sequence(List<YamlNode> items, Position position) implements YamlNode {
        public Sequence {
            items = List.copyOf(requireNonNull(items, "items is null"));
            requireNonNull(position, "position is null");
        }

        @Override
        public String kind() {
            return "a list";
        }
    }

    /**
     * A scalar. {@code value} is a String, Long, BigInteger, Double, Boolean or null as YAML 1.2 resolves it.
     * {@code raw} is the text as written, which differs from the value after interpolation: messages show the raw
     * text for interpolated values so a secret never reaches them.
     */
    record Scalar(Object value, String raw, boolean interpolated, boolean unresolved, Position position)
            implements YamlNode {
        public Scalar {
            requireNonNull(raw, "raw is null");
            requireNonNull(position, "position is null");
        }

        static Scalar of(Object value, String raw, Position position) {
            return new Scalar(value, raw, false, false, position);
        }

        /** What a message may quote: never an interpolated value. */
        String display() {
            return raw;
        }

        @Override
        public String kind() {
            if (value == null) {
                return "null";
            }
            return switch (value) {
                case String s -> "a string";
                case Boolean b -> "a boolean";
                case Double d -> "a number";
                default -> "an integer";
            };
        }
    }
}
