package io.sluice.connector.duckdb;

import org.duckdb.DuckDBChunkedResult;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.sql.SQLException;

/**
 * duckdb_jdbc 1.5.5.1's {@code DuckDBChunkedResult.nextChunk()} returns false both at the end and when the query
 * failed mid-stream (a corrupt file, an interrupt): the error stays in the result and only the package-private
 * {@code checkError()} reports it (measured: a glob with a corrupt second file "ended" after 2,957,312 rows).
 * Without this check a failed read would look like a short, successful one, so Sluice calls it after the last
 * chunk and refuses to run if it cannot.
 */
final class ChunkErrors {
    private static final MethodHandle CHECK_ERROR = find();

    private ChunkErrors() {
    }

    private static MethodHandle find() {
        try {
            var method = DuckDBChunkedResult.class.getDeclaredMethod("checkError");
            method.setAccessible(true);
            return MethodHandles.lookup().unreflect(method).asType(MethodType.methodType(void.class,
                    DuckDBChunkedResult.class));
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("this duckdb_jdbc has no DuckDBChunkedResult.checkError(): "
                    + "Sluice cannot tell a failed read from a finished one; use duckdb_jdbc 1.5.5.1", e);
        }
    }

    /** Throws the error a chunked result ended with, if any. */
    static void check(DuckDBChunkedResult result) throws SQLException {
        try {
            CHECK_ERROR.invokeExact(result);
        } catch (SQLException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
