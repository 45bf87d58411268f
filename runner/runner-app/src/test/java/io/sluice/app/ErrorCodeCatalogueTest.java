package io.sluice.app;

import io.sluice.connector.duckdb.DuckDbCode;
import io.sluice.connector.postgres.catalog.PostgresCode;
import io.sluice.core.RunnerCode;
import io.sluice.core.spec.SpecCode;
import io.sluice.spi.error.ErrorCode;
import io.sluice.spi.error.SpiCode;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Keeps docs/error-codes.md and the sources in step: every code a module declares is documented in its module's
 * section, no code literal of a module escapes its enum, and the
 * page names no code that no source has (retired codes aside, which must stay gone).
 */
class ErrorCodeCatalogueTest {
    private static final Path ROOT = Path.of("../..");
    private static final Pattern LITERAL = Pattern.compile("\"([A-Z]{2,8}[0-9]{3})\"");
    private static final Pattern CODE = Pattern.compile("\\b[A-Z]{2,8}[0-9]{3}\\b");
    private static final Pattern ROW = Pattern.compile("^\\| ([A-Z]{2,8}[0-9]{3}) \\|", Pattern.MULTILINE);

    /** The runner's two modules share one enum, {@link RunnerCode}, and one section. */
    private static final List<String> RUNNER_MODULES = List.of("runner/runner-core", "runner/runner-app");
    private static final String RUNNER_SECTION = "runner/runner-core and runner/runner-app";
    /** Each module that declares its codes in an enum (its section's heading names the module); listed by hand. */
    private static final Map<String, List<ErrorCode>> DECLARED = Map.of(
            RUNNER_SECTION, List.of(RunnerCode.values()),
            "runner/runner-spi", List.of(SpiCode.values()),
            "connectors/postgres", List.of(PostgresCode.values()),
            "connectors/duckdb", List.of(DuckDbCode.values()),
            "connectors/mysql", List.of(io.sluice.connector.mysql.MySqlCode.values()),
            "connectors/jdbc", List.of(io.sluice.connector.jdbc.JdbcCode.values()));
    private static final String RETIRED_SECTION = "Retired codes";
    /** String literals of a code's shape that are no code: INT128 is DuckDB's other name of HUGEINT. */
    private static final Set<String> NOT_CODES = Set.of("INT128");

    @Test
    void everyDeclaredCodeIsDocumentedInItsModulesSectionAndNothingElseIs() {
        String catalogue = catalogue();
        for (Map.Entry<String, List<ErrorCode>> module : DECLARED.entrySet()) {
            Set<String> declared = new TreeSet<>();
            for (ErrorCode code : module.getValue()) {
                assertTrue(CODE.matcher(code.name()).matches(), code.name() + " is not shaped like a code");
                assertTrue(!code.summary().isBlank() && !code.summary().contains("\n"),
                        code.name() + " needs a one-line summary");
                declared.add(code.name());
            }
            Set<String> documented = rows(section(catalogue, module.getKey()));
            Set<String> undocumented = new TreeSet<>(declared);
            undocumented.removeAll(documented);
            assertEquals(Set.of(), undocumented, "codes of " + module.getKey() + " missing from its section of "
                    + "docs/error-codes.md");
            documented.removeAll(declared);
            assertEquals(Set.of(), documented, "rows of the " + module.getKey() + " section of docs/error-codes.md "
                    + "that its enum does not declare");
        }
    }

    @Test
    void everyCodeLiteralOfAModuleWithAnEnumIsDeclaredInIt() throws IOException {
        List<String> modules = new ArrayList<>(List.of("runner/runner-spi"));
        try (Stream<Path> connectors = Files.list(ROOT.resolve("connectors"))) {
            connectors.filter(dir -> Files.isDirectory(dir.resolve("src/main/java")))
                    .map(dir -> "connectors/" + dir.getFileName()).forEach(modules::add);
        }
        Set<String> listed = new TreeSet<>(DECLARED.keySet());
        listed.remove(RUNNER_SECTION);
        assertEquals(new TreeSet<>(modules), listed,
                "every connector declares its codes in an ErrorCode enum, listed in DECLARED");
        List<String> undeclared = new ArrayList<>();
        for (String module : modules) {
            Set<String> declared = names(DECLARED.get(module));
            literals(module).forEach((code, file) -> {
                if (!declared.contains(code)) {
                    undeclared.add(code + " (" + file + ")");
                }
            });
        }
        assertEquals(List.of(), undeclared, "code literals missing from their module's enum");
    }

