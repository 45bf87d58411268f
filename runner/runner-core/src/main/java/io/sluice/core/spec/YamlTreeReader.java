package io.sluice.core.spec;

import io.sluice.core.diag.Position;
import org.snakeyaml.engine.v2.exceptions.Mark;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.dataformat.yaml.YAMLFactory;
import tools.jackson.dataformat.yaml.YAMLParser;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Builds a {@link YamlNode} tree from Jackson's streaming YAML parser, keeping every token's line and column.
 * Reports what a plain object mapper would hide: duplicate keys (YAML keeps the last silently), aliases and extra
 * documents. A syntax error stops the parse: YAML cannot recover from one reliably.
 */
final class YamlTreeReader {
    private static final YAMLFactory FACTORY = YAMLFactory.builder().build();

    private final String file;
    private final Findings findings;

    YamlTreeReader(String file, Findings findings) {
        this.file = requireNonNull(file, "file is null");
        this.findings = requireNonNull(findings, "findings is null");
    }

    /** The document's root mapping, or empty when the file is not a usable YAML mapping (already reported). */
    Optional<YamlNode.Mapping> read(String text) {
        requireNonNull(text, "text is null");
        try (JsonParser parser = FACTORY.createParser(ObjectReadContext.empty(), text)) {
            JsonToken first = parser.nextToken();
            if (first == null) {
                findings.error(SpecCode.SPEC004, new Position(file, 1, 1), "the spec is empty",
                        "start from the example in docs/spec.md");
                return Optional.empty();
            }
            YamlNode root = readNode(parser, first);
            JsonToken next = parser.nextToken();
            if (next != null) {
                findings.error(SpecCode.SPEC002, position(parser.currentTokenLocation()),
                        "a spec file holds one YAML document, found a second one",
                        "remove the '---' and what follows, or split the file");
            }
            if (root instanceof YamlNode.Mapping mapping) {
                return Optional.of(mapping);
            }
            findings.error(SpecCode.SPEC004, root.position(), "the spec must be a mapping, found " + root.kind(),
                    "start with 'version: 1'");
            return Optional.empty();
        } catch (JacksonException e) {
            reportSyntaxError(e);
            return Optional.empty();
        }
    }

    private YamlNode readNode(JsonParser parser, JsonToken token) {
        Position at = position(parser.currentTokenLocation());
        return switch (token) {
            case START_OBJECT -> readMapping(parser, at);
            case START_ARRAY -> readSequence(parser, at);
            default -> readScalar(parser, token, at);
        };
    }

    private YamlNode.Mapping readMapping(JsonParser parser, Position at) {
        List<YamlNode.Entry> entries = new ArrayList<>();
        Map<String, Position> seen = new HashMap<>();
        JsonToken token;
        while ((token = parser.nextToken()) != JsonToken.END_OBJECT) {
            // The YAML parser only yields PROPERTY_NAME here; anything else already failed inside Jackson.
            String key = parser.currentName();
            Position keyAt = position(parser.currentTokenLocation());
            YamlNode value = readNode(parser, parser.nextToken());
            Position first = seen.putIfAbsent(key, keyAt);
            if (first != null) {
                findings.error(SpecCode.SPEC003, keyAt,
                        "duplicate key '" + key + "' (first at line " + first.line() + ")",
                        "remove one of the two; YAML would silently keep only one");
            } else {
                entries.add(new YamlNode.Entry(key, keyAt, value));
            }
        }
        return new YamlNode.Mapping(entries, at);
    }

    private YamlNode.Sequence readSequence(JsonParser parser, Position at) {
        List<YamlNode> items = new ArrayList<>();
        JsonToken token;
        while ((token = parser.nextToken()) != JsonToken.END_ARRAY) {
            items.add(readNode(parser, token));
        }
        return new YamlNode.Sequence(items, at);
    }

    private YamlNode.Scalar readScalar(JsonParser parser, JsonToken token, Position at) {
        if (parser instanceof YAMLParser yaml && yaml.isCurrentAlias()) {
            findings.error(SpecCode.SPEC002, at, "YAML aliases ('*" + parser.getString() + "') are not supported",
                    "repeat the value, or put shared stream settings under 'defaults:'");
        }
        String raw = token == JsonToken.VALUE_NULL ? "null" : parser.getString();
        Object value = switch (token) {
            case VALUE_NUMBER_INT -> parser.getNumberType() == JsonParser.NumberType.BIG_INTEGER
                    ? parser.getBigIntegerValue() : (Object) parser.getLongValue();
            case VALUE_NUMBER_FLOAT -> parser.getDoubleValue();
            case VALUE_TRUE -> Boolean.TRUE;
            case VALUE_FALSE -> Boolean.FALSE;
            case VALUE_NULL -> null;
            default -> raw;
        };
        return YamlNode.Scalar.of(value, raw, at);
    }

    private void reportSyntaxError(JacksonException e) {
        if (e.getCause() instanceof MarkedYamlEngineException yaml && yaml.getProblemMark().isPresent()) {
            Mark mark = yaml.getProblemMark().get();
            String message = "invalid YAML: " + yaml.getProblem();
            if (yaml.getContext() != null && yaml.getContextMark().isPresent()) {
                Mark context = yaml.getContextMark().get();
                message += " " + yaml.getContext() + " started at line " + (context.getLine() + 1)
                        + ", column " + (context.getColumn() + 1);
            }
            findings.error(SpecCode.SPEC002, new Position(file, mark.getLine() + 1, mark.getColumn() + 1),
                    oneLine(message), "fix the YAML at this position");
            return;
        }
        TokenStreamLocation location = e.getLocation();
        Position at = location == null ? new Position(file, 1, 1) : position(location);
        findings.error(SpecCode.SPEC002, at, "invalid YAML: " + oneLine(e.getOriginalMessage()),
                "fix the YAML at this position");
    }

    private static String oneLine(String text) {
        return text.replaceAll("\\s*\\R\\s*", " ").strip();
    }

    private Position position(TokenStreamLocation location) {
        return new Position(file, Math.max(1, location.getLineNr()), Math.max(1, location.getColumnNr()));
    }
}
