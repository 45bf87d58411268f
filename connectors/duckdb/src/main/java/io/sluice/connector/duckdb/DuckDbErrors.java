package io.sluice.connector.duckdb;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.toolkit.Redactor;

import java.sql.SQLException;
import java.util.Locale;

import static io.sluice.connector.duckdb.DuckDbCode.DUCK101;
import static io.sluice.connector.duckdb.DuckDbCode.DUCK102;
import static io.sluice.connector.duckdb.DuckDbCode.DUCK103;
import static io.sluice.connector.duckdb.DuckDbCode.DUCK104;
import static io.sluice.connector.duckdb.DuckDbCode.DUCK105;
import static io.sluice.connector.duckdb.DuckDbCode.DUCK106;
import static io.sluice.connector.duckdb.DuckDbCode.DUCK107;
import static io.sluice.connector.duckdb.DuckDbCode.DUCK108;
import static io.sluice.connector.duckdb.DuckDbCode.DUCK109;
import static io.sluice.connector.duckdb.DuckDbCode.DUCK300;

/**
 * Turns DuckDB's SQLExceptions into ConnectorExceptions of the right kind. DuckDB prefixes each message with its
 * error class ("IO Error:", "Binder Error:", "HTTP Error:"...), which is what the kind is decided from. The text is
 * scrubbed of secrets, and the SQLException is not chained because its message is not.
 */
final class DuckDbErrors {
    enum Phase {
        /** Describing or planning: nothing was read yet. */
        PREFLIGHT,
        /** A reader streaming rows. */
        READ
    }

    private DuckDbErrors() {
    }

    static ConnectorException translate(SQLException e, Phase phase, String what, Redactor redactor) {
        String message = redactor.redact(firstLines(e.getMessage()));
        String lower = message.toLowerCase(Locale.ROOT);
        if (lower.contains("no files found that match the pattern")) {
            return new ConnectorException(ErrorKind.PREFLIGHT, DUCK101, "no file matches " + what + ": " + message,
                    "check the path or glob; relative paths resolve against the spec's folder");
        }
        if (lower.contains("http 403") || lower.contains("403 (forbidden)") || lower.contains("accessdenied")
                || lower.contains("signaturedoesnotmatch") || lower.contains("invalidaccesskeyid")) {
            return new ConnectorException(ErrorKind.PREFLIGHT, DUCK102, "access denied reading " + what + ": "
                    + message, "check the s3 key-id/secret (or the credential chain) and the bucket's permissions");
        }
        if (lower.contains("http 404") || lower.contains("404 (not found)") || lower.contains("nosuchbucket")
                || lower.contains("nosuchkey")) {
            return new ConnectorException(ErrorKind.PREFLIGHT, DUCK103, "not found: " + what + ": " + message,
                    "check the bucket and key, and the s3 endpoint and url-style");
        }
        if (lower.contains("extension") && (lower.contains("not found") || lower.contains("autoloading")
                || lower.contains("autoinstall"))) {
            return new ConnectorException(ErrorKind.PREFLIGHT, DUCK104, "a DuckDB extension is missing while "
                    + "reading " + what + ": " + message,
                    "provision it under extension-directory (see docs/duckdb.md), or allow DuckDB to download it");
        }
        // Before the corrupt-file check: a cut transfer or a refused connection can come wrapped in an input error.
        if (unreachable(lower)) {
            return new ConnectorException(phase == Phase.READ ? ErrorKind.TRANSIENT : ErrorKind.PREFLIGHT,
                    DUCK107, "cannot reach the storage of " + what + ": " + message, phase == Phase.READ
                    ? "a passing network or server fault: the partition is retried; if it goes on, check the s3 "
                    + "endpoint and the network, then sluice run --resume"
                    : "check the s3 endpoint (host and port), use-ssl (true only where the server speaks TLS) and the "
                    + "network; nothing was read");
        }
        if (lower.contains("invalid unicode") || lower.contains("not valid utf-8") || lower.contains("utf-8")
                && lower.contains("invalid")) {
            return new ConnectorException(ErrorKind.DATA, DUCK300, "DuckDB could not read " + what + ": " + message,
                    "the file is not UTF-8 text: a files: source reads UTF-8; read it with a query: source that names "
                            + "its encoding, e.g. SELECT * FROM read_csv('<file>', encoding = 'latin-1'), or convert "
                            + "it (iconv -f latin1 -t utf-8)");
        }
        if (lower.startsWith("invalid input error") || lower.startsWith("conversion error")
                || lower.contains("corrupt") || lower.contains("magic bytes") || lower.contains("decompression")) {
            return new ConnectorException(ErrorKind.DATA, DUCK300,
                    "DuckDB could not read " + what + ": " + message,
                    "check that the file is complete and of the declared format, or fix the value in the query; "
                            + "once it is, sluice run --resume loads the rest (the partitions done stay done)");
        }
        if (lower.startsWith("parser error") || lower.startsWith("binder error")) {
            return new ConnectorException(ErrorKind.INVALID_SPEC, DUCK105, "the query does not compile ("
                    + what + "): " + message, "fix the DuckDB SQL; try it in the duckdb shell");
        }
        if (lower.startsWith("catalog error")) {
            return new ConnectorException(ErrorKind.PREFLIGHT, DUCK106, "DuckDB does not know an object in " + what
                    + ": " + message, "check table, function and type names (and the database file)");
        }
        if (phase == Phase.PREFLIGHT && lower.startsWith("io error")) {
            return new ConnectorException(ErrorKind.PREFLIGHT, DUCK108, "DuckDB cannot open " + what + ": "
                    + message, "check that the path exists and is readable");
        }
        return new ConnectorException(ErrorKind.FAILED, DUCK109, "DuckDB failed on " + what + ": " + message,
                "see the DuckDB message; if it is an INTERNAL error, report it with the query");
    }

    /** The storage could not be reached or cut the transfer: a network or server fault, not the data's. */
    private static boolean unreachable(String lower) {
        return lower.contains("could not resolve host") || lower.contains("connection refused")
                || lower.contains("could not connect") || lower.contains("failed to connect")
                || lower.contains("couldn't connect") || lower.contains("timeout") || lower.contains("timed out")
                || lower.contains("connection reset") || lower.contains("partial file")
                || lower.contains("receiving data from the peer") || lower.contains("sending data to the peer")
                || lower.contains("recv failure") || lower.contains("send failure")
                || lower.contains("connection aborted") || lower.contains("connection closed")
                || lower.contains("transferred a partial") || lower.contains("server returned nothing")
                || lower.contains("empty reply") || lower.contains("ssl") || lower.contains("tls")
                || java.util.regex.Pattern.compile("http[^0-9]{0,12}5\\d\\d").matcher(lower).find()
                || lower.contains("service unavailable") || lower.contains("slow down")
                || lower.contains("internal server error") || lower.contains("bad gateway");
    }

    /** DuckDB appends the SQL with a caret ("LINE 1: ...") to parser errors; keep the first lines only. */
    private static String firstLines(String message) {
        if (message == null) {
            return "(no message)";
        }
        String m = message.startsWith("Query failed: ") ? message.substring("Query failed: ".length()) : message;
        int line = m.indexOf("\nLINE ");
        if (line >= 0) {
            m = m.substring(0, line);
        }
        return m.strip().replace('\n', ' ');
    }
}
