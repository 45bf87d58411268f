package io.sluice.testkit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TestTierTest {
    /** A matrix shaped like the crash matrix: 10 x 3 x 3 x 2. */
    private static final List<List<Object>> MATRIX = matrix(10, 3, 3, 2);
    private static final Function<List<Object>, List<?>> FACTORS = c -> c;
    private static final Function<List<Object>, String> NAME = c -> c.toString();

    private final String tier = System.getProperty("sluice.tests");

    @AfterEach
    void restoreProperties() {
        System.clearProperty("sluice.case");
        if (tier == null) {
            System.clearProperty("sluice.tests");
        } else {
            System.setProperty("sluice.tests", tier);
        }
    }

    @Test
    void theQuickSampleCoversEveryValueOfEveryFactorWithinItsBudget() {
        List<List<Object>> quick = TestTier.QUICK.select(MATRIX, FACTORS, 12, NAME);
        assertTrue(quick.size() <= 12, "within the budget: " + quick.size());
        for (int factor = 0; factor < 4; factor++) {
            int f = factor;
            Set<Object> seen = new HashSet<>();
            quick.forEach(c -> seen.add(c.get(f)));
            Set<Object> all = new HashSet<>();
            MATRIX.forEach(c -> all.add(c.get(f)));
            assertEquals(all, seen, "every value of factor " + f);
        }
    }

    @Test
    void aBudgetBelowTheValuesIsRaisedToCoverThemAll() {
        List<List<Object>> quick = TestTier.QUICK.select(MATRIX, FACTORS, 1, NAME);
        assertEquals(10, quick.stream().map(c -> c.get(0)).distinct().count(), "all ten values of the widest factor");
    }

    @Test
    void aLargerBudgetCoversEveryPair() {
        List<List<Object>> quick = TestTier.QUICK.select(MATRIX, FACTORS, 60, NAME);
        Set<List<Object>> pairs = new HashSet<>();
        for (List<Object> c : quick) {
            for (int i = 0; i < 4; i++) {
                for (int j = i + 1; j < 4; j++) {
                    pairs.add(List.of(i, c.get(i), j, c.get(j)));
                }
            }
        }
        // 10*3 + 10*3 + 10*2 + 3*3 + 3*2 + 3*2 pairs
        assertEquals(101, pairs.size());
        assertTrue(quick.size() < MATRIX.size() / 3, "far fewer cases than the matrix: " + quick.size());
    }

    @Test
    void quickAndRestSplitTheFullSuiteDeterministically() {
        List<List<Object>> quick = TestTier.QUICK.select(MATRIX, FACTORS, 12, NAME);
        List<List<Object>> rest = TestTier.REST.select(MATRIX, FACTORS, 12, NAME);
        assertEquals(quick, TestTier.QUICK.select(MATRIX, FACTORS, 12, NAME), "the same sample every time");
        List<List<Object>> union = new ArrayList<>(quick);
        union.addAll(rest);
        assertEquals(MATRIX.size(), union.size(), "no case in both");
        assertEquals(new HashSet<>(MATRIX), new HashSet<>(union), "every case in one of them");
        assertEquals(MATRIX, TestTier.FULL.select(MATRIX, FACTORS, 12, NAME));
    }

    @Test
    void oneCaseRunsAloneByItsName() {
        System.setProperty("sluice.case", "[9, 2, 2, 1]");
        assertEquals(List.of(List.of(9, 2, 2, 1)), TestTier.QUICK.select(MATRIX, FACTORS, 12, NAME));
        assertEquals(List.of(List.of(9, 2, 2, 1)), TestTier.REST.select(MATRIX, FACTORS, 12, NAME));
    }

    @Test
    void theTierComesFromTheBuildAndAWrongOneIsNamed() {
        System.clearProperty("sluice.tests");
        assertEquals(TestTier.QUICK, TestTier.current());
        System.setProperty("sluice.tests", "rest");
        assertEquals(TestTier.REST, TestTier.current());
        System.setProperty("sluice.tests", "fast");
        assertTrue(assertThrows(IllegalStateException.class, TestTier::current).getMessage().contains("quick, full"));
    }

    enum Side { LEFT, RIGHT }

    enum Step { FIRST, SECOND, THIRD }

    @Test
    void aMatrixNamesItsCellsInOrderAndAFailingCellSaysItsName() throws Throwable {
        System.setProperty("sluice.tests", "full");
        List<org.junit.jupiter.api.DynamicTest> tests = TestTier.matrix(1, List.of(List.of(Side.values()),
                List.of(Step.values())), cell -> {
                    if (cell.equals(List.of(Side.RIGHT, Step.SECOND))) {
                        throw new AssertionError("lost a row");
                    }
                }).toList();
        assertEquals(List.of("LEFT / FIRST", "LEFT / SECOND", "LEFT / THIRD", "RIGHT / FIRST", "RIGHT / SECOND",
                "RIGHT / THIRD"), tests.stream().map(org.junit.jupiter.api.DynamicTest::getDisplayName).toList());
        tests.get(0).getExecutable().execute();
        AssertionError failed = assertThrows(AssertionError.class, () -> tests.get(4).getExecutable().execute());
        assertEquals("RIGHT / SECOND: lost a row", failed.getMessage());
    }

    private static List<List<Object>> matrix(int... sizes) {
        List<List<Object>> out = new ArrayList<>();
        out.add(List.of());
        for (int size : sizes) {
            List<List<Object>> next = new ArrayList<>();
            for (List<Object> prefix : out) {
                for (int v = 0; v < size; v++) {
                    List<Object> c = new ArrayList<>(prefix);
                    c.add(v);
                    next.add(List.copyOf(c));
                }
            }
            out = next;
        }
        return out;
    }
}
