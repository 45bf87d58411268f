package io.sluice.app.report;

import io.sluice.core.spec.PipelineSpec;
import io.sluice.core.spec.SpecLoader;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Which spec a run was for. The name is empty when the spec could not be loaded (exit 3) or failed before the run
 * could hand it over (exit 4); the checksum (SHA-256 of the file's bytes, as the loader computes it) is empty only
 * when the file cannot be read.
 */
public record SpecIdentity(Optional<String> name, String file, Optional<String> checksum) {
    public SpecIdentity {
        requireNonNull(name, "name is null");
        requireNonNull(file, "file is null");
        requireNonNull(checksum, "checksum is null");
    }

    public static SpecIdentity of(PipelineSpec spec) {
        requireNonNull(spec, "spec is null");
        return new SpecIdentity(Optional.of(spec.name()), spec.file().toString(), Optional.of(spec.checksum()));
    }

    /** For a spec that was not loaded: the file as given and the checksum of its bytes, if readable. */
    public static SpecIdentity ofFile(Path file) {
        requireNonNull(file, "file is null");
        Optional<String> checksum;
        try (java.io.InputStream in = Files.newInputStream(file)) {
            // No larger than a spec can be: a device or a huge file is not read whole.
            byte[] bytes = in.readNBytes(SpecLoader.MAX_SPEC_BYTES + 1);
            checksum = bytes.length > SpecLoader.MAX_SPEC_BYTES ? Optional.empty()
                    : Optional.of(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes)));
        } catch (IOException e) {
            checksum = Optional.empty();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
        return new SpecIdentity(Optional.empty(), file.toString(), checksum);
    }
}
