package io.sluice.core.plan;

import io.sluice.core.SluiceException;
import io.sluice.core.spec.ColumnMapping;
import io.sluice.spi.data.Column;
import io.sluice.spi.data.ColumnPair;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The three cases of generated columns (Pagila's film shape), by name and by position. */
class ColumnMapperTest {
    private static final Column ID = plain("film_id");
    private static final Column LENGTH = plain("length");

    @Test
    void generatedOnBothSidesIsLeftOutWhateverTheKinds() {
        List<Column> source = List.of(ID, LENGTH, generated("length_hours", Column.Generation.VIRTUAL),
                generated("length_days", Column.Generation.STORED));
        List<Column> target = List.of(ID, LENGTH, generated("length_hours", Column.Generation.STORED),
                generated("length_days", Column.Generation.VIRTUAL));
        for (ColumnMapping mode : ColumnMapping.values()) {
            ColumnMappingPlan plan = ColumnMapper.plan("film", source, target, mode);
            assertEquals(List.of("film_id", "length"), targets(plan.copied()), mode.toString());
            assertEquals(List.of("length_hours", "length_days"), targets(plan.leftOut()), mode.toString());
            assertEquals(Column.Generation.VIRTUAL, plan.leftOut().getFirst().source().generation());
            assertEquals(Column.Generation.STORED, plan.leftOut().getFirst().target().generation());
        }
    }

    @Test
    void aGeneratedSourceColumnIntoAPlainTargetColumnIsCopied() {
        List<Column> source = List.of(ID, generated("length_hours", Column.Generation.VIRTUAL));
        List<Column> target = List.of(ID, plain("length_hours"));
        for (ColumnMapping mode : ColumnMapping.values()) {
            ColumnMappingPlan plan = ColumnMapper.plan("film", source, target, mode);
            assertEquals(List.of("film_id", "length_hours"), targets(plan.copied()), mode.toString());
            assertTrue(plan.leftOut().isEmpty(), mode.toString());
        }
    }

    @Test
    void aPlainSourceColumnIntoAGeneratedTargetColumnIsRefusedNamingTheKind() {
        List<Column> source = List.of(ID, plain("Length_Hours"));
        List<Column> target = List.of(ID, generated("length_hours", Column.Generation.VIRTUAL));
        SluiceException e = assertThrows(SluiceException.class,
                () -> ColumnMapper.plan("film", source, target, ColumnMapping.NAME));
        assertEquals("MAP004", e.code());
        assertEquals("stream 'film': source column \"Length_Hours\" maps onto target column \"length_hours\", which "
                + "is GENERATED ALWAYS AS (...) VIRTUAL: the target computes it and a copy cannot write it",
                e.getMessage());
        assertTrue(e.fix().orElseThrow().contains("source query"), e.fix().toString());
    }

    @Test
    void byPositionAPlainSourceSkipsTheTargetsGeneratedColumns() {
        List<Column> source = List.of(plain("a"), plain("b"));
        List<Column> target = List.of(plain("x"), generated("g", Column.Generation.STORED), plain("y"));
        ColumnMappingPlan plan = ColumnMapper.plan("s", source, target, ColumnMapping.POSITION);
        assertEquals(List.of("x", "y"), targets(plan.copied()));
    }

    private static List<String> targets(List<ColumnPair> pairs) {
        return pairs.stream().map(p -> p.target().name()).toList();
    }

    private static Column plain(String name) {
        return new Column(name, "integer", 23, true, Column.Generation.NONE);
    }

    private static Column generated(String name, Column.Generation generation) {
        return new Column(name, "numeric", 1700, true, generation);
    }
}
