package io.sluice.testkit;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.slf4j.LoggerFactory;

/**
 * S3Proxy brings logback, whose unconfigured default logs everything at DEBUG: Jetty, jclouds, the AWS SDK and
 * docker-java then flood test output. Raise only loggers nobody configured, so a project's own logback setup wins.
 */
final class Quiet {
    private static final String[] NOISY = {
            "org.eclipse.jetty", "org.gaul", "org.gaul.shaded", "software.amazon.awssdk", "org.apache.hc",
            "org.testcontainers", "com.github.dockerjava", "io.zonky", "tc", "org.jclouds", "jclouds"
    };

    private Quiet() {
    }

    static void noisyLoggers() {
        try {
            if (!(LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME) instanceof Logger root)
                    || root.getLevel() != Level.DEBUG) {
                return; // another slf4j binding, or logback was configured on purpose
            }
            for (String name : NOISY) {
                if (LoggerFactory.getLogger(name) instanceof Logger logger && logger.getLevel() == null) {
                    logger.setLevel(Level.WARN);
                }
            }
        } catch (LinkageError e) {
            // logback absent from this classpath: nothing to quiet
        }
    }
}