    @Test
    void everyCodeLiteralOfTheRunnerIsDeclaredInRunnerCode() {
        Set<String> declared = names(DECLARED.get(RUNNER_SECTION));
        List<String> undeclared = new ArrayList<>();
        for (String module : RUNNER_MODULES) {
            literals(module).forEach((code, file) -> {
                if (!declared.contains(code)) {
                    undeclared.add(code + " (" + file + ")");
                }
            });
        }
        assertEquals(List.of(), undeclared, "code literals of the runner missing from RunnerCode");
    }

    @Test
    void everyCodeTheCatalogueNamesExistsAndRetiredOnesStayGone() {
        Set<String> live = new TreeSet<>(Arrays.stream(SpecCode.values()).map(Enum::name).toList());
        DECLARED.values().forEach(codes -> live.addAll(names(codes)));
        Stream.concat(DECLARED.keySet().stream().filter(m -> !m.equals(RUNNER_SECTION)), RUNNER_MODULES.stream())
                .forEach(module -> live.addAll(literals(module).keySet()));
        String catalogue = catalogue();
        String retired = section(catalogue, RETIRED_SECTION);
        Set<String> stale = codes(catalogue.replace(retired, ""));
        stale.removeAll(live);
        assertEquals(Set.of(), stale, "docs/error-codes.md names codes that no source has (retire them instead)");
        Set<String> revived = rows(retired);
        revived.retainAll(live);
        assertEquals(Set.of(), revived, "retired codes are never reused");
    }

    private static String catalogue() {
        try {
            return Files.readString(ROOT.resolve("docs/error-codes.md"), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** From the heading ({@code ## }) that names {@code title} to the next heading of that level. */
    private static String section(String markdown, String title) {
        int start = -1;
        for (int at = markdown.indexOf("## "); at >= 0; at = markdown.indexOf("\n## ", at + 1)) {
            int from = markdown.charAt(at) == '\n' ? at + 1 : at;
            int lineEnd = markdown.indexOf('\n', from);
            if (markdown.substring(from, lineEnd < 0 ? markdown.length() : lineEnd).contains(title)) {
                start = from;
                break;
            }
        }
        assertTrue(start >= 0, "docs/error-codes.md has no section '" + title + "'");
        int end = markdown.indexOf("\n## ", start);
        return markdown.substring(start, end < 0 ? markdown.length() : end);
    }

    private static Set<String> rows(String markdown) {
        Set<String> codes = new TreeSet<>();
        Matcher rows = ROW.matcher(markdown);
        while (rows.find()) {
            codes.add(rows.group(1));
        }
        return codes;
    }

    private static Set<String> codes(String markdown) {
        Set<String> codes = new TreeSet<>();
        Matcher found = CODE.matcher(markdown);
        while (found.find()) {
            codes.add(found.group());
        }
        return codes;
    }

    private static Set<String> names(List<? extends ErrorCode> codes) {
        Set<String> names = new TreeSet<>();
        codes.forEach(code -> names.add(code.name()));
        return names;
    }

    /** Each code-shaped string literal of a module's main sources, with the first file it is in. */
    private static SortedMap<String, String> literals(String module) {
        SortedMap<String, String> found = new TreeMap<>();
        try (Stream<Path> files = Files.walk(ROOT.resolve(module).resolve("src/main/java"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
                Matcher literal = LITERAL.matcher(Files.readString(file, StandardCharsets.UTF_8));
                while (literal.find()) {
                    if (!NOT_CODES.contains(literal.group(1))) {
                        found.putIfAbsent(literal.group(1), ROOT.relativize(file).toString());
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return found;
    }
}
