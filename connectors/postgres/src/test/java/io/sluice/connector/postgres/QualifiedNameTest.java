package io.sluice.connector.postgres;

import io.sluice.connector.postgres.catalog.QualifiedName;
import io.sluice.connector.postgres.catalog.SqlQuote;

import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class QualifiedNameTest {
    @Test
    void unquotedNamesFoldToLowerCase() {
        assertEquals(QualifiedName.of("public", "orders"), QualifiedName.parse("Public.ORDERS"));
        assertEquals(new QualifiedName(Optional.empty(), "orders"), QualifiedName.parse("Orders"));
        assertEquals(QualifiedName.of("s", "t"), QualifiedName.parse("  s . t  "));
        assertEquals(QualifiedName.of("s_1$", "t2"), QualifiedName.parse("S_1$.T2"));
    }

    @Test
    void quotedNamesKeepCaseDotsSpacesAndQuotes() {
        QualifiedName name = QualifiedName.parse("\"Odd Schema\".\"Weird \"\"Table\"\".v1\"");
        assertEquals(QualifiedName.of("Odd Schema", "Weird \"Table\".v1"), name);
        assertEquals("\"Odd Schema\".\"Weird \"\"Table\"\".v1\"", name.quoted());
        assertEquals(QualifiedName.parse(name.quoted()), name);
    }

    @Test
    void nonAsciiIsKeptAndNotFolded() {
        assertEquals(QualifiedName.of("données", "Été"), QualifiedName.parse("DONNées.\"Été\""));
        assertEquals(QualifiedName.of("données", "été"), QualifiedName.parse("données.été"));
    }

    @Test
    void longNamesAreTruncatedLikePostgres() {
        String seventy = "a".repeat(70);
        assertEquals("a".repeat(63), QualifiedName.parse(seventy).name());
        String multiByte = "é".repeat(40); // 80 bytes: cut at a character boundary
        assertEquals("é".repeat(31), QualifiedName.parse("\"" + multiByte + "\"").name());
    }

    @Test
    void badSyntaxIsRefusedWithPosition() {
        assertThrows(IllegalArgumentException.class, () -> QualifiedName.parse(""));
        assertThrows(IllegalArgumentException.class, () -> QualifiedName.parse("a.b.c"));
        assertThrows(IllegalArgumentException.class, () -> QualifiedName.parse("a."));
        assertThrows(IllegalArgumentException.class, () -> QualifiedName.parse(".a"));
        assertThrows(IllegalArgumentException.class, () -> QualifiedName.parse("\"\""));
        assertThrows(IllegalArgumentException.class, () -> QualifiedName.parse("1abc"));
        assertThrows(IllegalArgumentException.class, () -> QualifiedName.parse("a b"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> QualifiedName.parse("s.\"open"));
        assertTrue(e.getMessage().contains("unterminated") && e.getMessage().contains("position 3"),
                e.getMessage());
    }

    @Test
    void quotingDoublesQuotes() {
        assertEquals("\"a\"\"b\"", SqlQuote.identifier("a\"b"));
        assertEquals("'it''s \\ fine'", SqlQuote.literal("it's \\ fine"));
        assertThrows(IllegalArgumentException.class, () -> SqlQuote.literal("nul\0"));
    }
}
