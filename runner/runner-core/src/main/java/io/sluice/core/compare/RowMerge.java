package io.sluice.core.compare;

import io.sluice.toolkit.compare.CodePointOrder;

import io.sluice.spi.data.HashedRow;
import io.sluice.spi.data.HashedRows;
import io.sluice.spi.error.ConnectorException;

import java.util.List;
import java.util.Objects;

/**
 * Walks two listings in their common order, a run of equal keys at a time, and records what differs: a key on one
 * side only (as often as it is there more), or a key on both with other values. A run of equal keys is only ever
 * held as its count and first row, so memory stays bounded whatever the table.
 */
final class RowMerge {
    private RowMerge() {
    }

    static void merge(HashedRows source, HashedRows target, Differences differences) throws ConnectorException {
        HashedRow s = source.next();
        HashedRow t = target.next();
        while (s != null || t != null) {
            int order = s == null ? 1 : t == null ? -1 : CodePointOrder.compare(s.key(), t.key());
            List<String> key = order <= 0 ? s.key() : t.key();
            HashedRow firstSource = order <= 0 ? s : null;
            HashedRow firstTarget = order >= 0 ? t : null;
            long onSource = 0;
            while (order <= 0 && s != null && s.key().equals(key)) {
                onSource++;
                s = source.next();
            }
            long onTarget = 0;
            while (order >= 0 && t != null && t.key().equals(key)) {
                onTarget++;
                t = target.next();
            }
            if (firstSource != null && firstTarget != null
                    && !Objects.equals(firstSource.columnHashes(), firstTarget.columnHashes())) {
                differences.changed(key, firstSource.columnHashes(), firstTarget.columnHashes());
            }
            if (onSource > onTarget) {
                differences.add(key, Difference.Kind.MISSING, onSource - onTarget);
            } else if (onTarget > onSource) {
                differences.add(key, Difference.Kind.EXTRA, onTarget - onSource);
            }
        }
    }
}
