package io.sluice.toolkit.driver;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The fast route runs on the tested driver version with all members found, and the public route otherwise. */
class FastPathTest {
    private static final FastPath PATH = new FastPath("test-frames", "1.2.3", "frames off the stream",
            "the public reader");
    private final AtomicInteger lookups = new AtomicInteger();
    private final Supplier<DriverMembers<String>> found = () -> {
        lookups.incrementAndGet();
        return DriverMembers.find(() -> "members");
    };

    @AfterEach
    void clearProperties() {
        System.clearProperty(PATH.switchProperty());
        System.clearProperty(DriverVersion.SIMULATED_VERSION_PREFIX + "testdriver");
    }

    @Test
    void theTestedVersionWithItsMembersTakesTheFastRoute() {
        FastPath.Selection<String> selection = PATH.select(version(Optional.of("1.2.3")), found);
        assertTrue(selection.fast());
        assertEquals(Optional.of("members"), selection.members());
        assertEquals("fast path test-frames: on, frames off the stream (on TestDriver 1.2.3)", selection.describe());
    }

    @Test
    void anotherVersionTakesThePublicRouteWithoutLookingAtMembers() {
        FastPath.Selection<String> selection = PATH.select(version(Optional.of("1.2.4")), found);
        assertFalse(selection.fast());
        assertEquals(Optional.empty(), selection.members());
        assertEquals(0, lookups.get(), "another version's internals are not reflected upon");
        assertEquals("fast path test-frames: off, the public reader (TestDriver 1.2.4 is not 1.2.3, the version this "
                + "path was written and tested for)", selection.describe());
    }

    @Test
    void anUnknownVersionTakesThePublicRoute() {
        FastPath.Selection<String> selection = PATH.select(version(Optional.empty()), found);
        assertFalse(selection.fast());
        assertTrue(selection.reason().contains("does not report its version"), selection.reason());
    }

    @Test
    void aSimulatedVersionReplacesTheReportedOne() {
        System.setProperty(DriverVersion.SIMULATED_VERSION_PREFIX + "testdriver", "9.9");
        DriverVersion simulated = version(Optional.of("1.2.3"));
        assertEquals(Optional.of("9.9"), simulated.version());
        FastPath.Selection<String> selection = PATH.select(simulated, found);
        assertFalse(selection.fast());
        assertTrue(selection.reason().startsWith("TestDriver 9.9 (simulated with -Dsluice.driver-version.testdriver)"
                + " is not 1.2.3"), selection.reason());
    }

    @Test
    void theSwitchTurnsItOff() {
        System.setProperty(PATH.switchProperty(), "false");
        assertEquals("sluice.fastpath.test-frames", PATH.switchProperty());
        FastPath.Selection<String> selection = PATH.select(version(Optional.of("1.2.3")), found);
        assertFalse(selection.fast());
        assertEquals("switched off with -Dsluice.fastpath.test-frames=false", selection.reason());
        System.setProperty(PATH.switchProperty(), "true");
        assertTrue(PATH.select(version(Optional.of("1.2.3")), found).fast());
    }

    @Test
    void aMissingMemberTakesThePublicRouteWithoutAnException() {
        FastPath.Selection<Object> selection = PATH.select(version(Optional.of("1.2.3")),
                () -> DriverMembers.find(() -> String.class.getDeclaredField("noSuchField")));
        assertFalse(selection.fast());
        assertEquals("TestDriver 1.2.3 lacks a member this path reads (NoSuchFieldException: noSuchField)",
                selection.reason());
        // a lookup failing in a class initialiser or with a changed type is missing too, never thrown
        DriverMembers<Object> broken = DriverMembers.find(() -> {
            throw new ExceptionInInitializerError("static init failed");
        });
        assertEquals(Optional.of("ExceptionInInitializerError: static init failed"), broken.missing());
    }

    private static DriverVersion version(Optional<String> reported) {
        return DriverVersion.of("TestDriver", "testdriver", reported);
    }
}
