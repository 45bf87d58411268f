package io.sluice.app.cli;

import io.sluice.app.report.SluiceVersion;
import io.sluice.core.connector.ConnectorRegistry;
import io.sluice.spi.connector.ConnectorFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code sluice version}: what this build is and what it runs on, including each connector's drivers as they report
 * themselves and which fast paths into their internals are on.
 */
@Command(name = "version", description = "Print the version of Sluice and of its runtime.")
final class VersionCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        for (String line : new Provider().getVersion()) {
            spec.commandLine().getOut().println(line);
        }
    }

    static final class Provider implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            List<String> lines = new ArrayList<>(List.of(
                    "sluice " + SluiceVersion.get() + " (" + SluiceVersion.commit() + ")",
                    // The platform too: support asks which architecture's natives (DuckDB, PostgreSQL) ran.
                    "java " + Runtime.version() + " (" + System.getProperty("java.vendor") + "), "
                            + System.getProperty("os.name").toLowerCase(java.util.Locale.ROOT) + "/"
                            + System.getProperty("os.arch")));
            for (ConnectorFactory factory : ConnectorRegistry.fromClassPath().all()) {
                factory.runtimeNotes().forEach(note -> lines.add(factory.name() + ": " + note));
            }
            return lines.toArray(String[]::new);
        }
    }
}
