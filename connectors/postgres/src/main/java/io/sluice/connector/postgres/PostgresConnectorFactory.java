package io.sluice.connector.postgres;

import io.sluice.connector.postgres.catalog.QualifiedName;
import io.sluice.connector.postgres.copy.CopyDataFrames;
import io.sluice.connector.postgres.session.EmbeddedPostgresServer;
import io.sluice.connector.postgres.session.PgJdbcVersion;
import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.connector.postgres.session.PostgresErrors;
import io.sluice.spi.data.SchemaChanges;

import io.sluice.spi.connector.ConnectionConfig;
import io.sluice.spi.connector.Connector;
import io.sluice.spi.connector.ConnectorFactory;
import io.sluice.spi.connector.OptionSchema;
import io.sluice.spi.connector.Options;
import io.sluice.spi.connector.Problem;
import io.sluice.spi.connector.Role;
import io.sluice.spi.connector.SourceCapabilities;
import io.sluice.spi.connector.StreamShape;
import io.sluice.spi.connector.TargetCapabilities;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.read.DistributionMethod;
import io.sluice.spi.read.IncrementalMode;
import io.sluice.spi.read.Source;
import io.sluice.spi.write.LoadMode;
import io.sluice.toolkit.Redactor;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

import static io.sluice.connector.postgres.catalog.PostgresCode.PG208;
import static io.sluice.connector.postgres.catalog.PostgresCode.PG405;

public final class PostgresConnectorFactory implements ConnectorFactory {
    /** Where embedded servers keep their data, under the run's state directory. */
    static final String EMBEDDED_FOLDER = "postgres-" + EmbeddedPostgresServer.MAJOR_VERSION;

    @Override
    public String name() {
        return "postgres";
    }

    @Override
    public String description() {
        return "PostgreSQL source (table or query) and target (binary COPY), or an embedded local server";
    }

    @Override
    public Set<Role> roles() {
        return EnumSet.of(Role.SOURCE, Role.TARGET);
    }

    @Override
    public OptionSchema connectionOptions() {
        return PostgresOptions.CONNECTION;
    }

    @Override
    public OptionSchema sourceOptions() {
        return PostgresOptions.SOURCE;
    }

    @Override
    public OptionSchema targetOptions() {
        return PostgresOptions.TARGET;
    }

    /** The PgJDBC that runs and whether rows are read off its protocol stream (see {@link CopyDataFrames}). */
    @Override
    public List<String> runtimeNotes() {
        return List.of(PgJdbcVersion.runtime().describe(), CopyDataFrames.selection().describe());
    }

    /**
     * Every method. ctid, range and ntile split into about rows-per-partition rows each ({@link
     * PlanContext#partitionsWanted()}); none reads whole, modulo makes degree buckets, data-driven one partition per
     * value.
     */
    static final SourceCapabilities SOURCE_CAPABILITIES = new SourceCapabilities(
            EnumSet.allOf(DistributionMethod.class),
            EnumSet.of(DistributionMethod.CTID, DistributionMethod.RANGE, DistributionMethod.NTILE),
            true, // an exported snapshot that every reader imports (PostgresSourceSession)
            Source.ThreadModel.VIRTUAL,
            // incremental windows: each partition's condition and checkpoint keep to the run's window
            Set.of(IncrementalMode.CURSOR),
            true); // checksum digests and hashed row lists (HashedRowsQuery)
    /** Any table PostgreSQL can TRUNCATE can be emptied and loaded in one transaction (ReplacingLoad). */
    static final TargetCapabilities TARGET_CAPABILITIES = new TargetCapabilities(
            EnumSet.allOf(LoadMode.class), true, true, true, EnumSet.allOf(SchemaChanges.class), true,
            true);

    @Override
    public SourceCapabilities sourceCapabilities() {
        return SOURCE_CAPABILITIES;
    }

    @Override
    public TargetCapabilities targetCapabilities() {
        return TARGET_CAPABILITIES;
    }

    @Override
    public List<Problem> lintStream(StreamShape stream) {
        return PostgresLint.lintStream(stream);
    }

