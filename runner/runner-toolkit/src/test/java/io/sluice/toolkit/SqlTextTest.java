package io.sluice.toolkit;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SqlTextTest {
    @Test
    void oneExpressionPassesWhateverItsQuotesHold() {
        for (String ok : List.of("id % 2 = 0", "status <> 'a) OR (b'", "(a > 1) AND (b < 2)", "name = 'it''s'",
                "\"odd)name\" = 1", "note = E'\\') or (x'", "body = $q$ ); -- $q$", "x = $1")) {
            assertEquals(Optional.empty(), SqlText.notOneExpression(ok), ok);
        }
    }

    @Test
    void whatEscapesItsParenthesesIsNamed() {
        assertTrue(SqlText.notOneExpression("id > 500000) OR (id < 1000").orElseThrow()
                .contains("closes a parenthesis it did not open, at character 12"));
        assertTrue(SqlText.notOneExpression("id > 1; DROP TABLE t").orElseThrow().contains("';' at character 7"));
        assertTrue(SqlText.notOneExpression("id > 1 -- and the rest").orElseThrow().contains("comment"));
        assertTrue(SqlText.notOneExpression("id > 1 /* x */").orElseThrow().contains("comment"));
        assertTrue(SqlText.notOneExpression("(id > 1").orElseThrow().contains("left open"));
        assertTrue(SqlText.notOneExpression("name = 'open").orElseThrow().contains("quoted string opened at "
                + "character 8 is never closed"));
        assertTrue(SqlText.notOneExpression(" ").orElseThrow().contains("empty"));
    }

    @Test
    void aPlaceholderInsideQuotesIsFoundOutsideIsNot() {
        assertEquals(List.of(38), SqlText.quotedOccurrences("insert into log(what) values ('loaded {table}')",
                "{table}"));
        assertEquals(List.of(), SqlText.quotedOccurrences("analyze {table}", "{table}"));
        assertEquals(List.of(5), SqlText.quotedOccurrences("x = \"{table}\"", "{table}"));
        assertEquals(List.of(), SqlText.quotedOccurrences("select 'a' || {table_literal}", "{table}"));
    }
}
