package io.sluice.toolkit;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a piece of user-written SQL (PostgreSQL's lexical rules) holds outside its quotes: whether a filter is one
 * expression that stays inside the parentheses Sluice puts around it, and where a placeholder would land inside a
 * quoted string or identifier. A scan, not a parser: quotes ({@code '...'}, {@code E'...'}, {@code "..."},
 * {@code $tag$...$tag$}) and comments are told apart from the rest; nothing else is judged.
 */
public final class SqlText {
    private SqlText() {
    }

    /** A stretch of the text that is not plain SQL: a quoted string or identifier, or a comment. */
    private record Quoted(int start, int end, char kind) {
    }

    /**
     * Why {@code filter} is not one expression that can be put between parentheses and ANDed with others: it closes
     * a parenthesis it did not open, leaves one open, ends a statement ({@code ;}), holds a comment, leaves a quote
     * open, or is empty. Empty when it is one.
     */
    public static Optional<String> notOneExpression(String filter) {
        if (filter.isBlank()) {
            return Optional.of("it is empty");
        }
        Scan scan = scan(filter);
        if (scan.open != null) {
            return Optional.of("a " + scan.open + " opened at character " + (scan.openAt + 1) + " is never closed");
        }
        for (Quoted q : scan.quoted) {
            if (q.kind() == '-' || q.kind() == '/') {
                return Optional.of("it holds a comment at character " + (q.start() + 1));
            }
        }
        int depth = 0;
        for (int i = 0; i < filter.length(); i++) {
            if (scan.inside(i)) {
                continue;
            }
            char c = filter.charAt(i);
            if (c == ';') {
                return Optional.of("it ends a statement with ';' at character " + (i + 1));
            }
            if (c == '(') {
                depth++;
            } else if (c == ')' && --depth < 0) {
                return Optional.of("it closes a parenthesis it did not open, at character " + (i + 1));
            }
        }
        return depth == 0 ? Optional.empty() : Optional.of(depth + " parenthesis(es) left open");
    }

    /** The offsets at which {@code placeholder} starts inside a quoted string or identifier or a comment. */
    public static List<Integer> quotedOccurrences(String sql, String placeholder) {
        Scan scan = scan(sql);
        List<Integer> found = new ArrayList<>();
        for (int at = sql.indexOf(placeholder); at >= 0; at = sql.indexOf(placeholder, at + 1)) {
            if (scan.inside(at)) {
                found.add(at);
            }
        }
        return found;
    }

    private static final class Scan {
        final List<Quoted> quoted = new ArrayList<>();
        String open;
        int openAt;

        boolean inside(int at) {
            for (Quoted q : quoted) {
                if (at >= q.start() && at < q.end()) {
                    return true;
                }
            }
            return false;
        }
    }

    private static Scan scan(String sql) {
        Scan scan = new Scan();
        int n = sql.length();
        int i = 0;
        while (i < n) {
            char c = sql.charAt(i);
            int start = i;
            if (c == '\'') {
                boolean escapes = i > 0 && (sql.charAt(i - 1) == 'E' || sql.charAt(i - 1) == 'e')
                        && (i < 2 || !Character.isLetterOrDigit(sql.charAt(i - 2)) && sql.charAt(i - 2) != '_');
                i = endOfQuote(sql, i + 1, '\'', escapes);
                if (i < 0) {
                    return unclosed(scan, "quoted string", start);
                }
                scan.quoted.add(new Quoted(start, i, '\''));
            } else if (c == '"') {
                i = endOfQuote(sql, i + 1, '"', false);
                if (i < 0) {
                    return unclosed(scan, "quoted identifier", start);
                }
                scan.quoted.add(new Quoted(start, i, '"'));
            } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                int end = sql.indexOf('\n', i);
                i = end < 0 ? n : end;
                scan.quoted.add(new Quoted(start, i, '-'));
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                i = endOfComment(sql, i + 2);
                if (i < 0) {
                    return unclosed(scan, "comment", start);
                }
                scan.quoted.add(new Quoted(start, i, '/'));
            } else if (c == '$' && dollarTag(sql, i) != null
                    && (i == 0 || !Character.isLetterOrDigit(sql.charAt(i - 1)) && sql.charAt(i - 1) != '_')) {
                String tag = dollarTag(sql, i);
                int end = sql.indexOf(tag, i + tag.length());
                if (end < 0) {
                    return unclosed(scan, "dollar-quoted string", start);
                }
                i = end + tag.length();
                scan.quoted.add(new Quoted(start, i, '$'));
            } else {
                i++;
            }
        }
        return scan;
    }

    private static Scan unclosed(Scan scan, String what, int at) {
        scan.open = what;
        scan.openAt = at;
        scan.quoted.add(new Quoted(at, Integer.MAX_VALUE, '?'));
        return scan;
    }

    /** The index just past the quote that closes one opened before {@code from}; -1 when none does. */
    private static int endOfQuote(String sql, int from, char quote, boolean escapes) {
        int i = from;
        while (i < sql.length()) {
            char c = sql.charAt(i);
            if (escapes && c == '\\') {
                i += 2;
            } else if (c == quote) {
                if (i + 1 < sql.length() && sql.charAt(i + 1) == quote) {
                    i += 2; // a doubled quote stands for itself
                } else {
                    return i + 1;
                }
            } else {
                i++;
            }
        }
        return -1;
    }

    /** Block comments nest in PostgreSQL. */
    private static int endOfComment(String sql, int from) {
        int depth = 1;
        int i = from;
        while (i + 1 < sql.length()) {
            if (sql.charAt(i) == '/' && sql.charAt(i + 1) == '*') {
                depth++;
                i += 2;
            } else if (sql.charAt(i) == '*' && sql.charAt(i + 1) == '/') {
                if (--depth == 0) {
                    return i + 2;
                }
                i += 2;
            } else {
                i++;
            }
        }
        return -1;
    }

    /** The {@code $tag$} opening at {@code at}, or null when none does ({@code $1} is a parameter). */
    private static String dollarTag(String sql, int at) {
        int i = at + 1;
        while (i < sql.length() && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '_')) {
            if (i == at + 1 && Character.isDigit(sql.charAt(i))) {
                return null;
            }
            i++;
        }
        return i < sql.length() && sql.charAt(i) == '$' ? sql.substring(at, i + 1) : null;
    }
}
