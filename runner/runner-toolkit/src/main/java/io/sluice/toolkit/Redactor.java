package io.sluice.toolkit;

import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Removes secrets from any text before it leaves the process: every known secret value (interpolated values and
 * secret options) and any password embedded in a URL. The one redactor of Sluice: the runner applies it at every
 * output edge (logs, plans, errors, summaries, the ledger), and connectors apply it to what their drivers and servers
 * echo back (a URL, a statement with a key), with the secrets of their connection.
 */
public final class Redactor {
    public static final String MASK = "***";
    private static final Pattern URL_PASSWORD = Pattern.compile("(?i)(password=)[^&\\s\"']+");
    private static final Pattern URL_USERINFO = Pattern.compile("(://[^/:@\\s]+:)[^@/\\s]+(@)");
    private static final Redactor NONE = new Redactor(List.of());

    /** Below this length a secret is masked only as a word of its own: "long" must not turn "longer" into "***er". */
    private static final int ANYWHERE_LENGTH = 12;

    private final List<String> secrets;
    /** The short secrets' patterns, by secret: not inside a longer run of letters and digits. */
    private final java.util.Map<String, Pattern> words;

    public Redactor(Collection<String> secrets) {
        // Longest first, so a secret that contains another is masked whole. Very short values would mask ordinary
        // words, so they are kept out: a two-letter secret is no secret.
        this.secrets = secrets.stream()
                .filter(s -> s != null && s.length() >= 3)
                .flatMap(Redactor::forms)
                .distinct()
                .sorted(Comparator.comparingInt(String::length).reversed())
                .toList();
        this.words = new java.util.HashMap<>();
        for (String secret : this.secrets) {
            if (secret.length() < ANYWHERE_LENGTH) {
                words.put(secret, Pattern.compile("(?<![\\p{Alnum}_])" + Pattern.quote(secret)
                        + "(?![\\p{Alnum}_])"));
            }
        }
    }

    /**
     * The forms a secret takes once it is put into SQL or JSON: quotes doubled in a SQL literal, quotes and
     * backslashes escaped in JSON and Java strings. Each is masked like the secret itself.
     */
    private static java.util.stream.Stream<String> forms(String secret) {
        return java.util.stream.Stream.of(secret, secret.replace("'", "''"), secret.replace("\"", "\"\""),
                secret.replace("\\", "\\\\").replace("\"", "\\\""), secret.replace("'", "\\'"));
    }

    public static Redactor none() {
        return NONE;
    }

    public String redact(String text) {
        if (text == null || text.isEmpty()) {
            return text;
        }
        String result = text;
        for (String secret : secrets) {
            if (result.contains(secret)) {
                Pattern word = words.get(secret);
                result = word == null ? result.replace(secret, MASK)
                        : word.matcher(result).replaceAll(java.util.regex.Matcher.quoteReplacement(MASK));
            }
        }
        result = URL_PASSWORD.matcher(result).replaceAll("$1" + MASK);
        return URL_USERINFO.matcher(result).replaceAll("$1" + MASK + "$2");
    }
}
