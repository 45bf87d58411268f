package io.sluice.connector.postgres.catalog;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A table name as PostgreSQL reads it: {@code [schema.]name}, unquoted parts folded to lower case (ASCII only, as
 * PostgreSQL does in UTF-8 databases), double-quoted parts kept as written with {@code ""} standing for one quote.
 * Without a schema the name resolves through the connection's search_path when it is described.
 */
public record QualifiedName(Optional<String> schema, String name) {
    /** PostgreSQL keeps at most NAMEDATALEN - 1 bytes of an identifier and silently truncates longer ones. */
    private static final int MAX_IDENTIFIER_BYTES = 63;

    public QualifiedName {
        requireNonNull(schema, "schema is null");
        requireNonNull(name, "name is null");
    }

    public static QualifiedName of(String schema, String name) {
        return new QualifiedName(Optional.of(schema), name);
    }

    /** Parses {@code text}; throws {@link IllegalArgumentException} saying what is wrong and where. */
    public static QualifiedName parse(String text) {
        requireNonNull(text, "text is null");
        List<String> parts = new Parser(text).parts();
        return switch (parts.size()) {
            case 1 -> new QualifiedName(Optional.empty(), parts.get(0));
            case 2 -> new QualifiedName(Optional.of(parts.get(0)), parts.get(1));
            default -> throw new IllegalArgumentException("'" + text + "' has " + parts.size()
                    + " dotted parts; write schema.table (quote a name that contains a dot: \"a.b\")");
        };
    }

    /** The name as SQL text, every part quoted: {@code "schema"."table"}. */
    public String quoted() {
        return schema.map(s -> SqlQuote.identifier(s) + ".").orElse("") + SqlQuote.identifier(name);
    }

    @Override
    public String toString() {
        return quoted();
    }

    private static final class Parser {
        private final String text;
        private int at;

        Parser(String text) {
            this.text = text;
        }

        List<String> parts() {
            List<String> parts = new ArrayList<>();
            skipSpaces();
            if (at == text.length()) {
                throw new IllegalArgumentException("table name is empty");
            }
            while (true) {
                parts.add(truncate(part()));
                skipSpaces();
                if (at == text.length()) {
                    return parts;
                }
                if (text.charAt(at) != '.') {
                    throw error("expected '.' or the end");
                }
                at++;
                skipSpaces();
            }
        }

        private String part() {
            if (at == text.length()) {
                throw error("expected a name");
            }
            return text.charAt(at) == '"' ? quotedPart() : plainPart();
        }

        private String quotedPart() {
            int start = at;
            at++;
            StringBuilder out = new StringBuilder();
            while (true) {
                if (at == text.length()) {
                    at = start;
                    throw error("unterminated quoted name");
                }
                char c = text.charAt(at++);
                if (c == '"') {
                    if (at < text.length() && text.charAt(at) == '"') {
                        out.append('"');
                        at++;
                    } else {
                        break;
                    }
                } else {
                    out.append(c);
                }
            }
            if (out.isEmpty()) {
                at = start;
                throw error("a quoted name cannot be empty (\"\")");
            }
            return out.toString();
        }

        private String plainPart() {
            int start = at;
            char first = text.charAt(at);
            if (!(isLetter(first) || first == '_')) {
                throw error("unexpected '" + first + "'; quote names that start with other characters");
            }
            StringBuilder out = new StringBuilder();
            while (at < text.length()) {
                char c = text.charAt(at);
                if (isLetter(c) || c == '_' || c == '$' || (c >= '0' && c <= '9')) {
                    out.append(c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c);
                    at++;
                } else {
                    break;
                }
            }
            if (at == start) {
                throw error("expected a name");
            }
            return out.toString();
        }

        /** As PostgreSQL's scanner: ASCII letters and any non-ASCII character may appear in an unquoted name. */
        private static boolean isLetter(char c) {
            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
        }

        private void skipSpaces() {
            while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
                at++;
            }
        }

        private IllegalArgumentException error(String what) {
            return new IllegalArgumentException("cannot read table name '" + text + "' at position " + (at + 1)
                    + ": " + what);
        }

        private static String truncate(String identifier) {
            byte[] bytes = identifier.getBytes(StandardCharsets.UTF_8);
            if (bytes.length <= MAX_IDENTIFIER_BYTES) {
                return identifier;
            }
            int end = MAX_IDENTIFIER_BYTES;
            while (end > 0 && (bytes[end] & 0xC0) == 0x80) {
                end--; // do not cut a multi-byte character in half
            }
            return new String(bytes, 0, end, StandardCharsets.UTF_8);
        }
    }
}
