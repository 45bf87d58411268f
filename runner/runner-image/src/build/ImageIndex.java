import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One image for several architectures: the per-architecture images Jib wrote ({@code docker save} tarballs) as an OCI
 * image layout in one tarball, whose {@code index.json} names an image index over their manifests with each one's
 * platform. {@code skopeo copy --all oci-archive:FILE docker://REGISTRY/sluice:TAG} (or {@code crane push}, {@code
 * regctl image import}) pushes both under one tag; {@code podman load} and Docker 25+ load it. Every blob is stored by
 * its digest and the JSON written in one fixed form, so the same images give the same index digest.
 * <p>Usage: {@code java -cp 'DIST/lib/app/lib/*' ImageIndex.java OUT_TAR NAME:TAG ARCH=IMAGE_TAR...}
 */
public final class ImageIndex {
    private static final String MANIFEST = "application/vnd.oci.image.manifest.v1+json";
    private static final String INDEX = "application/vnd.oci.image.index.v1+json";

    public static void main(String[] args) throws Exception {
        Path out = Path.of(args[0]);
        String name = args[1];
        String tag = name.substring(name.lastIndexOf(':') + 1);
        TreeMap<String, byte[]> blobs = new TreeMap<>();
        List<String> manifests = new ArrayList<>();
        JsonMapper json = JsonMapper.builder().build();
        for (int i = 2; i < args.length; i++) {
            String arch = args[i].substring(0, args[i].indexOf('='));
            Map<String, byte[]> files = read(Path.of(args[i].substring(arch.length() + 1)));
            JsonNode saved = json.readTree(files.get("manifest.json")).get(0);
            byte[] config = files.get(saved.get("Config").asString());
            JsonNode platform = json.readTree(config);
            if (!arch.equals(platform.path("architecture").asString())) {
                throw new IllegalStateException(args[i] + " is an image for " + platform.path("architecture"));
            }
            StringBuilder layers = new StringBuilder();
            for (JsonNode layer : saved.get("Layers")) {
                byte[] data = files.get(layer.asString());
                boolean gzip = data.length > 2 && (data[0] & 0xff) == 0x1f && (data[1] & 0xff) == 0x8b;
                layers.append(layers.isEmpty() ? "" : ",").append(descriptor(
                        "application/vnd.oci.image.layer.v1.tar" + (gzip ? "+gzip" : ""), put(blobs, data), data.length));
            }
            byte[] manifest = ("{\"schemaVersion\":2,\"mediaType\":\"" + MANIFEST + "\",\"config\":"
                    + descriptor("application/vnd.oci.image.config.v1+json", put(blobs, config), config.length)
                    + ",\"layers\":[" + layers + "]}").getBytes(StandardCharsets.UTF_8);
            // Jib's config does not keep the base's variant; arm64 images are ARMv8 (as Docker and containerd name them)
            String variant = platform.path("variant").asString(arch.equals("arm64") ? "v8" : "");
            manifests.add("{\"mediaType\":\"" + MANIFEST + "\",\"digest\":\"" + put(blobs, manifest) + "\",\"size\":"
                    + manifest.length + ",\"platform\":{\"architecture\":\"" + arch + "\",\"os\":\"linux\""
                    + (variant.isEmpty() ? "" : ",\"variant\":\"" + variant + "\"") + "}}");
        }
        byte[] index = ("{\"schemaVersion\":2,\"mediaType\":\"" + INDEX + "\",\"manifests\":["
                + String.join(",", manifests) + "]}").getBytes(StandardCharsets.UTF_8);
        String indexDigest = put(blobs, index);
        byte[] top = ("{\"schemaVersion\":2,\"mediaType\":\"" + INDEX + "\",\"manifests\":[{\"mediaType\":\"" + INDEX
                + "\",\"digest\":\"" + indexDigest + "\",\"size\":" + index.length + ",\"annotations\":{"
                + "\"io.containerd.image.name\":\"" + name + "\",\"org.opencontainers.image.ref.name\":\"" + tag
                + "\"}}]}").getBytes(StandardCharsets.UTF_8);

        Files.createDirectories(out.toAbsolutePath().getParent());
        try (OutputStream file = Files.newOutputStream(out);
             TarArchiveOutputStream tar = new TarArchiveOutputStream(file, StandardCharsets.UTF_8.name())) {
            tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
            tar.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
            entry(tar, "blobs/", null);
            entry(tar, "blobs/sha256/", null);
            for (Map.Entry<String, byte[]> blob : blobs.entrySet()) {
                entry(tar, "blobs/sha256/" + blob.getKey().substring("sha256:".length()), blob.getValue());
            }
            entry(tar, "index.json", top);
            entry(tar, "oci-layout", "{\"imageLayoutVersion\":\"1.0.0\"}".getBytes(StandardCharsets.UTF_8));
        }
        System.out.println("image index " + name + ": " + indexDigest);
    }

    private static String descriptor(String mediaType, String digest, long size) {
        return "{\"mediaType\":\"" + mediaType + "\",\"digest\":\"" + digest + "\",\"size\":" + size + "}";
    }

    private static String put(Map<String, byte[]> blobs, byte[] data) throws Exception {
        String digest = "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
        blobs.put(digest, data);
        return digest;
    }

    private static Map<String, byte[]> read(Path tarball) throws IOException {
        Map<String, byte[]> files = new HashMap<>();
        try (InputStream in = Files.newInputStream(tarball); TarArchiveInputStream tar = new TarArchiveInputStream(in)) {
            for (TarArchiveEntry e; (e = tar.getNextEntry()) != null; ) {
                if (e.isFile()) {
                    files.put(e.getName(), tar.readAllBytes());
                }
            }
        }
        return files;
    }

    private static void entry(TarArchiveOutputStream tar, String name, byte[] data) throws IOException {
        TarArchiveEntry e = new TarArchiveEntry(name);
        e.setModTime(0);
        e.setIds(0, 0);
        e.setUserName("");
        e.setGroupName("");
        e.setMode(data == null ? 0755 : 0644);
        if (data != null) {
            e.setSize(data.length);
        }
        tar.putArchiveEntry(e);
        if (data != null) {
            tar.write(data);
        }
        tar.closeArchiveEntry();
    }
}
