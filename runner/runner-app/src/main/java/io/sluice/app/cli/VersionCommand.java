package io.sluice.app.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code sluice version}: what this build is and what it runs on. */
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
            String version = SluiceCommand.class.getPackage().getImplementationVersion();
            return new String[] {
                    "sluice " + (version == null ? "development build" : version),
                    "java " + Runtime.version() + " (" + System.getProperty("java.vendor") + ")"};
        }
    }
}
