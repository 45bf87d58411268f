package io.sluice.connector.postgres.read;

import io.sluice.spi.data.TableDefinition;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Which tables' definitions ask the catalog for the sequences and functions their expressions use: only those whose
 * text (as pg_get_expr prints it with an empty search_path) may name one the copy does not make.
 */
class DefinitionUsesTest {
    private static TableDefinition.ColumnDefinition defaulting(String expression) {
        return new TableDefinition.ColumnDefinition("c", Optional.of(expression), Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty());
    }

    private static boolean asks(String defaultExpression, List<TableDefinition.Sequence> owned) {
        return DefinitionUses.mayUseMore(List.of(defaulting(defaultExpression)), owned, List.of(), List.of());
    }

    @Test
    void builtInCallsAndOwnedSequencesAskNothing() {
        TableDefinition.Sequence owned = new TableDefinition.Sequence("app.t_id_seq", "t_id_seq", "id", "");
        assertFalse(asks("now()", List.of()));
        assertFalse(asks("'x'::app.mood", List.of()), "a cast to a user type is not a call");
        assertFalse(asks("nextval('app.t_id_seq'::regclass)", List.of(owned)), "serial: made with the table");
    }

    @Test
    void aSequenceNoColumnOwnsOrAQualifiedFunctionAsks() {
        assertTrue(asks("nextval('app.actor_actor_id_seq'::regclass)", List.of()));
        assertTrue(asks("nextval('\"My Schema\".\"s''q\"'::regclass)", List.of()));
        assertTrue(asks("app.next_code()", List.of()));
        assertTrue(asks("\"Odd Schema\".\"f\" (1)", List.of()));
        assertTrue(DefinitionUses.mayUseMore(List.of(), List.of(), List.of(new TableDefinition.Constraint("k",
                'c', "CHECK (app.valid(x))", Optional.empty(), Optional.empty())), List.of()), "a check's call");
    }
}
