package io.sluice.connector.postgres.catalog;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;

/**
 * Table names that stand for many: a source pattern ({@code sales.*}, {@code "Sales".tmp_?}) and a target template
 * ({@code staging.{table}}, {@code raw.{schema}_{table}}). Both follow PostgreSQL's identifier rules part by part:
 * unquoted text folds to lower case, quoted text is taken as written (its {@code *}, {@code ?} and braces too).
 * In a pattern, unquoted {@code *} matches any run of characters and {@code ?} one, never across the dot; a pattern
 * without a schema matches in the schema an unqualified CREATE TABLE would use. In a template, {@code {schema}} and
 * {@code {table}} are replaced by the matched table's names exactly as they are, so a part that holds one is an
 * exact (quoted) name.
 */
public final class TableNames {
    private TableNames() {
    }

    /** Whether {@code text} is a pattern: an unquoted {@code *} or {@code ?}. */
    public static boolean isPattern(String text) {
        return hasUnquoted(text, "*?");
    }

    /** Whether {@code text} is a template: an unquoted {@code {schema}} or {@code {table}}. */
    public static boolean isTemplate(String text) {
        List<Part> parts = parts(text, false);
        return parts.stream().anyMatch(p -> p.segments().stream().anyMatch(s -> !s.quoted()
                && (s.text().contains("{schema}") || s.text().contains("{table}"))));
    }

    /** A compiled pattern: an optional schema part and a table part, each a regex over exact names. */
    public record Match(java.util.Optional<Pattern> schema, Pattern table) {
        public boolean matches(String schemaName, String tableName) {
            return schema.map(p -> p.matcher(schemaName).matches()).orElse(true) && table.matcher(tableName).matches();
        }
    }

    public static Match pattern(String text) {
        List<Part> parts = parts(text, true);
        if (parts.size() > 2) {
            throw new IllegalArgumentException("'" + text + "' has " + parts.size() + " dotted parts; write "
                    + "schema.table_pattern");
        }
        Pattern table = regex(parts.getLast());
        return new Match(parts.size() == 2 ? java.util.Optional.of(regex(parts.getFirst())) : java.util.Optional.empty(),
                table);
    }

    /** Fills a template with the matched table's names; the result is a qualified name as {@link QualifiedName}. */
    public static QualifiedName fill(String template, Map<String, String> names) {
        List<Part> parts = parts(template, false);
        if (parts.size() > 2) {
            throw new IllegalArgumentException("'" + template + "' has " + parts.size() + " dotted parts; write "
                    + "schema.{table}");
        }
        List<String> filled = new ArrayList<>();
        for (Part part : parts) {
            StringBuilder out = new StringBuilder();
            for (Segment s : part.segments()) {
                String text = s.quoted() ? s.text() : s.text().toLowerCase(java.util.Locale.ROOT);
                if (!s.quoted()) {
                    for (Map.Entry<String, String> name : names.entrySet()) {
                        text = text.replace("{" + name.getKey() + "}", name.getValue());
                    }
                }
                out.append(text);
            }
            filled.add(out.toString());
        }
        return filled.size() == 2 ? QualifiedName.of(filled.get(0), filled.get(1))
                : new QualifiedName(java.util.Optional.empty(), filled.getFirst());
    }

    private record Segment(String text, boolean quoted) {
    }

    private record Part(List<Segment> segments) {
    }

    private static Pattern regex(Part part) {
        StringBuilder regex = new StringBuilder();
        for (Segment s : part.segments()) {
            if (s.quoted()) {
                regex.append(Pattern.quote(s.text()));
                continue;
            }
            for (char c : s.text().toLowerCase(java.util.Locale.ROOT).toCharArray()) {
                regex.append(c == '*' ? ".*" : c == '?' ? "." : Pattern.quote(String.valueOf(c)));
            }
        }
        return Pattern.compile(regex.toString(), Pattern.DOTALL);
    }

    private static boolean hasUnquoted(String text, String characters) {
        boolean quoted = false;
        for (char c : text.toCharArray()) {
            if (c == '"') {
                quoted = !quoted;
            } else if (!quoted && characters.indexOf(c) >= 0) {
                return true;
            }
        }
        return false;
    }

    /** Splits on unquoted dots into parts of quoted and unquoted segments ("" inside quotes is one quote). */
    private static List<Part> parts(String text, boolean pattern) {
        requireNonNull(text, "text is null");
        List<Part> parts = new ArrayList<>();
        List<Segment> segments = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        int i = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c == '"') {
                if (!current.isEmpty()) {
                    segments.add(new Segment(current.toString().strip(), false));
                    current.setLength(0);
                }
                StringBuilder quoted = new StringBuilder();
                i++;
                while (true) {
                    if (i >= text.length()) {
                        throw new IllegalArgumentException("unterminated quoted name in '" + text + "'");
                    }
                    char q = text.charAt(i++);
                    if (q == '"') {
                        if (i < text.length() && text.charAt(i) == '"') {
                            quoted.append('"');
                            i++;
                        } else {
                            break;
                        }
                    } else {
                        quoted.append(q);
                    }
                }
                segments.add(new Segment(quoted.toString(), true));
            } else if (c == '.') {
                if (!current.isEmpty()) {
                    segments.add(new Segment(current.toString().strip(), false));
                    current.setLength(0);
                }
                parts.add(new Part(List.copyOf(segments)));
                segments.clear();
                i++;
            } else {
                current.append(c);
                i++;
            }
        }
        if (!current.isEmpty()) {
            segments.add(new Segment(current.toString().strip(), false));
        }
        parts.add(new Part(List.copyOf(segments)));
        for (Part part : parts) {
            if (part.segments().isEmpty() || part.segments().stream().allMatch(s -> s.text().isEmpty())) {
                throw new IllegalArgumentException("'" + text + "' has an empty part; write schema." + (pattern
                        ? "table_pattern" : "{table}"));
            }
        }
        return parts;
    }
}
