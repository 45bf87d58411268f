package io.sluice.spi;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Connectors written against the SPI before it grew keep compiling and working; new ones need only the new forms. */
@SuppressWarnings("deprecation")
class SpiEvolutionTest {
    @Test
    void aFactoryThatListsDistributionMethodsGetsThemAsCapabilitiesEachFollowingRowsPerPartition() {
        ConnectorFactory before = new NamedFactory() {
            @Override
            public Set<DistributionMethod> distributionMethods() {
                return EnumSet.of(DistributionMethod.NONE, DistributionMethod.MODULO);
            }
        };
        SourceCapabilities capabilities = before.sourceCapabilities();
        assertTrue(capabilities.supports(DistributionMethod.MODULO));
        assertFalse(capabilities.supports(DistributionMethod.CTID));
        assertTrue(capabilities.plansRowsPerPartition(DistributionMethod.MODULO));
        assertEquals(SourceCapabilities.assumingRowsPerPartition(Set.of(DistributionMethod.NONE)),
                new NamedFactory().sourceCapabilities());
    }

    @Test
    void capabilitiesFollowRowsPerPartitionOnlyForMethodsTheyPlan() {
        assertThrows(IllegalArgumentException.class, () -> new SourceCapabilities(Set.of(DistributionMethod.NONE),
                Set.of(DistributionMethod.CTID)));
        assertFalse(SourceCapabilities.noneOnly().plansRowsPerPartition(DistributionMethod.NONE));
    }

    @Test
    void aSourceWithTheOldOpenSessionIsOpenedThroughTheNewOne() throws ConnectorException {
        List<String> calls = new ArrayList<>();
        Source before = new PlainSource() {
            @Override
            public SourceSession openSession(Consistency consistency, int readers) {
                calls.add(consistency + "/" + readers);
                return SESSION;
            }
        };
        assertEquals(SESSION, before.openSession(Consistency.SNAPSHOT));
        assertEquals(List.of("SNAPSHOT/1"), calls);
    }

    @Test
    void aSourceWithTheNewOpenSessionAnswersTheOldOne() throws ConnectorException {
        List<Consistency> calls = new ArrayList<>();
        Source after = new PlainSource() {
            @Override
            public SourceSession openSession(Consistency consistency) {
                calls.add(consistency);
                return SESSION;
            }
        };
        assertEquals(SESSION, after.openSession(Consistency.NONE, 8));
        assertEquals(List.of(Consistency.NONE), calls);
    }

    @Test
    void planRequestKeepsItsOldAccessor() {
        PlanRequest request = new PlanRequest(Distribution.none(), 2, 5000);
        assertEquals(5000, request.rowsPerPartition());
        assertEquals(5000, request.batchSizeRows());
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
