package io.sluice.core.lint.connect;

import io.sluice.core.diag.Position;
import io.sluice.core.spec.EndpointSpec;
import io.sluice.core.spec.StreamSpec;
import io.sluice.spi.connector.Option;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.dataformat.yaml.YAMLFactory;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * Where each stream's {@code source:} and {@code target:} keys are written, so a finding about a table points at the
 * line that names it: the key its connector marks as {@link Option#naming() naming} the object ({@code table:},
 * {@code query:}, ...). A {@link StreamSpec} keeps only the position of {@code source:}/{@code target:} themselves;
 * this reads the file's YAML again for the keys inside. The spec already loaded without errors, so the YAML is valid;
 * if anything is off, the endpoint's own position is used.
 */
final class EndpointKeys {
    private static final YAMLFactory FACTORY = YAMLFactory.builder().build();

    /** stream name -> ("source" | "target") -> key -> position */
    private final Map<String, Map<String, Map<String, Position>>> streams;

    private EndpointKeys(Map<String, Map<String, Map<String, Position>>> streams) {
        this.streams = requireNonNull(streams, "streams is null");
    }

    static EndpointKeys read(String file, String yaml) {
        requireNonNull(file, "file is null");
        requireNonNull(yaml, "yaml is null");
        Map<String, Map<String, Map<String, Position>>> streams = new HashMap<>();
        try (JsonParser parser = FACTORY.createParser(ObjectReadContext.empty(), yaml)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                return new EndpointKeys(Map.of());
            }
            while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
                boolean isStreams = "streams".equals(parser.currentName());
                JsonToken value = parser.nextToken();
                if (isStreams && value == JsonToken.START_ARRAY) {
                    while (parser.nextToken() == JsonToken.START_OBJECT) {
                        readStream(parser, file, streams);
                    }
                } else {
                    parser.skipChildren();
                }
            }
        } catch (JacksonException e) {
            return new EndpointKeys(Map.of()); // positions fall back to the endpoints' own
        }
        return new EndpointKeys(streams);
    }

    /** The position of the key that names the endpoint's object, else that of {@code source:}/{@code target:}. */
    Position source(StreamSpec stream) {
        return naming(stream.name(), "source", stream.source());
    }

    Position target(StreamSpec stream) {
        return naming(stream.name(), "target", stream.target());
    }

    /** The first key the connector marks as naming the object ({@link Option#naming()}), in its schema's order. */
    private Position naming(String stream, String side, EndpointSpec endpoint) {
        Map<String, Position> keys = streams.getOrDefault(stream, Map.of()).getOrDefault(side, Map.of());
        for (Option<?> option : endpoint.options().schema().options()) {
            if (option.isNaming() && keys.containsKey(option.key())) {
                return keys.get(option.key());
            }
        }
        return keys.entrySet().stream()
                .filter(e -> !e.getKey().equals("connection"))
                .map(Map.Entry::getValue)
                .findFirst()
                .orElse(endpoint.position());
    }

    private static void readStream(JsonParser parser, String file, Map<String, Map<String, Map<String, Position>>> out) {
        String name = null;
        Map<String, Map<String, Position>> sides = new HashMap<>();
        while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
            String key = parser.currentName();
            JsonToken value = parser.nextToken();
            if (key.equals("name") && value == JsonToken.VALUE_STRING) {
                name = parser.getString();
            } else if ((key.equals("source") || key.equals("target")) && value == JsonToken.START_OBJECT) {
                Map<String, Position> keys = new LinkedHashMap<>();
                while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
                    keys.putIfAbsent(parser.currentName(), position(file, parser.currentTokenLocation()));
                    parser.nextToken();
                    parser.skipChildren();
                }
                sides.put(key, keys);
            } else {
                parser.skipChildren();
            }
        }
        if (name != null) {
            out.putIfAbsent(name, sides);
        }
    }

    private static Position position(String file, TokenStreamLocation location) {
        return new Position(file, Math.max(1, location.getLineNr()), Math.max(1, location.getColumnNr()));
    }
}
