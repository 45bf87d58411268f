package io.sluice.app.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.ContextAwareBase;
import org.slf4j.Logger;

/**
 * Logback's configuration when Spring does not start (it does not for plain runs and plans): libraries' warnings
 * on stderr, nothing below WARN. Without it Logback logs everything at DEBUG to stdout, where `plan --format json`
 * and `run --output json` write their results (the embedded server's start-up lines broke a plan's JSON). Found by
 * ServiceLoader (META-INF/services), so no XML is parsed at start-up.
 */
public final class StderrLogging extends ContextAwareBase implements Configurator {
    @Override
    public ExecutionStatus configure(LoggerContext context) {
        apply(context);
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }

    /** Sets {@code context} (reset, or new) to this configuration: also for a command that resets it (lint). */
    public static void apply(LoggerContext context) {
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern("%d{HH:mm:ss.SSS} %-5level %logger{36} - %msg%n");
        encoder.start();
        ConsoleAppender<ILoggingEvent> stderr = new ConsoleAppender<>();
        stderr.setContext(context);
        stderr.setName("stderr");
        stderr.setTarget("System.err");
        stderr.setEncoder(encoder);
        stderr.start();
        ch.qos.logback.classic.Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.WARN);
        root.addAppender(stderr);
        // MariaDB Connector/J logs every server error at WARN before throwing it; Sluice reports the error itself,
        // with its code and fix (application.properties says the same when Spring starts).
        context.getLogger("org.mariadb.jdbc").setLevel(Level.ERROR);
    }
}
