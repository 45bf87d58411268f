package io.sluice.spi.data;

import static java.util.Objects.requireNonNull;

/**
 * One stored object as its server knows it, however a spec spells the connection (another host name, another URL,
 * another connection entry): {@code key} is equal for the same object and only for it, {@code display} names it for
 * people. The runner refuses a stream whose target is among the relations its source reads.
 *
 * @param key     e.g. {@code postgres:<system identifier>:<database oid>:<relation oid>}
 * @param display e.g. {@code "public"."items"}
 */
public record RelationIdentity(String key, String display) {
    public RelationIdentity {
        requireNonNull(key, "key is null");
        requireNonNull(display, "display is null");
    }
}
