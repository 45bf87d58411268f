package io.sluice.testkit;

import io.sluice.spi.connector.ConnectionConfig;
import io.sluice.spi.connector.Connector;
import io.sluice.spi.connector.ConnectorFactory;
import io.sluice.spi.connector.Option;
import io.sluice.spi.connector.OptionSchema;
import io.sluice.spi.connector.Options;
import io.sluice.spi.connector.Problem;
import io.sluice.spi.connector.Role;
import io.sluice.spi.connector.StreamShape;
import io.sluice.spi.read.Distribution;
import io.sluice.spi.read.DistributionMethod;
import io.sluice.spi.write.LoadMode;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What every {@link ConnectorFactory} and the {@link Connector} it creates keep, whatever they connect to: a name a
 * spec can spell and {@code ServiceLoader} finds, a description and roles; option schemas with one kebab-case key
 * each; capabilities that fit the roles (a source plans method {@code none}, a target appends); offline lint that
 * finds nothing wrong with valid options and never throws; and {@code create} that does no I/O, so a connector for
 * a server that is down is created, says its notices and closes (twice, harmlessly).
 *
 * <p>Extend it with the factory and options as a spec gives them, for a server that need not be reachable.
 */
public abstract class ConnectorFactoryContractTest {
    private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9-]*");
    private static final Pattern KEY = Pattern.compile("[a-z][a-z0-9]*(-[a-z0-9]+)*");

    @TempDir
    Path state;

    /** The factory under test, as {@code ServiceLoader} would create it. */
    protected abstract ConnectorFactory factory();

    /** Valid connection options (of {@link ConnectorFactory#connectionOptions()}), for a server that may be down. */
    protected abstract Map<String, Object> connectionOptions();

    /** Valid source options of one stream; needed when the factory plays {@link Role#SOURCE}. */
    protected Map<String, Object> sourceOptions() {
        throw new UnsupportedOperationException("a source connector gives valid source options");
    }

    /** Valid target options of one stream; needed when the factory plays {@link Role#TARGET}. */
    protected Map<String, Object> targetOptions() {
        throw new UnsupportedOperationException("a target connector gives valid target options");
    }

    @Test
    void itIsNamedAsASpecSpellsItDescribedAndPlaysARole() {
        ConnectorFactory factory = factory();
        assertTrue(NAME.matcher(factory.name()).matches(), "the name '" + factory.name() + "' is a spec's type: "
                + NAME.pattern());
        assertFalse(factory.description().isBlank(), "a description for 'sluice connectors'");
        assertFalse(factory.roles().isEmpty(), "at least one role");
    }

    @Test
    void serviceLoaderFindsIt() {
        List<String> found = new ArrayList<>();
        ServiceLoader.load(ConnectorFactory.class).stream().forEach(p -> found.add(p.type().getName()));
        assertTrue(found.contains(factory().getClass().getName()), "META-INF/services/"
                + ConnectorFactory.class.getName() + " lists " + factory().getClass().getName() + " (found " + found
                + ")");
    }

    @Test
    void everyOptionHasOneKebabCaseKey() {
        ConnectorFactory factory = factory();
        for (OptionSchema schema : List.of(factory.connectionOptions(), factory.sourceOptions(),
                factory.targetOptions())) {
            Set<String> keys = new HashSet<>();
            for (Option<?> option : schema.options()) {
                assertTrue(KEY.matcher(option.key()).matches(), "option key '" + option.key() + "' is kebab-case");
                assertTrue(keys.add(option.key()), "option key '" + option.key() + "' declared twice");
            }
        }
    }

    @Test
    void itsCapabilitiesFitItsRoles() {
        ConnectorFactory factory = factory();
        if (factory.roles().contains(Role.SOURCE)) {
            assertTrue(factory.sourceCapabilities().supports(DistributionMethod.NONE),
                    "every source can be read whole (method none): the runner reads a one-transaction load so");
        }
        if (factory.roles().contains(Role.TARGET)) {
            assertTrue(factory.targetCapabilities().supports(LoadMode.APPEND), "every target appends");
        }
    }

    @Test
    void validOptionsLintCleanAndLintNeverThrows() {
        ConnectorFactory factory = factory();
        List<Problem> problems = new ArrayList<>(assertDoesNotThrow(() -> factory.lintConnection(
                Options.of(factory.connectionOptions(), connectionOptions()))));
        if (factory.roles().contains(Role.SOURCE)) {
            problems.addAll(assertDoesNotThrow(() -> factory.lintStream(new StreamShape("s", Role.SOURCE,
                    Options.of(factory.sourceOptions(), sourceOptions()), Distribution.none()))));
        }
        if (factory.roles().contains(Role.TARGET)) {
            problems.addAll(assertDoesNotThrow(() -> factory.lintStream(new StreamShape("s", Role.TARGET,
                    Options.of(factory.targetOptions(), targetOptions()), Distribution.none()))));
        }
        assertEquals(List.of(), problems.stream().filter(p -> p.severity() == Problem.Severity.ERROR).toList(),
                "valid options lint without errors");
        assertNotNull(assertDoesNotThrow(factory::runtimeNotes), "lines for 'sluice version'");
    }

    @Test
    void creatingAConnectorDoesNoIoAndClosingItTwiceIsHarmless() {
        ConnectorFactory factory = factory();
        Connector connector = assertDoesNotThrow(() -> factory.create(new ConnectionConfig("contract",
                Options.of(factory.connectionOptions(), connectionOptions()), state, state)),
                "create() must not connect: the server may be down");
        assertNotNull(connector.notices());
        assertDoesNotThrow(connector::close);
        assertDoesNotThrow(connector::close, "closing twice is harmless");
    }
}
