package io.sluice.bench;

import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;
import org.postgresql.copy.CopyOut;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

/**
 * The plain Java pipe the engine's issue measured: one platform thread loops {@code readFromCopy()} (a row per call),
 * packs rows into a reused 64 KiB buffer and hands it to {@code writeToCopy()}. No planning, no snapshot, no
 * partitions: the cost of a JVM and PgJDBC alone. Run as its own process by {@link JavaPipeScenario}; endpoints and
 * passwords come from the environment (SRC_URL, SRC_USER, SRC_PASSWORD, DST_...), tables from the arguments.
 */
public final class JavaCopyPipe {
    private JavaCopyPipe() {
    }

    public static void main(String[] args) throws SQLException {
        if (args.length != 2) {
            throw new IllegalArgumentException("usage: JavaCopyPipe SOURCE_TABLE TARGET_TABLE");
        }
        try (Connection source = connect("SRC"); Connection target = connect("DST")) {
            CopyOut out = source.unwrap(PGConnection.class).getCopyAPI()
                    .copyOut("COPY " + args[0] + " TO STDOUT (FORMAT binary)");
            CopyIn in = target.unwrap(PGConnection.class).getCopyAPI()
                    .copyIn("COPY " + args[1] + " FROM STDIN (FORMAT binary)");
            try {
                byte[] buffer = new byte[1 << 16];
                int filled = 0;
                byte[] row;
                while ((row = out.readFromCopy()) != null) {
                    if (filled + row.length > buffer.length) {
                        in.writeToCopy(buffer, 0, filled);
                        filled = 0;
                        if (row.length > buffer.length) {
                            in.writeToCopy(row, 0, row.length);
                            continue;
                        }
                    }
                    System.arraycopy(row, 0, buffer, filled, row.length);
                    filled += row.length;
                }
                if (filled > 0) {
                    in.writeToCopy(buffer, 0, filled);
                }
                System.out.println(in.endCopy() + " rows");
            } finally {
                if (out.isActive()) {
                    out.cancelCopy();
                }
                if (in.isActive()) {
                    in.cancelCopy();
                }
            }
        }
    }

    private static Connection connect(String side) throws SQLException {
        return DriverManager.getConnection(System.getenv(side + "_URL"), System.getenv(side + "_USER"),
                System.getenv(side + "_PASSWORD"));
    }
}
