package io.sluice.connector.duckdb;

import io.sluice.spi.connector.Connector;
import io.sluice.spi.connector.Options;
import io.sluice.spi.connector.Sources;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.read.Source;

import java.util.ArrayList;
import java.util.List;

import static java.util.Objects.requireNonNull;

/** A {@code type: duckdb} connection: one DuckDB instance, opened on first use, shared by its sources. */
final class DuckDbConnector implements Connector {
    private final DuckDbDatabase database;

    DuckDbConnector(DuckDbSettings settings) {
        this.database = new DuckDbDatabase(requireNonNull(settings, "settings is null"));
    }

    @Override
    public java.util.Optional<Sources> sources() {
        return java.util.Optional.of(this::source);
    }

    /** The source side of a stream, from its validated {@code source:} options. */
    public Source source(Options sourceOptions) throws ConnectorException {
        return new DuckDbSource(database, SourceRelation.from(sourceOptions, database.settings()));
    }

    @Override
    public List<String> notices() {
        DuckDbSettings settings = database.settings();
        List<String> notices = new ArrayList<>();
        notices.add("DuckDB database " + settings.database());
        settings.extensionDirectory().ifPresent(dir -> notices.add("DuckDB extensions from " + dir
                + " only (no downloads)"));
        settings.s3().ifPresent(s3 -> notices.add("S3: " + s3));
        return notices;
    }

    @Override
    public void close() {
        database.close();
    }
}
