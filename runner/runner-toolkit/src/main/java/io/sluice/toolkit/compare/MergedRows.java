package io.sluice.toolkit.compare;

import io.sluice.spi.data.HashedRow;
import io.sluice.spi.data.HashedRows;
import io.sluice.spi.error.ConnectorException;

import java.util.List;
import java.util.PriorityQueue;

/**
 * Several listings of disjoint partitions as one, in the common order (a k-way merge): the whole source of a stream
 * whose partitions the target cannot select by themselves.
 */
public final class MergedRows implements HashedRows {
    private record Head(HashedRow row, HashedRows from) {
    }

    private final List<HashedRows> all;
    private final PriorityQueue<Head> heads = new PriorityQueue<>((a, b) -> CodePointOrder.compare(a.row().key(),
            b.row().key()));

    public MergedRows(List<HashedRows> all) throws ConnectorException {
        this.all = List.copyOf(all);
        for (HashedRows rows : this.all) {
            HashedRow first = rows.next();
            if (first != null) {
                heads.add(new Head(first, rows));
            }
        }
    }

    @Override
    public HashedRow next() throws ConnectorException {
        Head head = heads.poll();
        if (head == null) {
            return null;
        }
        HashedRow following = head.from().next();
        if (following != null) {
            heads.add(new Head(following, head.from()));
        }
        return head.row();
    }

    @Override
    public void close() {
        RuntimeException first = null;
        for (HashedRows rows : all) {
            try {
                rows.close();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
