package io.sluice.app.cli;

import io.sluice.core.diag.PrintableText;
import io.sluice.toolkit.Redactor;

import java.util.Collection;

/**
 * The process's output edge: everything printed passes through the redactor of the spec being run, so no secret
 * reaches a terminal or a log, whatever code produced the text.
 */
final class Terminal {
    private static volatile Terminal current = new Terminal(Redactor.none());

    private final Redactor redactor;

    private Terminal(Redactor redactor) {
        this.redactor = redactor;
    }

    static Terminal current() {
        return current;
    }

    /** Called once the spec is loaded: its secrets are masked from then on. */
    static Terminal forSecrets(Collection<String> secrets) {
        current = new Terminal(new Redactor(secrets));
        return current;
    }

    /** {@code text} as it may be printed: secrets masked, control characters made visible. */
    String redact(String text) {
        return PrintableText.lines(redactor.redact(text));
    }

    /** True when stderr is an interactive terminal, so a live progress bar makes sense. */
    static boolean interactive() {
        java.io.Console console = System.console();
        if (console == null) {
            return false;
        }
        try {
            // Java 22+ returns a console even when output is redirected; isTerminal() tells the truth there.
            return (Boolean) java.io.Console.class.getMethod("isTerminal").invoke(console);
        } catch (ReflectiveOperationException e) {
            return true; // Java 21: a console exists only for an interactive terminal
        }
    }
}
