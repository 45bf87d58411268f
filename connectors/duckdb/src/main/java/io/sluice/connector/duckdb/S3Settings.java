package io.sluice.connector.duckdb;

import io.sluice.spi.connector.Options;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A connection's {@code s3:} block. Key id, secret and session token are secrets: {@link #toString()} hides them
 * and {@link #secretValues()} lists them so error text can be scrubbed.
 */
record S3Settings(Optional<String> endpoint, Optional<String> region, Optional<String> urlStyle, boolean useSsl,
                  Optional<String> keyId, Optional<String> secret, Optional<String> sessionToken) {
    S3Settings {
        requireNonNull(endpoint, "endpoint is null");
        requireNonNull(region, "region is null");
        requireNonNull(urlStyle, "urlStyle is null");
        requireNonNull(keyId, "keyId is null");
        requireNonNull(secret, "secret is null");
        requireNonNull(sessionToken, "sessionToken is null");
    }

    static S3Settings from(Options s3) {
        return new S3Settings(s3.find(DuckDbOptions.S3_ENDPOINT).filter(v -> !v.isBlank()),
                s3.find(DuckDbOptions.S3_REGION).filter(v -> !v.isBlank()),
                s3.find(DuckDbOptions.S3_URL_STYLE).filter(v -> !v.isBlank()),
                s3.find(DuckDbOptions.S3_USE_SSL).orElse(true),
                s3.find(DuckDbOptions.S3_KEY_ID).filter(v -> !v.isBlank()),
                s3.find(DuckDbOptions.S3_SECRET).filter(v -> !v.isBlank()),
                s3.find(DuckDbOptions.S3_SESSION_TOKEN).filter(v -> !v.isBlank()));
    }

    /** Without a key id, DuckDB's credential chain (environment, profile, instance role) finds credentials. */
    boolean usesCredentialChain() {
        return keyId.isEmpty();
    }

    List<String> secretValues() {
        List<String> values = new ArrayList<>();
        keyId.ifPresent(values::add);
        secret.ifPresent(values::add);
        sessionToken.ifPresent(values::add);
        return values;
    }

    /**
     * The {@code CREATE SECRET} statement. It holds the credentials: execute it, never log it or put it in a
     * message.
     */
    String createSecretSql(String secretName) {
        StringBuilder sql = new StringBuilder("CREATE OR REPLACE TEMPORARY SECRET ").append(secretName)
                .append(" (TYPE s3");
        if (usesCredentialChain()) {
            sql.append(", PROVIDER credential_chain");
        } else {
            sql.append(", KEY_ID ").append(Sql.literal(keyId.get()));
            secret.ifPresent(v -> sql.append(", SECRET ").append(Sql.literal(v)));
            sessionToken.ifPresent(v -> sql.append(", SESSION_TOKEN ").append(Sql.literal(v)));
        }
        region.ifPresent(v -> sql.append(", REGION ").append(Sql.literal(v)));
        endpoint.ifPresent(v -> sql.append(", ENDPOINT ").append(Sql.literal(v)));
        urlStyle.ifPresent(v -> sql.append(", URL_STYLE ").append(Sql.literal(v)));
        sql.append(", USE_SSL ").append(useSsl);
        return sql.append(')').toString();
    }

    @Override
    public String toString() {
        return "S3Settings[endpoint=" + endpoint.orElse("default") + ", region=" + region.orElse("default")
                + ", credentials=" + (usesCredentialChain() ? "credential chain" : "key id ***") + "]";
    }
}
