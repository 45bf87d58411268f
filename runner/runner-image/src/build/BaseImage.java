import org.apache.commons.compress.archivers.ar.ArArchiveEntry;
import org.apache.commons.compress.archivers.ar.ArArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;
import org.tukaani.xz.XZInputStream;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

/**
 * The base of Sluice's image as a {@code docker save} tarball Jib reads ({@code tar://}), made without root, a Docker
 * daemon or running a single program of the target architecture, and byte for byte the same from the same inputs:
 * <ol>
 *   <li>an OS layer: the files of the given Debian packages ({@code .deb}, as the Debian archive ships them) merged
 *   the way dpkg would unpack them on a merged-/usr system, without documentation, manuals or translations (each
 *   package's copyright file stays); each package's control file in {@code /var/lib/dpkg/status.d/} (where image
 *   scanners look for what a distroless image holds); {@code /etc/passwd} and {@code /etc/group} with the user
 *   sluice (65532), its home {@code /var/lib/sluice} (the image's state folder) owned by it, a sticky {@code /tmp},
 *   and {@code /etc/ssl/certs/ca-certificates.crt} from the ca-certificates package's files, as its own script would
 *   make it;</li>
 *   <li>a Java layer: a jlinked runtime folder as {@code /opt/java}.</li>
 * </ol>
 * Every file is owned by root (but the state folder) and dated as its package dates it, or at {@code EPOCH_SECONDS}
 * when the build made it; entries in name order. Two layers, so that a Java update re-sends only the second.
 * <p>Usage: {@code java -cp 'DIST/lib/app/lib/*' BaseImage.java ARCH EPOCH_SECONDS JAVA_RUNTIME JMODS_PACKAGE OUT_TAR
 * DEB...}, JMODS_PACKAGE the package=version the runtime was linked from (the image's SBOM reads it from the history).
 */
public final class BaseImage {
    private static final int SLUICE_ID = 65532;
    /** What an image that never runs a man page, a help text in another language or a package manager can lose. */
    private static final Pattern DROPPED = Pattern.compile(
            "usr/share/(man|info|locale|lintian|linda|bug|bash-completion|zsh|fish|menu|gtk-doc)/.*"
                    + "|usr/share/doc/[^/]+/(?!copyright$).*|usr/share/doc-base/.*|etc/(cron|logrotate)\\.d/.*");
    /** The top-level folders that are links into /usr on a merged-/usr system (Debian 12 and later). */
    private static final Map<String, String> MERGED = Map.of("bin", "usr/bin", "sbin", "usr/sbin", "lib", "usr/lib",
            "lib64", "usr/lib64");

    private record Entry(TarArchiveEntry header, byte[] data) {
    }

    public static void main(String[] args) throws Exception {
        String arch = args[0];
        long epoch = Long.parseLong(args[1]);
        Path runtime = Path.of(args[2]);
        String jmods = args[3];
        Path out = Path.of(args[4]);
        List<Path> debs = new ArrayList<>();
        for (int i = 5; i < args.length; i++) {
            debs.add(Path.of(args[i]));
        }

        TreeMap<String, Entry> os = new TreeMap<>();
        List<String> packages = new ArrayList<>();
        for (Path deb : debs) {
            packages.add(unpack(deb, os, epoch));
        }
        addMergedUsrLinks(os, epoch);
        addUsers(os, epoch);
        addCertificateBundle(os, epoch);
        addParents(os, epoch);

        TreeMap<String, Entry> java = new TreeMap<>();
        addTree(runtime, "opt/java", java, epoch);
        addParents(java, epoch);

        byte[] osLayer = layer(os);
        byte[] javaLayer = layer(java);
        String created = Instant.ofEpochSecond(epoch).toString();
        String config = """
                {"architecture":"%s",%s"os":"linux",\
                "config":{"Env":["PATH=/opt/java/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",\
                "JAVA_HOME=/opt/java"]},\
                "created":"%s",\
                "history":[{"created":"%s","created_by":"Debian packages: %s"},\
                {"created":"%s","created_by":"jlinked Java runtime in /opt/java: %s from %s"}],\
                "rootfs":{"type":"layers","diff_ids":["sha256:%s","sha256:%s"]}}"""
                .formatted(arch, arch.equals("arm64") ? "\"variant\":\"v8\"," : "", created, created,
                        String.join(" ", packages), created, javaVersion(runtime), jmods, sha256(osLayer),
                        sha256(javaLayer));
        String manifest = """
                [{"Config":"config.json","RepoTags":["sluice-base:%s"],"Layers":["os.tar","java.tar"]}]"""
                .formatted(arch);
        TreeMap<String, Entry> image = new TreeMap<>();
        image.put("config.json", file("config.json", config.getBytes(StandardCharsets.UTF_8), 0644, epoch));
        image.put("java.tar", file("java.tar", javaLayer, 0644, epoch));
        image.put("manifest.json", file("manifest.json", manifest.getBytes(StandardCharsets.UTF_8), 0644, epoch));
        image.put("os.tar", file("os.tar", osLayer, 0644, epoch));
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.write(out, layer(image));
        System.out.printf("base image %s: os layer %,d bytes (%d packages), java layer %,d bytes%n", arch,
                osLayer.length, packages.size(), javaLayer.length);
    }

