package io.sluice.core.spec;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;

class SuggestionsTest {
    private static final List<String> KEYS = List.of("degree", "batch-size", "load-mode", "distribution", "retry");

    @Test
    void suggestsCloseKeysOnly() {
        assertEquals(Optional.of("degree"), Suggestions.closest("degre", KEYS));
        assertEquals(Optional.of("batch-size"), Suggestions.closest("batchsize", KEYS));
        assertEquals(Optional.of("retry"), Suggestions.closest("rerty", KEYS));
        assertEquals(Optional.of("load-mode"), Suggestions.closest("LOAD-MODE", KEYS));
        assertEquals(Optional.empty(), Suggestions.closest("colour", KEYS));
        assertEquals("allowed keys: degree, batch-size, load-mode, distribution, retry",
                Suggestions.fixFor("colour", KEYS, "allowed keys"));
    }
}
