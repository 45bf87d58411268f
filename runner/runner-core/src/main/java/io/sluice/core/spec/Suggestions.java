package io.sluice.core.spec;

import java.util.Collection;
import java.util.Comparator;
import java.util.Optional;

/** "Did you mean ...?": the closest known word by edit distance, when it is close enough to be a typo. */
final class Suggestions {
    private Suggestions() {
    }

    static Optional<String> closest(String word, Collection<String> candidates) {
        return candidates.stream()
                .filter(c -> isTypoOf(word, c))
                .min(Comparator.comparingInt((String c) -> distance(word, c)).thenComparing(c -> c));
    }

    /** "did you mean 'degree'?" or, with no close candidate, the list of what is allowed, in the given order. */
    static String fixFor(String word, Collection<String> candidates, String listIntro) {
        return closest(word, candidates)
                .map(c -> "did you mean '" + c + "'?")
                .orElseGet(() -> candidates.isEmpty() ? "remove it" : listIntro + ": " + String.join(", ", candidates));
    }

    private static boolean isTypoOf(String word, String candidate) {
        int d = distance(word.toLowerCase(java.util.Locale.ROOT), candidate);
        // One or two edits catch most typos; longer words tolerate a third of their length.
        return d <= Math.max(2, candidate.length() / 3) && d < Math.max(word.length(), candidate.length());
    }

    /** Damerau-Levenshtein (optimal string alignment), so a swapped pair of letters counts as one edit. */
    static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }
}