    /** Adds a package's files to {@code tree}; returns "name=version". */
    private static String unpack(Path deb, TreeMap<String, Entry> tree, long epoch) throws IOException {
        String control = null;
        try (ArArchiveInputStream ar = new ArArchiveInputStream(Files.newInputStream(deb))) {
            for (ArArchiveEntry member; (member = ar.getNextEntry()) != null; ) {
                String name = member.getName();
                if (name.startsWith("control.tar")) {
                    control = controlFile(decompressed(name, ar));
                } else if (name.startsWith("data.tar")) {
                    readData(decompressed(name, ar), tree, deb);
                }
            }
        }
        if (control == null) {
            throw new IllegalStateException(deb + ": no control file; is it a Debian package?");
        }
        String name = field(control, "Package");
        tree.put("var/lib/dpkg/status.d/" + name, file("var/lib/dpkg/status.d/" + name,
                control.getBytes(StandardCharsets.UTF_8), 0644, epoch));
        return name + "=" + field(control, "Version");
    }

    private static InputStream decompressed(String name, InputStream in) throws IOException {
        InputStream shielded = new java.io.FilterInputStream(in) {
            @Override
            public void close() {
                // the ar stream goes on to its next member
            }
        };
        if (name.endsWith(".xz")) {
            return new XZInputStream(shielded);
        } else if (name.endsWith(".gz")) {
            return new GZIPInputStream(shielded);
        } else if (name.endsWith(".tar")) {
            return shielded;
        }
        throw new IllegalStateException(name + ": a compression this build does not read (xz, gz or none)");
    }

    private static String controlFile(InputStream in) throws IOException {
        TarArchiveInputStream tar = new TarArchiveInputStream(in);
        for (TarArchiveEntry e; (e = tar.getNextEntry()) != null; ) {
            if (e.getName().equals("./control") || e.getName().equals("control")) {
                return new String(tar.readAllBytes(), StandardCharsets.UTF_8);
            }
        }
        return null;
    }

