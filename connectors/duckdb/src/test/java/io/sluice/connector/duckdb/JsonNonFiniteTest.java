package io.sluice.connector.duckdb;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class JsonNonFiniteTest {
    @Test
    void bareNonFiniteFloatsBecomeStringsAndStringsStayAsTheyAre() {
        assertEquals("{\"a\":\"NaN\",\"b\":[\"-Infinity\",1.5,\"Infinity\"]}",
                JsonNonFinite.quote("{\"a\":NaN,\"b\":[-Infinity,1.5,Infinity]}"));
        assertEquals("{\"x\\\"NaN\":\"Infinity \\\\\",\"y\":\"NaN\"}",
                JsonNonFinite.quote("{\"x\\\"NaN\":\"Infinity \\\\\",\"y\":NaN}"));
        String finite = "{\"a\":-1.5e3,\"b\":null,\"c\":\"NaN\"}";
        assertSame(finite, JsonNonFinite.quote(finite));
    }

    @Test
    void onlyTypesThatHoldAFloatAreScanned() {
        assertTrue(JsonNonFinite.possibleIn("STRUCT(x DOUBLE, y VARCHAR)"));
        assertTrue(JsonNonFinite.possibleIn("MAP(VARCHAR, FLOAT)"));
        assertFalse(JsonNonFinite.possibleIn("STRUCT(x BIGINT, y DECIMAL(10,2))"));
    }
}
