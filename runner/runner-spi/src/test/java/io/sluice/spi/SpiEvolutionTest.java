package io.sluice.spi;

import io.sluice.spi.connector.ConnectionConfig;
import io.sluice.spi.connector.Connector;
import io.sluice.spi.connector.ConnectorFactory;
import io.sluice.spi.connector.Option;
import io.sluice.spi.connector.OptionSchema;
import io.sluice.spi.connector.Role;
import io.sluice.spi.connector.SourceCapabilities;
import io.sluice.spi.data.Column;
import io.sluice.spi.data.ColumnPair;
import io.sluice.spi.read.DistributionMethod;
import io.sluice.spi.read.PartitionReader;
import io.sluice.spi.read.PlanRequest;
import io.sluice.spi.read.Source;
import io.sluice.spi.read.SourcePartition;
import io.sluice.spi.read.SourceProjection;
import io.sluice.spi.read.SourceSession;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Connectors written against the SPI before it grew keep compiling and working; new ones need only the new forms. */
class SpiEvolutionTest {
    @Test
    void capabilitiesFollowRowsPerPartitionOnlyForMethodsTheyPlan() {
        assertThrows(IllegalArgumentException.class, () -> new SourceCapabilities(Set.of(DistributionMethod.NONE),
                Set.of(DistributionMethod.CTID)));
        assertFalse(SourceCapabilities.noneOnly().plansRowsPerPartition(DistributionMethod.NONE));
    }

    @Test
    void namingSurvivesTheOtherDeclarations() {
        Option<String> table = Option.string("table").naming().required().describedAs("a table");
        assertTrue(table.isNaming());
        assertTrue(table.isRequired());
        assertFalse(Option.string("format").oneOf("csv").isNaming());
    }

    private static final SourceSession SESSION = new SourceSession() {
        @Override
        public String snapshotMode() {
            return "none";
        }

        @Override
        public PartitionReader openReader(SourcePartition partition, SourceProjection projection) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void close() {
        }
    };

    private static class NamedFactory implements ConnectorFactory {
        @Override
        public String name() {
            return "before";
        }

        @Override
        public String description() {
            return "a connector written before capabilities";
        }

        @Override
        public Set<Role> roles() {
            return Set.of(Role.SOURCE);
        }

        @Override
        public OptionSchema connectionOptions() {
            return OptionSchema.empty();
        }

        @Override
        public Connector create(ConnectionConfig config) {
            throw new UnsupportedOperationException();
        }
    }

    private abstract static class PlainSource implements Source {
        @Override
        public String describe() {
            return "plain";
        }

        @Override
        public List<Column> columns() {
            return List.of();
        }

        @Override
        public SourceProjection project(List<ColumnPair> pairs) {
            throw new UnsupportedOperationException();
        }

        @Override
        public List<SourcePartition> plan(PlanRequest request) {
            return List.of();
        }

        @Override
        public String readStatement(SourcePartition partition, SourceProjection projection) {
            return "";
        }
    }
}