    private static void readData(InputStream in, TreeMap<String, Entry> tree, Path deb) throws IOException {
        TarArchiveInputStream tar = new TarArchiveInputStream(in);
        Map<String, String> hardLinks = new LinkedHashMap<>();
        for (TarArchiveEntry e; (e = tar.getNextEntry()) != null; ) {
            String raw = normal(e.getName());
            // base-files ships the links /bin -> usr/bin ... themselves (Debian 13); what is under them moves into /usr
            String name = MERGED.containsKey(raw) && e.isSymbolicLink() ? raw : merged(raw);
            if (name.isEmpty() || DROPPED.matcher(name).matches()) {
                continue;
            }
            TarArchiveEntry header = new TarArchiveEntry(name + (e.isDirectory() ? "/" : ""),
                    e.isSymbolicLink() ? TarConstants.LF_SYMLINK : e.isDirectory() ? TarConstants.LF_DIR
                            : TarConstants.LF_NORMAL);
            header.setMode(e.getMode() & 07777);
            header.setModTime(e.getModTime());
            if (e.isDirectory()) {
                tree.putIfAbsent(name, new Entry(rooted(header), null));
            } else if (e.isSymbolicLink()) {
                header.setLinkName(e.getLinkName());
                tree.put(name, new Entry(rooted(header), null));
            } else if (e.isLink()) {
                hardLinks.put(name, merged(normal(e.getLinkName())));
            } else if (e.isFile()) {
                byte[] data = tar.readAllBytes();
                header.setSize(data.length);
                tree.put(name, new Entry(rooted(header), data));
            } else {
                throw new IllegalStateException(deb + ": " + e.getName() + " is neither a file, a folder nor a link");
            }
        }
        // a hard link becomes a copy: entries are written in name order, which may put a link before its target
        hardLinks.forEach((name, target) -> {
            Entry t = tree.get(target);
            if (t == null || t.data == null) {
                throw new IllegalStateException(deb + ": hard link " + name + " to " + target + ", not a file");
            }
            TarArchiveEntry header = new TarArchiveEntry(name, TarConstants.LF_NORMAL);
            header.setMode(t.header.getMode());
            header.setModTime(t.header.getModTime());
            header.setSize(t.data.length);
            tree.put(name, new Entry(rooted(header), t.data));
        });
    }

    private static String normal(String name) {
        String n = name.startsWith("./") ? name.substring(2) : name.startsWith("/") ? name.substring(1) : name;
        return n.endsWith("/") ? n.substring(0, n.length() - 1) : n;
    }

    private static String merged(String name) {
        int slash = name.indexOf('/');
        String top = slash < 0 ? name : name.substring(0, slash);
        String into = MERGED.get(top);
        return into == null ? name : slash < 0 ? into : into + name.substring(slash);
    }

    private static void addMergedUsrLinks(TreeMap<String, Entry> tree, long epoch) {
        MERGED.forEach((top, into) -> {
            if (!tree.containsKey(top) && (tree.keySet().stream().anyMatch(n -> n.startsWith(into + "/"))
                    || !top.equals("lib64"))) {
                TarArchiveEntry link = new TarArchiveEntry(top, TarConstants.LF_SYMLINK);
                link.setLinkName(into);
                link.setMode(0777);
                link.setModTime(epoch * 1000);
                tree.put(top, new Entry(rooted(link), null));
            }
        });
    }

    private static void addUsers(TreeMap<String, Entry> tree, long epoch) {
        put(tree, file("etc/passwd", ("root:x:0:0:root:/root:/usr/sbin/nologin\n"
                + "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
                + "sluice:x:65532:65532:Sluice:/var/lib/sluice:/usr/sbin/nologin\n").getBytes(StandardCharsets.UTF_8),
                0644, epoch));
        put(tree, file("etc/group", "root:x:0:\nnogroup:x:65534:\nsluice:x:65532:\n"
                .getBytes(StandardCharsets.UTF_8), 0644, epoch));
        TarArchiveEntry home = rooted(directory("var/lib/sluice", 0755, epoch));
        home.setIds(SLUICE_ID, SLUICE_ID);
        home.setUserName("sluice");
        home.setGroupName("sluice");
        tree.put("var/lib/sluice", new Entry(home, null));
        tree.put("tmp", new Entry(rooted(directory("tmp", 01777, epoch)), null));
        tree.put("root", new Entry(rooted(directory("root", 0700, epoch)), null));
    }

    /** What update-ca-certificates makes of the package's certificates: one PEM bundle, in name order. */
    private static void addCertificateBundle(TreeMap<String, Entry> tree, long epoch) {
        ByteArrayOutputStream bundle = new ByteArrayOutputStream();
        tree.forEach((name, e) -> {
            if (name.startsWith("usr/share/ca-certificates/mozilla/") && name.endsWith(".crt") && e.data != null) {
                bundle.writeBytes(e.data);
                if (e.data.length > 0 && e.data[e.data.length - 1] != '\n') {
                    bundle.write('\n');
                }
            }
        });
        if (bundle.size() == 0) {
            throw new IllegalStateException("no certificates: the package list lacks ca-certificates");
        }
        put(tree, file("etc/ssl/certs/ca-certificates.crt", bundle.toByteArray(), 0644, epoch));
    }

