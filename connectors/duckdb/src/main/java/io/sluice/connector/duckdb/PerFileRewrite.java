package io.sluice.connector.duckdb;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;

/**
 * The per-file rewrite of a data-driven stream keyed by file name. When the query reads exactly one file-reading
 * table function whose first argument is a string literal (the glob) and which adds the file name column
 * ({@code filename=true} or {@code filename='col'}), and the distribution key is that column, then the partition of
 * file F runs the same query with F's literal in place of the glob. Each partition then opens only its file instead
 * of filtering rows of all files. Anything else falls back to {@code WHERE key = value} over the query.
 */
final class PerFileRewrite {
    private static final Set<String> FILE_FUNCTIONS = Set.of("read_parquet", "parquet_scan", "read_csv",
            "read_csv_auto", "read_json", "read_json_auto", "read_ndjson", "read_ndjson_auto");
    private static final Pattern FILENAME_OPTION =
            Pattern.compile("(?i)\\bfilename\\s*(?:=|:=)\\s*(true|1|'((?:[^']|'')*)')");

    private final String query;
    private final int literalStart;
    private final int literalEnd;
    private final String glob;

    private PerFileRewrite(String query, int literalStart, int literalEnd, String glob) {
        this.query = requireNonNull(query, "query is null");
        this.literalStart = literalStart;
        this.literalEnd = literalEnd;
        this.glob = requireNonNull(glob, "glob is null");
    }

    /** The rewrite for {@code key} over {@code query}, or empty when the rule does not apply. */
    static Optional<PerFileRewrite> analyze(String query, String key) {
        List<Call> calls = fileCalls(query);
        if (calls.size() != 1) {
            return Optional.empty();
        }
        Call call = calls.get(0);
        Matcher option = FILENAME_OPTION.matcher(query.substring(call.literalEnd, call.argsEnd));
        if (!option.find()) {
            return Optional.empty();
        }
        String column = option.group(2) != null ? option.group(2).replace("''", "'") : "filename";
        if (!unquote(key).equalsIgnoreCase(column)) {
            return Optional.empty();
        }
        return Optional.of(new PerFileRewrite(query, call.literalStart, call.literalEnd, call.literal));
    }

    /** The glob the query reads. */
    String glob() {
        return glob;
    }

    /** The query reading only {@code file}. */
    String forFile(String file) {
        return query.substring(0, literalStart) + Sql.literal(file) + query.substring(literalEnd);
    }

    private static String unquote(String key) {
        String k = key.strip();
        if (k.length() >= 2 && k.startsWith("\"") && k.endsWith("\"")) {
            return k.substring(1, k.length() - 1).replace("\"\"", "\"");
        }
        return k;
    }

    private record Call(int literalStart, int literalEnd, String literal, int argsEnd) {
    }

    /** File-reading calls whose first argument is a string literal, found outside strings and comments. */
    private static List<Call> fileCalls(String sql) {
        List<Call> calls = new ArrayList<>();
        int i = 0;
        int n = sql.length();
        while (i < n) {
            char c = sql.charAt(i);
            if (c == '\'') {
                i = skipQuoted(sql, i, '\'');
            } else if (c == '"') {
                i = skipQuoted(sql, i, '"');
            } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                int eol = sql.indexOf('\n', i);
                i = eol < 0 ? n : eol + 1;
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                int end = sql.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 2;
            } else if (Character.isLetter(c) || c == '_') {
                int start = i;
                while (i < n && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '_')) {
                    i++;
                }
                String word = sql.substring(start, i).toLowerCase(Locale.ROOT);
                if (FILE_FUNCTIONS.contains(word)) {
                    int j = skipSpace(sql, i);
                    if (j < n && sql.charAt(j) == '(') {
                        int k = skipSpace(sql, j + 1);
                        if (k < n && sql.charAt(k) == '\'') {
                            int literalEnd = skipQuoted(sql, k, '\'');
                            String literal = sql.substring(k + 1, literalEnd - 1).replace("''", "'");
                            calls.add(new Call(k, literalEnd, literal, argumentsEnd(sql, j)));
                        }
                    }
                }
            } else {
                i++;
            }
        }
        return calls;
    }

    /** Index of the ')' closing the '(' at {@code open} (or the end of the text). */
    private static int argumentsEnd(String sql, int open) {
        int depth = 0;
        int i = open;
        while (i < sql.length()) {
            char c = sql.charAt(i);
            if (c == '\'' || c == '"') {
                i = skipQuoted(sql, i, c);
                continue;
            }
            if (c == '(') {
                depth++;
            } else if (c == ')' && --depth == 0) {
                return i;
            }
            i++;
        }
        return sql.length();
    }

    /** Index just after the quoted token starting at {@code at}; doubled quotes stay inside. */
    private static int skipQuoted(String sql, int at, char quote) {
        int i = at + 1;
        while (i < sql.length()) {
            if (sql.charAt(i) == quote) {
                if (i + 1 < sql.length() && sql.charAt(i + 1) == quote) {
                    i += 2;
                    continue;
                }
                return i + 1;
            }
            i++;
        }
        return sql.length();
    }

    private static int skipSpace(String sql, int i) {
        while (i < sql.length() && Character.isWhitespace(sql.charAt(i))) {
            i++;
        }
        return i;
    }
}
