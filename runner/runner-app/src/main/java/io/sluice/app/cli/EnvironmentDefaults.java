package io.sluice.app.cli;

import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;

import java.util.List;
import java.util.Locale;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * Defaults of the global options from the environment, as Sling and Meltano users set them in a scheduler:
 * {@code --log-format} from {@code SLUICE_LOG_FORMAT}, and so on ({@link #variable}). Only the options that shape
 * how Sluice reports and where it keeps state: an option that changes what a run does ({@code --force},
 * {@code --resume}) never comes from a variable left set in a shell. A flag given on the command line wins.
 */
final class EnvironmentDefaults implements CommandLine.IDefaultValueProvider {
    static final List<String> OPTIONS = List.of("--state-dir", "--log-format", "--verbose", "--metrics-push",
            "--metrics-push-interval", "--progress-interval");

    private final Map<String, String> environment;

    EnvironmentDefaults(Map<String, String> environment) {
        this.environment = Map.copyOf(requireNonNull(environment, "environment is null"));
    }

    /** {@code SLUICE_} and the option's name in capitals, dashes as underscores. */
    static String variable(String option) {
        return "SLUICE_" + option.substring(2).replace('-', '_').toUpperCase(Locale.ROOT);
    }

    @Override
    public String defaultValue(ArgSpec argument) {
        if (!(argument instanceof OptionSpec option) || !OPTIONS.contains(option.longestName())) {
            return null;
        }
        String value = environment.get(variable(option.longestName()));
        return value == null || value.isBlank() ? null : value.strip();
    }
}
