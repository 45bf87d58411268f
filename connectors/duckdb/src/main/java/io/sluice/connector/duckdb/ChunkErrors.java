package io.sluice.connector.duckdb;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.toolkit.driver.DriverMembers;
import io.sluice.toolkit.driver.DriverVersion;
import org.duckdb.DuckDBChunkedResult;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.sql.SQLException;
import java.util.Optional;
import java.util.function.Supplier;

import static io.sluice.connector.duckdb.DuckDbCode.DUCK113;

/**
 * duckdb_jdbc 1.5.5.1's {@code DuckDBChunkedResult.nextChunk()} returns false both at the end and when the query
 * failed mid-stream (a corrupt file, an interrupt): the error stays in the result and only the package-private
 * {@code checkError()} reports it (measured: a glob with a corrupt second file "ended" after 2,957,312 rows).
 * Without this check a failed read would look like a short, successful one. Unlike a fast path it has no public
 * alternative, so on any duckdb_jdbc but the tested one, or without the method, DuckDB sources refuse to run
 * (DUCK113, at preflight) rather than risk reporting a partial read as done.
 */
final class ChunkErrors {
    static final String METHOD = "DuckDBChunkedResult.checkError()";

    private ChunkErrors() {
    }

    /** Fails with DUCK113 unless this runtime's chunked results can report a mid-query failure. */
    static void require() throws ConnectorException {
        Optional<String> problem = problem(DuckDbJdbcVersion.runtime(), Pinned::checkError);
        if (problem.isPresent()) {
            throw unavailable(problem.get());
        }
    }

    /** One line for plans and {@code sluice version}. */
    static String describe() {
        DriverVersion runtime = DuckDbJdbcVersion.runtime();
        return problem(runtime, Pinned::checkError)
                .map(p -> "mid-query failures: cannot be detected, DuckDB sources refuse to run (DUCK113: " + p + ")")
                .orElse("mid-query failures: detected with " + METHOD + " of " + runtime.describe());
    }

    /**
     * Why {@link #check} cannot be trusted on {@code runtime}, if it cannot; {@code checkError} is looked up only on
     * the tested version.
     */
    static Optional<String> problem(DriverVersion runtime, Supplier<DriverMembers<MethodHandle>> checkError) {
        if (!runtime.is(DuckDbJdbcVersion.TESTED)) {
            return Optional.of(runtime.describe() + " is not " + DuckDbJdbcVersion.TESTED
                    + ", the version whose mid-query failures Sluice was tested to detect");
        }
        DriverMembers<MethodHandle> found = checkError.get();
        return found.missing().map(missing -> runtime.describe() + " has no usable " + METHOD + " (" + missing + ")");
    }

    static ConnectorException unavailable(String problem) {
        return new ConnectorException(ErrorKind.PREFLIGHT, DUCK113, problem + ". Without " + METHOD
                + " a read that fails mid-query (a corrupt file, a lost connection) looks like the end of the data, "
                + "so Sluice refuses to read DuckDB sources rather than report a short load as done",
                "run Sluice with the duckdb_jdbc it ships with (" + DuckDbJdbcVersion.TESTED
                        + "); another duckdb_jdbc needs a Sluice release tested with it");
    }

    /** Throws the error a chunked result ended with, if any; {@link #require()} has passed. */
    static void check(DuckDBChunkedResult result) throws SQLException, ConnectorException {
        MethodHandle checkError = Pinned.checkError().found().orElseThrow(() -> unavailable(
                DuckDbJdbcVersion.runtime().describe() + " has no usable " + METHOD));
        try {
            checkError.invokeExact(result);
        } catch (SQLException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** {@code void name()} of {@code DuckDBChunkedResult} as a handle taking the result. */
    static MethodHandle find(String name) throws ReflectiveOperationException {
        Method method = DuckDBChunkedResult.class.getDeclaredMethod(name);
        if (method.getReturnType() != void.class) {
            throw new NoSuchMethodException("DuckDBChunkedResult." + name + "() returns "
                    + method.getReturnType().getName() + ", not void");
        }
        method.setAccessible(true);
        return MethodHandles.lookup().unreflect(method)
                .asType(MethodType.methodType(void.class, DuckDBChunkedResult.class));
    }

    /** Looked up on first use, after the version check, and never again. */
    private static final class Pinned {
        private static final DriverMembers<MethodHandle> CHECK_ERROR = DriverMembers.find(() -> find("checkError"));

        static DriverMembers<MethodHandle> checkError() {
            return CHECK_ERROR;
        }
    }
}
