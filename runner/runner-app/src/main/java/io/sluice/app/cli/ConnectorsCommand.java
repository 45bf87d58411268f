package io.sluice.app.cli;

import io.sluice.core.connector.ConnectorRegistry;
import io.sluice.spi.connector.ConnectorFactory;
import io.sluice.spi.connector.Option;
import io.sluice.spi.connector.OptionSchema;
import io.sluice.spi.connector.Role;
import io.sluice.spi.connector.SourceCapabilities;
import io.sluice.spi.connector.TargetCapabilities;
import io.sluice.spi.read.DistributionMethod;
import picocli.CommandLine.Command;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.util.stream.Collectors;

/** {@code sluice connectors}: the installed connectors (found with ServiceLoader) and the options they take. */
@Command(name = "connectors", description = "List the installed connectors and their options.")
final class ConnectorsCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        PrintWriter out = spec.commandLine().getOut();
        for (ConnectorFactory factory : ConnectorRegistry.fromClassPath().all()) {
            out.println(factory.name() + " — " + factory.description());
            out.println("  roles: " + factory.roles().stream().map(r -> r.name().toLowerCase(java.util.Locale.ROOT))
                    .collect(Collectors.joining(", ")));
            if (factory.roles().contains(Role.SOURCE)) {
                SourceCapabilities source = factory.sourceCapabilities();
                out.println("  distribution methods: " + source.distributionMethods().stream().sorted()
                        .map(DistributionMethod::specName).collect(Collectors.joining(", ")));
                out.println("  source: " + (source.sharesSnapshot() ? "readers share one snapshot"
                        : "no shared snapshot (each partition reads what is there when it starts)") + "; readers on "
                        + source.readerThreads().name().toLowerCase(java.util.Locale.ROOT) + " threads");
            }
            if (factory.roles().contains(Role.TARGET)) {
                TargetCapabilities target = factory.targetCapabilities();
                out.println("  load modes: " + target.loadModes().stream().sorted()
                        .map(m -> m.name().toLowerCase(java.util.Locale.ROOT)).collect(Collectors.joining(", "))
                        + (target.rebuildsIndexes() ? "; indexes: rebuild" : ""));
                out.println("  target: " + (target.replacesInOneTransaction()
                        ? "a truncate load by one worker runs in one transaction" : "one transaction per partition")
                        + (target.joinedRuns() ? "; several processes may load it together (--join)" : ""));
            }
            print(out, "connection options", factory.connectionOptions(), "    ");
            print(out, "source options", factory.sourceOptions(), "    ");
            print(out, "target options", factory.targetOptions(), "    ");
            out.println();
        }
    }

    private static void print(PrintWriter out, String title, OptionSchema schema, String indent) {
        if (schema.isEmpty()) {
            return;
        }
        out.println("  " + title + ":");
        printOptions(out, schema, indent);
    }

    private static void printOptions(PrintWriter out, OptionSchema schema, String indent) {
        for (Option<?> option : schema.options()) {
            StringBuilder line = new StringBuilder(indent).append(option.key())
                    .append(" (").append(option.type().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
            if (option.isRequired()) {
                line.append(", required");
            }
            option.defaultValue().ifPresent(d -> line.append(", default ").append(d));
            if (!option.allowedValues().isEmpty()) {
                line.append(", one of ").append(String.join("|", option.allowedValues()));
            }
            if (option.isSecret()) {
                line.append(", secret");
            }
            line.append(")");
            if (!option.description().isEmpty()) {
                line.append(": ").append(option.description());
            }
            out.println(line);
            option.nested().ifPresent(nested -> printOptions(out, nested, indent + "  "));
        }
    }
}
