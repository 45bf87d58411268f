package io.sluice.core.lint;

import io.sluice.core.diag.Diagnostic;
import io.sluice.core.diag.Severity;
import io.sluice.core.spec.SpecCode;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * The output formats of {@code sluice lint --format}. The text of every format is API: golden tests pin it.
 */
public enum LintFormat {
    /** For people: {@code file:line:col: severity[CODE] message}, an indented {@code fix:}, then a summary. */
    TEXT {
        @Override
        public String render(LintReport report) {
            StringBuilder out = new StringBuilder();
            for (Diagnostic d : report.diagnostics()) {
                out.append(d.headline()).append('\n');
                d.fix().ifPresent(f -> out.append("  fix: ").append(f).append('\n'));
            }
            out.append(plural(report.files().size(), "file")).append(" checked: ");
            if (report.diagnostics().isEmpty()) {
                out.append("no problems");
            } else {
                out.append(plural(report.count(Severity.ERROR), "error")).append(", ")
                        .append(plural(report.count(Severity.WARNING), "warning")).append(", ")
                        .append(plural(report.count(Severity.NOTE), "note"));
            }
            return out.append('\n').toString();
        }
    },
    /** For scripts: one JSON object with the counts and the diagnostics. */
    JSON {
        @Override
        public String render(LintReport report) {
            ObjectNode root = Json.MAPPER.createObjectNode();
            ArrayNode files = root.putArray("files");
            report.files().forEach(files::add);
            root.put("errors", report.count(Severity.ERROR));
            root.put("warnings", report.count(Severity.WARNING));
            root.put("notes", report.count(Severity.NOTE));
            root.put("exitCode", report.exitCode());
            ArrayNode list = root.putArray("diagnostics");
            for (Diagnostic d : report.diagnostics()) {
                ObjectNode item = list.addObject();
                item.put("file", d.position().file());
                item.put("line", d.position().line());
                item.put("column", d.position().column());
                item.put("severity", d.severity().label());
                item.put("code", d.code());
                item.put("message", d.message());
                d.fix().ifPresent(f -> item.put("fix", f));
            }
            return Json.MAPPER.writeValueAsString(root) + "\n";
        }
    },
    /** GitHub Actions workflow commands: annotations on the pull request's files. */
    GITHUB {
        @Override
        public String render(LintReport report) {
            StringBuilder out = new StringBuilder();
            for (Diagnostic d : report.diagnostics()) {
                String command = switch (d.severity()) {
                    case ERROR -> "error";
                    case WARNING -> "warning";
                    case NOTE -> "notice";
                };
                out.append("::").append(command)
                        .append(" file=").append(property(d.position().file()))
                        .append(",line=").append(d.position().line())
                        .append(",col=").append(d.position().column())
                        .append(",title=").append(property(d.code()))
                        .append("::").append(data(d.message() + d.fix().map(f -> "\nfix: " + f).orElse("")))
                        .append('\n');
            }
            return out.toString();
        }
    },
    /** SARIF 2.1.0 for code-scanning upload. */
    SARIF {
        @Override
        public String render(LintReport report) {
            ObjectNode root = Json.MAPPER.createObjectNode();
            root.put("$schema", "https://json.schemastore.org/sarif-2.1.0.json");
            root.put("version", "2.1.0");
            ObjectNode run = root.putArray("runs").addObject();
            ObjectNode driver = run.putObject("tool").putObject("driver");
            driver.put("name", "sluice");
            ArrayNode rules = driver.putArray("rules");
            Set<String> connectorCodes = new TreeSet<>();
            Set<String> specCodes = new TreeSet<>(Arrays.stream(SpecCode.values()).map(Enum::name).toList());
            report.diagnostics().stream().map(Diagnostic::code).filter(c -> !specCodes.contains(c))
                    .forEach(connectorCodes::add);
            for (SpecCode code : SpecCode.values()) {
                ObjectNode rule = rules.addObject();
                rule.put("id", code.name());
                rule.put("name", code.slug());
                rule.putObject("shortDescription").put("text", code.meaning());
                rule.putObject("help").put("text", code.fix());
            }
            for (String code : connectorCodes) {
                ObjectNode rule = rules.addObject();
                rule.put("id", code);
                rule.putObject("shortDescription").put("text", "Connector check " + code);
            }
            ArrayNode results = run.putArray("results");
            for (Diagnostic d : report.diagnostics()) {
                ObjectNode result = results.addObject();
                result.put("ruleId", d.code());
                result.put("level", d.severity() == Severity.NOTE ? "note" : d.severity().label());
                result.putObject("message").put("text", d.message() + d.fix().map(f -> "\nfix: " + f).orElse(""));
                ObjectNode location = result.putArray("locations").addObject().putObject("physicalLocation");
                location.putObject("artifactLocation").put("uri", d.position().file().replace('\\', '/'));
                ObjectNode region = location.putObject("region");
                region.put("startLine", d.position().line());
                region.put("startColumn", d.position().column());
            }
            return Json.MAPPER.writeValueAsString(root) + "\n";
        }
    };

    /** Built on first use: the text and github formats must not pay for loading Jackson's databind. */
    private static final class Json {
        static final JsonMapper MAPPER = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();
    }

    /** Renders the whole report; the CLI prints it to standard output as is. */
    public abstract String render(LintReport report);

    /** {@code text}, {@code json}, {@code github} or {@code sarif}. */
    public static LintFormat parse(String name) {
        try {
            return valueOf(name.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown lint format '" + name + "'; use text, json, github or sarif",
                    e);
        }
    }

    public String spelling() {
        return name().toLowerCase(Locale.ROOT);
    }

    private static String plural(long n, String word) {
        return n + " " + word + (n == 1 ? "" : "s");
    }

    /** Escaping of a workflow command's message, as GitHub's toolkit does it. */
    private static String data(String text) {
        return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A");
    }

    /** Escaping of a workflow command's property value. */
    private static String property(String text) {
        return data(text).replace(":", "%3A").replace(",", "%2C");
    }
}
