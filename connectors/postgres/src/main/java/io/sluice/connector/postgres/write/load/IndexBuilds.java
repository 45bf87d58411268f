package io.sluice.connector.postgres.write.load;

import io.sluice.connector.postgres.catalog.PostgresCode;
import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.connector.postgres.session.PostgresErrors;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;

/**
 * Builds indexes several at once, each on a connection of its own, at most {@code degree} at a time (each build is a
 * scan and a sort, so more than the cores only queue); a build's statements (the index, then the constraint that
 * adopts it) run in order. Every build runs to its end; the first failure is then reported.
 */
public final class IndexBuilds {
    private IndexBuilds() {
    }

    static void run(PostgresConnections connections, List<List<String>> builds, int degree, String what)
            throws ConnectorException {
        List<List<String>> todo = builds.stream().filter(b -> !b.isEmpty()).toList();
        if (todo.isEmpty()) {
            return;
        }
        Semaphore permits = new Semaphore(Math.max(1, degree));
        List<Future<ConnectorException>> results = new ArrayList<>();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (List<String> build : todo) {
                results.add(threads.submit(() -> {
                    permits.acquire();
                    try {
                        return build(connections, build, what);
                    } finally {
                        permits.release();
                    }
                }));
            }
        }
        for (Future<ConnectorException> result : results) {
            ConnectorException failure;
            try {
                failure = result.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ConnectorException(ErrorKind.FAILED, PostgresCode.PG210, what
                        + " was interrupted", null);
            } catch (java.util.concurrent.ExecutionException e) {
                throw new IllegalStateException(what + " failed unexpectedly", e.getCause());
            }
            if (failure != null) {
                throw failure;
            }
        }
    }

    private static ConnectorException build(PostgresConnections connections, List<String> statements, String what) {
        String current = statements.getFirst();
        try (Connection c = connections.open(what); Statement s = c.createStatement()) {
            for (String statement : statements) {
                current = statement;
                s.execute(statement);
            }
            return null;
        } catch (SQLException e) {
            return connections.errors().translate(e, PostgresErrors.Phase.COPY, what + ": " + current);
        } catch (ConnectorException e) {
            return e;
        }
    }
}