    /** Both sides name one table, as written: the same name (an unqualified name resolves alike on both). */
    @Override
    public boolean sameObject(Options sourceOptions, Options targetOptions) {
        if (!sourceOptions.isSet(PostgresOptions.TABLE) || !targetOptions.isSet(PostgresOptions.TABLE)) {
            return false;
        }
        String from = sourceOptions.get(PostgresOptions.TABLE);
        String to = targetOptions.get(PostgresOptions.TABLE);
        if (from.isBlank() || to.isBlank()) {
            return false;
        }
        try {
            return QualifiedName.parse(from).equals(QualifiedName.parse(to));
        } catch (IllegalArgumentException e) {
            return false; // lintStream reports the bad name
        }
    }

    @Override
    public List<Problem> lintConnection(Options connectionOptions) {
        return PostgresLint.lintConnection(connectionOptions);
    }

    @Override
    public Connector create(ConnectionConfig config) {
        Options options = config.options();
        String ledgerSchema = options.get(PostgresOptions.LEDGER_SCHEMA);
        boolean embedded = options.isSet(PostgresOptions.EMBEDDED);
        boolean url = options.isSet(PostgresOptions.URL);
        if (embedded == url) {
            String message = "connection '" + config.connectionName() + "' needs exactly one of url or embedded";
            PostgresConnections.Endpoint refuse = () -> {
                throw new ConnectorException(ErrorKind.INVALID_SPEC, PG208, message,
                        "give url: jdbc:postgresql://host:port/db, or embedded: <database name>");
            };
            return new PostgresConnector(new PostgresConnections(refuse, new Properties(),
                    new PostgresErrors(Redactor.none())), List.of(), ledgerSchema);
        }
        if (embedded) {
            String database = options.get(PostgresOptions.EMBEDDED);
            java.util.Optional<java.nio.file.Path> initScript = options.find(PostgresOptions.INIT_SCRIPT)
                    .map(script -> config.specDirectory().resolve(script).normalize());
            EmbeddedPostgresServer server = EmbeddedPostgresServer.forDirectory(
                    config.stateDirectory().resolve(EMBEDDED_FOLDER));
            Properties properties = new Properties();
            properties.setProperty("user", EmbeddedPostgresServer.USER);
            return new PostgresConnector(new PostgresConnections(() -> server.jdbcUrl(database, initScript), properties,
                    new PostgresErrors(Redactor.none())), server.notices(database), ledgerSchema);
        }
        if (options.isSet(PostgresOptions.INIT_SCRIPT)) {
            PostgresConnections.Endpoint refuse = () -> {
                throw new ConnectorException(ErrorKind.INVALID_SPEC, PG405, "connection '"
                        + config.connectionName() + "': init-script applies only to an embedded database",
                        "remove init-script, or use embedded: <database name>");
            };
            return new PostgresConnector(new PostgresConnections(refuse, new Properties(),
                    new PostgresErrors(Redactor.none())), List.of(), ledgerSchema);
        }
        String jdbcUrl = options.get(PostgresOptions.URL);
        Properties properties = new Properties();
        List<String> secrets = new ArrayList<>();
        secrets.add(jdbcUrl);
        for (Map.Entry<String, String> e : options.find(PostgresOptions.PROPERTIES).orElse(Map.of()).entrySet()) {
            properties.setProperty(e.getKey(), e.getValue());
            String key = e.getKey().toLowerCase(Locale.ROOT);
            if (key.contains("password") || key.contains("secret") || key.contains("key") || key.contains("token")) {
                secrets.add(e.getValue());
            }
        }
        options.find(PostgresOptions.USER).ifPresent(user -> properties.setProperty("user", user));
        options.find(PostgresOptions.PASSWORD).ifPresent(password -> {
            properties.setProperty("password", password);
            secrets.add(password);
        });
        return new PostgresConnector(new PostgresConnections(() -> jdbcUrl, properties,
                new PostgresErrors(new Redactor(secrets))), List.of(), ledgerSchema);
    }
}