    private static void addTree(Path root, String into, TreeMap<String, Entry> tree, long epoch) throws IOException {
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : (Iterable<Path>) walk.sorted()::iterator) {
                String rel = root.relativize(p).toString();
                String name = rel.isEmpty() ? into : into + "/" + rel;
                if (Files.isSymbolicLink(p)) {
                    TarArchiveEntry link = new TarArchiveEntry(name, TarConstants.LF_SYMLINK);
                    link.setLinkName(Files.readSymbolicLink(p).toString());
                    link.setMode(0777);
                    link.setModTime(epoch * 1000);
                    tree.put(name, new Entry(rooted(link), null));
                } else if (Files.isDirectory(p)) {
                    tree.put(name, new Entry(rooted(directory(name, 0755, epoch)), null));
                } else {
                    Set<PosixFilePermission> perms = Files.getPosixFilePermissions(p);
                    put(tree, file(name, Files.readAllBytes(p),
                            perms.contains(PosixFilePermission.OWNER_EXECUTE) ? 0755 : 0644, epoch));
                }
            }
        }
    }

    /** Every folder an entry is in gets an entry of its own (a runtime creates missing ones as root 0755 anyway). */
    private static void addParents(TreeMap<String, Entry> tree, long epoch) {
        for (String name : List.copyOf(tree.keySet())) {
            for (int slash = name.lastIndexOf('/'); slash > 0; slash = name.lastIndexOf('/', slash - 1)) {
                String parent = name.substring(0, slash);
                if (tree.containsKey(parent)) {
                    break;
                }
                tree.put(parent, new Entry(rooted(directory(parent, 0755, epoch)), null));
            }
        }
    }

    private static void put(TreeMap<String, Entry> tree, Entry e) {
        tree.put(normal(e.header.getName()), e);
    }

    private static Entry file(String name, byte[] data, int mode, long epoch) {
        TarArchiveEntry header = new TarArchiveEntry(name, TarConstants.LF_NORMAL);
        header.setMode(mode);
        header.setModTime(epoch * 1000);
        header.setSize(data.length);
        return new Entry(rooted(header), data);
    }

    private static TarArchiveEntry directory(String name, int mode, long epoch) {
        TarArchiveEntry header = new TarArchiveEntry(name + "/", TarConstants.LF_DIR);
        header.setMode(mode);
        header.setModTime(epoch * 1000);
        return header;
    }

    private static TarArchiveEntry rooted(TarArchiveEntry header) {
        header.setIds(0, 0);
        header.setUserName("root");
        header.setGroupName("root");
        return header;
    }

    /** A tar of {@code tree} in name order (a folder before what it holds), nothing of this machine in it. */
    private static byte[] layer(TreeMap<String, Entry> tree) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (TarArchiveOutputStream tar = new TarArchiveOutputStream(bytes, StandardCharsets.UTF_8.name())) {
            tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
            tar.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
            for (Entry e : tree.values()) {
                tar.putArchiveEntry(e.header);
                if (e.data != null) {
                    tar.write(e.data);
                }
                tar.closeArchiveEntry();
            }
        }
        return bytes.toByteArray();
    }

    private static String field(String control, String name) {
        Matcher m = Pattern.compile("(?m)^" + name + ": *(\\S+)").matcher(control);
        if (!m.find()) {
            throw new IllegalStateException("a control file without " + name + ":\n" + control);
        }
        return m.group(1);
    }

    private static String javaVersion(Path runtime) throws IOException {
        Matcher m = Pattern.compile("(?m)^JAVA_VERSION=\"([^\"]+)\"").matcher(Files.readString(runtime.resolve("release")));
        return m.find() ? m.group(1) : "unknown";
    }

    private static String sha256(byte[] data) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    }
}
