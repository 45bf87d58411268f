package io.sluice.core.spec;

import io.sluice.core.connector.ConnectorRegistry;
import io.sluice.spi.connector.ConnectionConfig;
import io.sluice.spi.connector.Connector;
import io.sluice.spi.connector.ConnectorFactory;
import io.sluice.spi.connector.Option;
import io.sluice.spi.connector.OptionSchema;
import io.sluice.spi.connector.Problem;
import io.sluice.spi.connector.Role;
import io.sluice.spi.connector.SourceCapabilities;
import io.sluice.spi.connector.StreamShape;
import io.sluice.spi.connector.TargetCapabilities;
import io.sluice.spi.read.DistributionMethod;
import io.sluice.spi.write.LoadMode;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Connector factories for the core's own tests, frozen here so those tests do not move when the real connectors grow
 * options: {@code postgres} and {@code duckdb} stand-ins, plus {@code acme}, a stand-in for a third-party connector.
 * Golden lint output is pinned against the real connectors instead (runner-app's GoldenLintTest).
 */
public final class TestConnectors {
    static final Option<String> TABLE = Option.string("table").naming().describedAs("schema.table");
    static final Option<String> QUERY = Option.string("query").naming().describedAs("Any SELECT.");

    private TestConnectors() {
    }

    /** postgres + duckdb look-alikes. */
    public static ConnectorRegistry registry() {
        return new ConnectorRegistry(List.of(new Postgres(), new DuckDb()));
    }

    /** The look-alikes plus the third-party {@code acme}. */
    public static ConnectorRegistry withAcme() {
        return new ConnectorRegistry(List.of(new Postgres(), new DuckDb(), new Acme()));
    }

    private abstract static class Base implements ConnectorFactory {
        @Override
        public Connector create(ConnectionConfig config) {
            throw new UnsupportedOperationException("lint only");
        }
    }

    static final class Postgres extends Base {
        @Override
        public String name() {
            return "postgres";
        }

        @Override
        public String description() {
            return "PostgreSQL (test double)";
        }

        @Override
        public Set<Role> roles() {
            return EnumSet.of(Role.SOURCE, Role.TARGET);
        }

        @Override
        public OptionSchema connectionOptions() {
            return OptionSchema.of(Option.string("url"), Option.string("user"), Option.string("password").secret(),
                    Option.stringMap("properties"), Option.string("ledger-schema").withDefault("sluice"));
        }

        @Override
        public OptionSchema sourceOptions() {
            return OptionSchema.of(TABLE, QUERY);
        }

        @Override
        public OptionSchema targetOptions() {
            return OptionSchema.of(TABLE.required());
        }

        @Override
        public SourceCapabilities sourceCapabilities() {
            return new SourceCapabilities(EnumSet.allOf(DistributionMethod.class),
                    EnumSet.of(DistributionMethod.CTID, DistributionMethod.RANGE, DistributionMethod.NTILE));
        }

        @Override
        public TargetCapabilities targetCapabilities() {
            return new TargetCapabilities(EnumSet.allOf(LoadMode.class), true, true, true);
        }

        @Override
        public List<Problem> lintStream(StreamShape stream) {
            List<Problem> problems = new ArrayList<>();
            if (stream.role() == Role.SOURCE && stream.options().isSet(TABLE) && stream.options().isSet(QUERY)) {
                problems.add(Problem.error("PG101", "query", "give either 'table' or 'query', not both",
                        "remove one of them"));
            }
            return problems;
        }
    }

    static final class DuckDb extends Base {
        @Override
        public String name() {
            return "duckdb";
        }

        @Override
        public String description() {
            return "DuckDB (test double)";
        }

        @Override
        public Set<Role> roles() {
            return EnumSet.of(Role.SOURCE);
        }

        @Override
        public OptionSchema connectionOptions() {
            OptionSchema s3 = OptionSchema.of(Option.string("endpoint"), Option.string("region"),
                    Option.string("url-style").oneOf("path", "vhost"), Option.bool("use-ssl").withDefault(true),
                    Option.string("key-id").secret(), Option.string("secret").secret());
            return OptionSchema.of(Option.string("database").withDefault(":memory:"), Option.integer("threads"),
                    Option.string("extension-directory"), Option.object("s3", s3));
        }

        @Override
        public OptionSchema sourceOptions() {
            return OptionSchema.of(QUERY);
        }

        @Override
        public SourceCapabilities sourceCapabilities() {
            return new SourceCapabilities(EnumSet.of(DistributionMethod.NONE, DistributionMethod.DATA_DRIVEN,
                    DistributionMethod.RANGE, DistributionMethod.MODULO, DistributionMethod.NTILE), Set.of());
        }
    }

    /** A third-party connector: everything the core knows of it comes from these declarations. */
    static final class Acme extends Base {
        static final Option<Long> SHARDS = Option.integer("shard-count").required()
                .describedAs("How many shards the Acme cluster has.");

        @Override
        public String name() {
            return "acme";
        }

        @Override
        public String description() {
            return "Acme warehouse (third-party test connector)";
        }

        @Override
        public Set<Role> roles() {
            return EnumSet.of(Role.SOURCE, Role.TARGET); // a target of the basics only (TargetCapabilities.BASIC)
        }

        @Override
        public OptionSchema connectionOptions() {
            return OptionSchema.of(Option.string("endpoint").required(), Option.string("api-token").secret(),
                    Option.stringMap("labels"));
        }

        @Override
        public OptionSchema sourceOptions() {
            return OptionSchema.of(Option.string("dataset").required(), SHARDS,
                    Option.string("mode").oneOf("fast", "safe").withDefault("safe"));
        }

        @Override
        public List<Problem> lintStream(StreamShape stream) {
            if (stream.role() == Role.TARGET) {
                return List.of();
            }
            long shards = stream.options().get(SHARDS);
            return shards > 64
                    ? List.of(Problem.warning("ACME1", "shard-count", "more than 64 shards is slow", "use 64"))
                    : List.of();
        }
    }

    /** Variables every example spec may use, for RUN-mode loads. */
    static Map<String, String> exampleEnvironment() {
        return Map.of("SRC_USER", "reader", "SRC_PASSWORD", "s3cr3t-src", "DST_URL",
                "jdbc:postgresql://localhost:5432/dw", "S3_KEY", "AKIAEXAMPLE", "S3_SECRET", "s3cr3t-s3");
    }
}
