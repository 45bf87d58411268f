package io.sluice.app.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Writes a report file whole or not at all: a reader polling for it (Airflow, Jenkins) never sees half a document.
 */
public final class ReportFiles {
    private ReportFiles() {
    }

    /** Fails with the reason when {@link #write} could not write {@code file}: checked before a run, not after it. */
    public static void checkWritable(Path file) throws IOException {
        Path target = file.toAbsolutePath();
        if (Files.isDirectory(target)) {
            throw new IOException("it is a directory");
        }
        Files.createDirectories(target.getParent());
        Files.deleteIfExists(Files.createTempFile(target.getParent(), "." + target.getFileName(), ".tmp"));
        if (Files.exists(target) && !Files.isWritable(target)) {
            throw new IOException("the file is not writable");
        }
    }

    public static void write(Path file, String content) throws IOException {
        Path target = file.toAbsolutePath();
        Files.createDirectories(target.getParent());
        Path temporary = Files.createTempFile(target.getParent(), "." + target.getFileName(), ".tmp");
        try {
            Files.writeString(temporary, content, StandardCharsets.UTF_8);
            try {
                Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(temporary);
        }
    }
}
