package io.sluice.spi.connector;

import io.sluice.spi.read.DistributionMethod;

import java.util.List;
import java.util.Set;

/**
 * Entry point of a connector, found with {@link java.util.ServiceLoader}: list the implementation class in
 * {@code META-INF/services/io.sluice.spi.connector.ConnectorFactory}. A factory is cheap to construct and does no I/O.
 */
public interface ConnectorFactory {
    /** The {@code type:} of a connection in the spec, e.g. {@code postgres}. Lower case, stable. */
    String name();

    /** One line for {@code sluice connectors}. */
    String description();

    /** Which sides of a stream this connector can be. */
    Set<Role> roles();

    /** Keys of a {@code connections:} entry of this type (besides {@code type}). */
    OptionSchema connectionOptions();

    /** Keys of a stream's {@code source:} (besides {@code connection}); empty when not a source. */
    default OptionSchema sourceOptions() {
        return OptionSchema.empty();
    }

    /** Keys of a stream's {@code target:} (besides {@code connection}); empty when not a target. */
    default OptionSchema targetOptions() {
        return OptionSchema.empty();
    }

    /**
     * What this connector's sources can do, known without connecting: the distribution methods they plan and which
     * of those follow rows per partition. The default: a connector with no sources, or sources read whole.
     */
    default SourceCapabilities sourceCapabilities() {
        return SourceCapabilities.noneOnly();
    }

    /** What this connector's targets can do, known without connecting. The default: nothing beyond the basics. */
    default TargetCapabilities targetCapabilities() {
        return TargetCapabilities.BASIC;
    }

    /**
     * Offline checks beyond types, for {@code sluice lint}: e.g. a table name that does not parse, or a method that
     * needs a table but got a query. Nothing may connect. Positions are added by the caller from the option key.
     *
     * <p>The core already checks what the spec's own keys declare: that the method is one of
     * {@link #sourceCapabilities()}, that {@code key} is given exactly when {@link DistributionMethod#needsKey()},
     * that only {@code data-driven} takes {@code values-query}, and whether the method follows {@code batch-size}.
     * Check here only what this connector's sources need beyond that (e.g. a table for {@code ctid}), so each
     * mistake is reported once.
     */
    default List<Problem> lintStream(StreamShape stream) {
        return List.of();
    }

    /**
     * Offline checks of a {@code connections:} entry beyond types, for {@code sluice lint} and before a run: e.g.
     * options that exclude each other. Nothing may connect. {@link Problem#optionKey()} names the connection's key;
     * the caller adds its position. Use the codes {@link #create} reports for the same mistakes, so a rule has one code
     * whether lint or a connection finds it.
     */
    default List<Problem> lintConnection(Options connectionOptions) {
        return List.of();
    }

    /**
     * Offline: whether a source and a target of this connector on one connection name the same stored object, as far
     * as their options show (lint's same-table check; the runner checks the real objects at plan time).
     */
    default boolean sameObject(Options sourceOptions, Options targetOptions) {
        return false;
    }

    /**
     * Lines for {@code sluice version}: the driver versions this connector runs with, as the drivers report them, and
     * which of its fast paths into driver internals are on. No I/O beyond loading classes.
     */
    default List<String> runtimeNotes() {
        return List.of();
    }

    /** Creates a connector from validated options. May connect lazily; must not throw for unreachable servers. */
    Connector create(ConnectionConfig config);
}
