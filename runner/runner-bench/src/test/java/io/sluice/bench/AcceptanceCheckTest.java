package io.sluice.bench;

import org.junit.jupiter.api.Test;

import java.util.OptionalDouble;

import static org.junit.jupiter.api.Assertions.assertEquals;

class AcceptanceCheckTest {
    @Test
    void aRatioJustUnderTheBarShowsTheDecimalThatMakesItFail() {
        AcceptanceCheck check = AcceptanceCheck.atLeast("bar", OptionalDouble.of(32.12 / 26.84), 1.2, "× DuckDB");
        assertEquals("1.197× DuckDB", check.measured());
        assertEquals(AcceptanceCheck.Verdict.FAIL, check.verdict());
    }

    @Test
    void otherRatiosKeepTwoDecimals() {
        AcceptanceCheck pass = AcceptanceCheck.atLeast("bar", OptionalDouble.of(1.2345), 1.2, "×");
        assertEquals("1.23×", pass.measured());
        assertEquals(AcceptanceCheck.Verdict.PASS, pass.verdict());
        AcceptanceCheck fail = AcceptanceCheck.atLeast("bar", OptionalDouble.of(0.884), 0.9, "× limit");
        assertEquals("0.88× limit", fail.measured());
        assertEquals(AcceptanceCheck.Verdict.FAIL, fail.verdict());
        assertEquals(AcceptanceCheck.Verdict.NOT_MEASURED,
                AcceptanceCheck.atLeast("bar", OptionalDouble.empty(), 1, "×").verdict());
    }
}
