package io.sluice.connector.duckdb;

import io.sluice.spi.data.ColumnPair;
import io.sluice.spi.data.CopyFormat;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.read.SourceProjection;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * The per-column conversions of a stream. Always binary COPY: every accepted conversion has a binary encoder. The
 * notes list is shared with the source, which adds planning decisions (per-file rewrite or filter) when it plans;
 * the last two say how text is read and how a mid-query failure is caught on this duckdb_jdbc.
 */
final class DuckDbProjection implements SourceProjection {
    private final List<ColumnConversion> conversions;
    private final List<String> planNotes;
    /** columns: rules: the select list that computes, renames and masks the columns before they are converted. */
    private final java.util.Optional<String> shaping;
    /** The column pairs, for compare's texts. */
    private final List<ColumnPair> pairs;

    DuckDbProjection(List<ColumnConversion> conversions, List<String> planNotes, java.util.Optional<String> shaping,
                     List<ColumnPair> pairs) {
        this.pairs = List.copyOf(requireNonNull(pairs, "pairs is null"));
        this.conversions = List.copyOf(requireNonNull(conversions, "conversions is null"));
        this.planNotes = requireNonNull(planNotes, "planNotes is null");
        this.shaping = requireNonNull(shaping, "shaping is null");
    }

    List<ColumnConversion> conversions() {
        return conversions;
    }

    /** {@code SELECT <carriers> FROM (<relation>)}: what a reader runs. */
    String selectFrom(String relation) {
        StringBuilder sql = new StringBuilder("SELECT ");
        boolean first = true;
        for (ColumnConversion conversion : conversions) {
            for (String carrier : conversion.carriers()) {
                sql.append(first ? "" : ", ").append(carrier);
                first = false;
            }
        }
        return sql.append(" FROM (").append(shaped(relation)).append(") AS sluice_q").toString();
    }

    /** {@code relation} with the columns: rules applied: each column under its stream name. */
    String shaped(String relation) {
        return shaping.map(select -> "SELECT " + select + " FROM (" + relation + ") AS sluice_r").orElse(relation);
    }

    /** Each column's value as PostgreSQL prints the loaded one ({@link CompareText}), over {@link #shaped}. */
    List<String> compareTexts() throws ConnectorException {
        List<String> texts = new ArrayList<>();
        for (ColumnPair pair : pairs) {
            texts.add(CompareText.of(pair.source(), pair.target()));
        }
        return texts;
    }

    /** DUCK202 for the first column whose values compare cannot print as the target does. */
    @Override
    public void requireComparable() throws ConnectorException {
        compareTexts();
    }

    @Override
    public CopyFormat format() {
        return CopyFormat.BINARY;
    }

    @Override
    public List<String> expressions() {
        return conversions.stream().map(c -> String.join(", ", c.carriers())).toList();
    }

    @Override
    public List<String> notes() {
        List<String> notes = new ArrayList<>();
        conversions.forEach(c -> c.note().ifPresent(notes::add));
        notes.addAll(planNotes);
        notes.add(VectorCells.selection().describe());
        notes.add(StringCells.selection().describe());
        notes.add(ChunkErrors.describe());
        return Collections.unmodifiableList(notes);
    }
}
