package io.sluice.core.run;

import io.sluice.core.SluiceException;
import io.sluice.core.connector.ConnectorRegistry;
import io.sluice.core.plan.Connections;
import io.sluice.core.plan.PlanOptions;
import io.sluice.core.plan.Planner;
import io.sluice.core.spec.Environment;
import io.sluice.core.spec.PipelineSpec;
import io.sluice.core.spec.SpecLoader;
import io.sluice.spi.connector.ConnectionConfig;
import io.sluice.spi.connector.Connector;
import io.sluice.spi.connector.ConnectorFactory;
import io.sluice.spi.connector.OptionSchema;
import io.sluice.spi.connector.Role;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code --join} against a target whose connector does not declare joined runs ({@code TargetCapabilities}). */
class JoinedTargetTest {
    @TempDir
    Path dir;

    @Test
    void aJoinedRunIsRefusedAtPlanTimeNotWhenTheTargetIsClaimed() throws Exception {
        ConnectorFactory memory = new ConnectorFactory() {
            @Override
            public String name() {
                return "memory";
            }

            @Override
            public String description() {
                return "rows in memory, a target of the basics only";
            }

            @Override
            public Set<Role> roles() {
                return EnumSet.of(Role.SOURCE, Role.TARGET);
            }

            @Override
            public OptionSchema connectionOptions() {
                return OptionSchema.empty();
            }

            @Override
            public Connector create(ConnectionConfig config) {
                return new MemoryConnector(List.of(new MemoryConnector.Part("a", 10, MemoryConnector.Fault.NONE)));
            }
        };
        ConnectorRegistry registry = new ConnectorRegistry(List.of(memory));
        Path file = dir.resolve("spec.yaml");
        Files.writeString(file, """
                version: 1
                name: t
                connections:
                  mem: { type: memory }
                streams:
                  - name: s
                    source: { connection: mem }
                    target: { connection: mem }
                """);
        PipelineSpec spec = new SpecLoader(registry, Environment.of(Map.of()), SpecLoader.Mode.RUN).load(file)
                .spec().orElseThrow();
        try (Connections connections = new Connections(registry, spec, dir)) {
            SluiceException refused = assertThrows(SluiceException.class,
                    () -> new Planner(2, new PlanOptions(true, false)).plan(spec, connections));
            assertEquals("PLAN003", refused.code());
            assertTrue(refused.getMessage().contains("cannot be loaded by several processes of one run"),
                    refused.getMessage());
        }
    }
}
