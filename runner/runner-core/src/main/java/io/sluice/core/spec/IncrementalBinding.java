package io.sluice.core.spec;

import io.sluice.spi.ConnectorFactory;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A stream's {@code incremental:} mapping, checked against what the stream's source can do: a cursor is required,
 * the source's connector must read windows, and {@code verify:} (which compares whole tables) must be off.
 */
final class IncrementalBinding {
    private final ValueReader values;

    IncrementalBinding(ValueReader values) {
        this.values = requireNonNull(values, "values is null");
    }

    Optional<IncrementalSpec> bind(YamlNode.Mapping stream, Optional<ConnectorFactory> source, VerifyMode verify,
                                   String streamWhere) {
        Optional<YamlNode.Entry> entry = stream.entry(SpecKeys.INCREMENTAL);
        if (entry.isEmpty()) {
            return Optional.empty();
        }
        Optional<YamlNode.Mapping> mapping = values.mapping(entry.get().value(), SpecKeys.INCREMENTAL, streamWhere);
        if (mapping.isEmpty()) {
            return Optional.empty();
        }
        String where = ValueReader.nested(SpecKeys.INCREMENTAL, streamWhere);
        YamlNode.Mapping m = mapping.get();
        values.rejectUnknownKeys(m, SpecKeys.INCREMENTAL_KEYS, where);
        if (source.isPresent() && !source.get().sourceCapabilities().readsWindows()) {
            values.findings().error(SpecCode.SPEC027, entry.get().keyPosition(), "connector '" + source.get().name()
                    + "' cannot load incrementally by cursor " + streamWhere,
                    "remove 'incremental:', or read the rows through a connector that can (postgres)");
        }
        if (verify != VerifyMode.NONE) {
            values.findings().error(SpecCode.SPEC027, entry.get().keyPosition(), "'incremental' with 'verify: "
                    + verify.name().toLowerCase(java.util.Locale.ROOT) + "' " + streamWhere + ": verify compares the "
                    + "whole table with the source, an incremental run loads only its window",
                    "set 'verify: none' on this stream");
        }
        if (!values.require(m, entry.get().keyPosition(), SpecKeys.CURSOR, where,
                "add 'cursor:' naming a column of the source whose values only grow, e.g. updated_at")) {
            return Optional.empty();
        }
        YamlNode cursorNode = m.get(SpecKeys.CURSOR).orElseThrow();
        Optional<String> cursor = values.string(cursorNode, SpecKeys.CURSOR, where).filter(c -> !c.isBlank());
        if (cursor.isEmpty()) {
            values.findings().error(SpecCode.SPEC027, cursorNode.position(), "'cursor' is empty " + where,
                    "name a column of the source whose values only grow, e.g. updated_at");
            return Optional.empty();
        }
        return Optional.of(new IncrementalSpec(cursor.get(), entry.get().keyPosition()));
    }
}
