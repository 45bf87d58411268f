package io.sluice.connector.postgres.read;

import io.sluice.connector.postgres.catalog.ResolvedTable;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static io.sluice.connector.postgres.catalog.PostgresCode.PG303;
import static io.sluice.connector.postgres.catalog.PostgresCode.PG304;

/**
 * Splits a table's heap into block ranges read with a TID Range Scan (PostgreSQL 14+). Block counts come from
 * {@code pg_relation_size} (relpages may be stale). The first range is {@code ctid < '(b,0)'} and the last
 * {@code ctid >= '(a,0)'}, open-ended so rows added past the planned end are still read. A table with inheritance
 * children or partitions is planned per member with {@code FROM ONLY}, since ctids are per relation.
 */
public final class CtidPlanner implements PartitionPlanner {
    private record Member(ResolvedTable table, long blocks) {
    }

    @Override
    public List<PgPartition> plan(PlanContext context) throws SQLException, ConnectorException {
        ResolvedTable root = context.relation().table().orElseThrow(() -> new ConnectorException(
                ErrorKind.INVALID_SPEC, PG303, "distribution ctid needs a table, but this source is a query",
                "use range, ntile, modulo or data-driven with a key, or read a table"));
        if (root.relkind() == 'v') {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, PG303, "distribution ctid needs a table, but "
                    + root.quoted() + " is a view", "use range, ntile, modulo or data-driven with a key");
        }
        int version = context.catalog().serverVersionNum();
        if (version < 140000) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, PG304, "distribution ctid needs PostgreSQL 14 "
                    + "or newer (TID Range Scan); the source server is " + version / 10000,
                    "use distribution range (or ntile) with a numeric, date or timestamp key");
        }
        List<Member> members = members(context, root, !context.relation().ownRowsOnly());
        if (members.isEmpty()) { // a partitioned table without partitions
            RowEstimator.Estimate none = context.estimator().estimate(root.quoted(), Optional.empty());
            return List.of(PgPartition.of("ctid:all", context.relation().fromClause(), Optional.empty(), none.rows(), none.bytes(), false));
        }
        boolean perMember = members.size() != 1 || members.get(0).table().oid() != root.oid();
        long totalBlocks = members.stream().mapToLong(Member::blocks).sum();
        int wanted = context.partitionsWanted();
        List<PgPartition> partitions = new ArrayList<>();
        for (Member member : members) {
            String from = perMember ? "ONLY " + member.table().quoted() : context.relation().fromClause();
            String idPrefix = "ctid:" + (perMember ? member.table().schema() + "." + member.table().name() + ":" : "");
            RowEstimator.Estimate memberEstimate = context.estimator().estimate(from, Optional.empty());
            if (member.table().relkind() == 'f' || member.blocks() == 0) {
                // No heap to split (a foreign table) or nothing in it yet: read it whole.
                partitions.add(new PgPartition(idPrefix + "all", context.relation().fromClause(), from, Optional.empty(),
                        memberEstimate.rows(), memberEstimate.bytes(), perMember, false));
                continue;
            }
            long ranges = totalBlocks == 0 ? 1 : Math.round((double) wanted * member.blocks() / totalBlocks);
            ranges = Math.max(1, Math.min(ranges, member.blocks()));
            long step = (member.blocks() + ranges - 1) / ranges;
            for (long start = 0; start < member.blocks(); start += step) {
                long end = start + step;
                boolean first = start == 0;
                boolean last = end >= member.blocks();
                Optional<String> where;
                if (first && last) {
                    where = Optional.empty();
                } else if (first) {
                    where = Optional.of("ctid < " + tid(end));
                } else if (last) {
                    where = Optional.of("ctid >= " + tid(start));
                } else {
                    where = Optional.of("ctid >= " + tid(start) + " AND ctid < " + tid(end));
                }
                long rangeBlocks = Math.min(end, member.blocks()) - start;
                RowEstimator.Estimate estimate = memberEstimate.scaled((double) rangeBlocks / member.blocks());
                partitions.add(new PgPartition(idPrefix + start + "-" + (last ? "end" : Long.toString(end)),
                        context.relation().fromClause(), from, where, estimate.rows(), estimate.bytes(), perMember,
                        false));
            }
        }
        return partitions;
    }

    private static String tid(long block) {
        return "'(" + block + ",0)'";
    }

    /** The table and every inheritance child or partition below it that holds rows of its own. */
    private static List<Member> members(PlanContext context, ResolvedTable root, boolean withChildren)
            throws SQLException {
        String sql = "WITH RECURSIVE tree(relid) AS (SELECT ?::oid UNION SELECT i.inhrelid FROM pg_inherits i "
                + "JOIN tree t ON i.inhparent = t.relid WHERE " + withChildren + ") "
                + "SELECT c.oid, n.nspname, c.relname, c.relkind, "
                + "CASE WHEN c.relkind IN ('r', 'm') THEN pg_relation_size(c.oid, 'main') "
                + "/ current_setting('block_size')::bigint ELSE 0 END "
                + "FROM tree JOIN pg_class c ON c.oid = tree.relid JOIN pg_namespace n ON n.oid = c.relnamespace "
                + "WHERE c.relkind IN ('r', 'm', 'f') ORDER BY c.oid = ?::oid DESC, n.nspname, c.relname";
        List<Member> members = new ArrayList<>();
        try (PreparedStatement p = context.catalog().connection().prepareStatement(sql)) {
            p.setLong(1, root.oid());
            p.setLong(2, root.oid());
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    members.add(new Member(new ResolvedTable(rs.getLong(1), rs.getString(2), rs.getString(3),
                            rs.getString(4).charAt(0)), rs.getLong(5)));
                }
            }
        }
        return members;
    }
}
