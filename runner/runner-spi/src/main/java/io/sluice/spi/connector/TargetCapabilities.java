package io.sluice.spi.connector;

import io.sluice.spi.data.SchemaChanges;
import io.sluice.spi.write.LoadMode;
import io.sluice.spi.write.PartitionWriter;
import io.sluice.spi.write.PlannedLoad;
import io.sluice.spi.write.Target;

import java.util.EnumSet;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * What a connector's targets can do, known without connecting; declared once by the factory
 * ({@link ConnectorFactory#targetCapabilities()}), the only place the core asks: {@code sluice lint} refuses a stream
 * that asks for more (SPEC029), and the planner does not let a run find out half-way.
 *
 * @param loadModes                the {@code load-mode}s its targets plan ({@link Target#planLoad})
 * @param rebuildsIndexes          whether they take {@code indexes: rebuild} (drop, load, build again)
 * @param replacesInOneTransaction whether {@link PlannedLoad#replacingLoads()} works: the runner then loads a
 *        truncate stream that one worker writes in one transaction, so a failure leaves the target as it was and the
 *        target may skip work for rows nobody else can see before the commit (PostgreSQL: no WAL on
 *        {@code wal_level=minimal}, rows written frozen)
 * @param joinedRuns               whether several processes of one run may load a target together
 *        ({@link PlannedLoad#sharedClaims()}, {@code sluice run --join})
 * @param schemaChanges            the {@code schema-changes} policies its targets plan; {@code fail} and
 *        {@code ignore-new} ask nothing of a target that the core cannot do, so every target has them
 * @param setsAsideRows            whether its writers take {@code rejects:} ({@link PartitionWriter#reject}, and rows
 *        its server refuses set aside instead of failing the partition)
 * @param comparesRows             whether its targets list their rows ({@link Target#rows()}), which
 *        {@code sluice compare} and {@code verify: compare} need
 */
public record TargetCapabilities(Set<LoadMode> loadModes, boolean rebuildsIndexes, boolean replacesInOneTransaction,
                                 boolean joinedRuns, Set<SchemaChanges> schemaChanges,
                                 boolean setsAsideRows, boolean comparesRows) {
    /** The policies every target takes: columns as they are, or new source columns left unread. */
    public static final Set<SchemaChanges> KEEPS_ITS_SHAPE = Set.of(SchemaChanges.FAIL,
            SchemaChanges.IGNORE_NEW);

    /** A target that appends or empties and appends, each partition in a transaction of its own, and nothing more. */
    public static final TargetCapabilities BASIC = new TargetCapabilities(EnumSet.of(LoadMode.APPEND,
            LoadMode.TRUNCATE), false, false, false);

    /** Capabilities of a target that never changes its table's shape. */
    public TargetCapabilities(Set<LoadMode> loadModes, boolean rebuildsIndexes, boolean replacesInOneTransaction,
                              boolean joinedRuns) {
        this(loadModes, rebuildsIndexes, replacesInOneTransaction, joinedRuns, KEEPS_ITS_SHAPE);
    }

    /** Capabilities of a target that sets no rows aside. */
    public TargetCapabilities(Set<LoadMode> loadModes, boolean rebuildsIndexes, boolean replacesInOneTransaction,
                              boolean joinedRuns, Set<SchemaChanges> schemaChanges) {
        this(loadModes, rebuildsIndexes, replacesInOneTransaction, joinedRuns, schemaChanges, false);
    }

    /** Capabilities of a target that compares no rows. */
    public TargetCapabilities(Set<LoadMode> loadModes, boolean rebuildsIndexes, boolean replacesInOneTransaction,
                              boolean joinedRuns, Set<SchemaChanges> schemaChanges,
                              boolean setsAsideRows) {
        this(loadModes, rebuildsIndexes, replacesInOneTransaction, joinedRuns, schemaChanges, setsAsideRows, false);
    }

    public TargetCapabilities {
        loadModes = Set.copyOf(requireNonNull(loadModes, "loadModes is null"));
        if (!loadModes.contains(LoadMode.APPEND)) {
            throw new IllegalArgumentException("every target appends: loadModes " + loadModes + " lack APPEND");
        }
        schemaChanges = Set.copyOf(requireNonNull(schemaChanges, "schemaChanges is null"));
        if (!schemaChanges.containsAll(KEEPS_ITS_SHAPE)) {
            throw new IllegalArgumentException("every target takes fail and ignore-new: schemaChanges "
                    + schemaChanges);
        }
    }

    public boolean supports(LoadMode mode) {
        return loadModes.contains(requireNonNull(mode, "mode is null"));
    }
}
