import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.classfile.ClassElement;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassFileVersion;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.classfile.ClassModel;
import java.lang.classfile.CodeTransform;
import java.lang.classfile.MethodModel;
import java.lang.classfile.MethodTransform;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarInputStream;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

/**
 * Rewrites a jar whose class files are older than Java 6 (picocli targets Java 5) as Java 8 class files: the same
 * code, with the stack maps the JVM's verifier needs from Java 7 on. The JVM's start-up cache cannot hold a class that
 * older (JDK 25's AOT cache skips it as "unlinked"), nor any class that implements one of its interfaces, so each run
 * loaded and verified picocli's 180 classes from the jar. Every rewritten class is checked by the class-file
 * verifier; if one fails, or the jar holds anything else unexpected, the jar is left as it was. A rewritten jar's
 * manifest says so ({@code Sluice-Retargeted}), and the distribution's bill of materials records it as modified.
 * Needs JDK 24+ (java.lang.classfile); run as {@code java RetargetClasses.java JAR...}.
 */
public final class RetargetClasses {
    static final String ATTRIBUTE = "Sluice-Retargeted";
    private static final int JAVA_8 = 52;
    private static final int JAVA_6 = 50;

    public static void main(String[] args) throws IOException {
        for (String jar : args) {
            System.out.println(jar + ": " + retarget(Path.of(jar)));
        }
    }

    static String retarget(Path jar) throws IOException {
        Map<String, byte[]> entries = new LinkedHashMap<>();
        Manifest manifest;
        try (JarInputStream in = new JarInputStream(Files.newInputStream(jar))) {
            manifest = in.getManifest();
            for (JarEntry e; (e = in.getNextJarEntry()) != null; ) {
                if (!e.isDirectory()) {
                    entries.put(e.getName(), in.readAllBytes());
                }
            }
        }
        if (manifest == null) {
            manifest = new Manifest();
            manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        }
        if (manifest.getMainAttributes().getValue(ATTRIBUTE) != null) {
            return "already retargeted";
        }
        ClassFile classFile = ClassFile.of(ClassFile.ClassHierarchyResolverOption.of(
                ClassHierarchyResolver.ofClassLoading(new JarClasses(entries))
                        .orElse(ClassHierarchyResolver.defaultResolver())));
        Map<String, byte[]> rewritten = new LinkedHashMap<>();
        int classes = 0;
        for (Map.Entry<String, byte[]> e : entries.entrySet()) {
            byte[] bytes = e.getValue();
            if (e.getKey().endsWith(".class") && !e.getKey().startsWith("META-INF/")) {
                ClassModel model = classFile.parse(bytes);
                if (model.majorVersion() >= JAVA_6) {
                    return "left as it is: " + e.getKey() + " is already Java " + (model.majorVersion() - 44);
                }
                bytes = classFile.build(model.thisClass().asSymbol(), builder -> {
                    builder.withVersion(JAVA_8, 0);
                    for (ClassElement element : model) {
                        if (element instanceof MethodModel method) {
                            builder.transformMethod(method, MethodTransform.transformingCode(CodeTransform.ACCEPT_ALL));
                        } else if (!(element instanceof ClassFileVersion)) {
                            builder.with(element);
                        }
                    }
                });
                List<VerifyError> errors = classFile.verify(bytes);
                if (!errors.isEmpty()) {
                    return "left as it is: " + e.getKey() + " does not verify as Java 8: " + errors.getFirst();
                }
                classes++;
            }
            rewritten.put(e.getKey(), bytes);
        }
        manifest.getMainAttributes().putValue(ATTRIBUTE, classes + " class files rewritten from Java 5 to Java 8 "
                + "(stack maps added, code unchanged) so that the JVM's start-up cache can hold them");
        Path tmp = jar.resolveSibling(jar.getFileName() + ".tmp");
        java.io.ByteArrayOutputStream manifestBytes = new java.io.ByteArrayOutputStream();
        manifest.write(manifestBytes);
        try (OutputStream file = Files.newOutputStream(tmp); JarOutputStream out = new JarOutputStream(file)) {
            write(out, JarFile.MANIFEST_NAME, manifestBytes.toByteArray());
            for (Map.Entry<String, byte[]> e : rewritten.entrySet()) {
                if (!e.getKey().equals(JarFile.MANIFEST_NAME)) {
                    write(out, e.getKey(), e.getValue());
                }
            }
        }
        Files.move(tmp, jar, StandardCopyOption.REPLACE_EXISTING);
        return classes + " classes rewritten as Java 8";
    }

    private static void write(JarOutputStream out, String name, byte[] bytes) throws IOException {
        JarEntry entry = new JarEntry(name);
        entry.setTime(315532800000L); // 1980-01-01: the same jar in gives the same bytes out
        out.putNextEntry(entry);
        out.write(bytes);
        out.closeEntry();
    }

    /** The jar's classes, defined only to tell the stack maps their supertypes. */
    private static final class JarClasses extends ClassLoader {
        private final Map<String, byte[]> entries;

        JarClasses(Map<String, byte[]> entries) {
            super(null);
            this.entries = entries;
        }

        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            byte[] bytes = entries.get(name.replace('.', '/') + ".class");
            if (bytes == null) {
                throw new ClassNotFoundException(name);
            }
            return defineClass(name, bytes, 0, bytes.length);
        }
    }

    private RetargetClasses() {
    }
}
