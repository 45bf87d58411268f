package io.sluice.core.diag;

import static java.util.Objects.requireNonNull;

/** A place in a spec file; line and column are 1-based as editors show them. */
public record Position(String file, int line, int column) {
    public Position {
        requireNonNull(file, "file is null");
    }

    @Override
    public String toString() {
        return file + ":" + line + ":" + column;
    }
}
