package io.sluice.connector.postgres.catalog;

import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TypeLossTest {
    @Test
    void whatRoundsOrCutsWithoutAnErrorIsNamed() {
        assertEquals(Optional.of("values are rounded to 2 decimal place(s)"), TypeLoss.of("numeric(14,4)",
                "numeric(12,2)"));
        assertTrue(TypeLoss.of("numeric", "numeric(12,2)").isPresent(), "an unbounded numeric has any scale");
        assertTrue(TypeLoss.of("double precision", "numeric(12,2)").isPresent());
        assertTrue(TypeLoss.of("double precision", "real").isPresent());
        assertTrue(TypeLoss.of("bigint", "double precision").isPresent());
        assertTrue(TypeLoss.of("numeric", "double precision").isPresent());
        assertEquals(Optional.of("fractions of a second are rounded to 0 digit(s)"), TypeLoss.of(
                "timestamp without time zone", "timestamp(0) without time zone"));
        assertTrue(TypeLoss.of("time(3) with time zone", "time(1) with time zone").isPresent());
    }

    @Test
    void whatFitsOrFailsLoudlyIsNotALoss() {
        for (String[] fits : new String[][] {{"numeric(12,2)", "numeric(14,4)"}, {"numeric(14,2)", "numeric(12,2)"},
                {"integer", "numeric(12,2)"}, {"real", "double precision"}, {"integer", "double precision"},
                {"numeric(12,2)", "double precision"}, {"timestamp(3) without time zone", "timestamp without time zone"},
                {"text", "character varying(10)"}, {"bigint", "integer"}, {"numeric(12,2)", "numeric"},
                {"timestamp without time zone", "timestamp(0) with time zone"}}) {
            assertEquals(Optional.empty(), TypeLoss.of(fits[0], fits[1]), fits[0] + " into " + fits[1]);
        }
    }
}
