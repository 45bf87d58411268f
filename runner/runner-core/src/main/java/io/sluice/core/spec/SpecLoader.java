package io.sluice.core.spec;

import io.sluice.core.connector.ConnectorRegistry;
import io.sluice.core.diag.Diagnostic;
import io.sluice.core.diag.Position;
import io.sluice.core.diag.Severity;
import io.sluice.toolkit.Redactor;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * Reads a spec file into a validated {@link PipelineSpec}: YAML with positions, interpolation, defaults, the
 * connectors' option schemas, and all cross-key checks, reporting every problem in one pass.
 *
 * <pre>{@code
 * LoadResult result = new SpecLoader(ConnectorRegistry.fromClassPath(), Environment.system(), Mode.RUN).load(path);
 * }</pre>
 */
public final class SpecLoader {
    /** What an unset variable or an unreadable {@code ${file:...}} means. */
    public enum Mode {
        /** About to run: they are errors. */
        RUN,
        /** {@code sluice lint}, e.g. in a pull request without secrets: they are notes and the value is empty. */
        LINT
    }

    private final ConnectorRegistry registry;
    private final Environment environment;
    private final Mode mode;

    /** The largest spec read; larger input is refused before it is parsed. */
    public static final int MAX_SPEC_BYTES = 1024 * 1024;

    public SpecLoader(ConnectorRegistry registry, Environment environment, Mode mode) {
        this.registry = requireNonNull(registry, "registry is null");
        this.environment = requireNonNull(environment, "environment is null");
        this.mode = requireNonNull(mode, "mode is null");
    }

    /** Loads {@code file}; positions name it as given, so a relative path stays relative in messages. */
    public LoadResult load(Path file) {
        requireNonNull(file, "file is null");
        byte[] bytes;
        try (java.io.InputStream in = Files.newInputStream(file)) {
            // Bounded: a spec is kilobytes; a device or a huge file must not fill the heap.
            bytes = in.readNBytes(MAX_SPEC_BYTES + 1);
        } catch (IOException e) {
            return new LoadResult(Optional.empty(), List.of(unreadable(file, describe(e))));
        }
        if (bytes.length > MAX_SPEC_BYTES) {
            return new LoadResult(Optional.empty(), List.of(unreadable(file, "it is larger than "
                    + MAX_SPEC_BYTES / (1024 * 1024) + " MiB, which no spec is",
                    "check that the path names the spec, not a data file or a device")));
        }
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            return new LoadResult(Optional.empty(), List.of(unreadable(file, "not UTF-8 text",
                    "save the spec as UTF-8 (e.g. iconv -f latin1 -t utf-8 old.yaml > spec.yaml)")));
        }
        return load(file, text, bytes);
    }

    private LoadResult load(Path file, String text, byte[] bytes) {
        Findings findings = new Findings();
        Set<String> secrets = new HashSet<>();
        Optional<PipelineSpec> spec = new YamlTreeReader(file.toString(), findings).read(text)
                .map(root -> new Interpolator(environment, mode, specDirectory(file), findings, secrets)
                        .interpolate(root))
                .flatMap(root -> new SpecBinder(registry, findings, secrets).bind(root, file, sha256(bytes)));
        // A safety net: no message may carry a secret, even one a connector put into its own message.
        Redactor redactor = new Redactor(secrets);
        List<Diagnostic> diagnostics = findings.all().stream()
                .map(d -> new Diagnostic(d.severity(), d.code(), d.position(), redactor.redact(d.message()),
                        d.fix().map(redactor::redact)))
                .toList();
        boolean errors = diagnostics.stream().anyMatch(d -> d.severity() == Severity.ERROR);
        return new LoadResult(errors ? Optional.empty() : spec, diagnostics);
    }

    private static Path specDirectory(Path file) {
        Path parent = file.toAbsolutePath().getParent();
        return parent == null ? Path.of("").toAbsolutePath() : parent;
    }

    private static Diagnostic unreadable(Path file, String why) {
        return unreadable(file, why, "check the path and its permissions");
    }

    private static Diagnostic unreadable(Path file, String why, String fix) {
        return new Diagnostic(Severity.ERROR, SpecCode.SPEC001.name(),
                new Position(file.toString(), 1, 1), "cannot read the spec: " + why, Optional.of(fix));
    }

    private static String describe(IOException e) {
        return switch (e) {
            case java.nio.file.NoSuchFileException n -> "no such file";
            case java.nio.file.AccessDeniedException a -> "permission denied";
            default -> e.getClass().getSimpleName();
        };
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
