package io.sluice.connector.mysql;

import org.junit.jupiter.api.Test;

import java.time.LocalDate;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The encoders' own arithmetic against the JDK's: every date MySQL can hold, and the clock parts of TIME. */
class ValueEncoderTest {
    @Test
    void everyDateOfYears0To9999CountsTheDaysTheJdkCounts() {
        for (LocalDate d = LocalDate.of(0, 1, 1); d.getYear() <= 9999; d = d.plusDays(1)) {
            assertEquals(d.toEpochDay(), ValueEncoder.Temporal.epochDay(d.getYear(), d.getMonthValue(),
                    d.getDayOfMonth()), d.toString());
            assertEquals(d.lengthOfMonth(), ValueEncoder.Temporal.daysInMonth(d.getYear(), d.getMonthValue()),
                    d.toString());
        }
    }

    @Test
    void clockPartsReadToTheMicrosecond() {
        assertEquals(((838L * 60 + 59) * 60 + 59) * 1_000_000L, ValueEncoder.Temporal.digits("838", 0, 3)
                * 3_600_000_000L + ValueEncoder.Temporal.minuteMicros("59:59", 0));
        assertEquals(((1L * 60 + 2) * 60 + 3) * 1_000_000L + 450_000, ValueEncoder.Temporal.micros("01:02:03.45", 0));
        assertEquals(-1, ValueEncoder.nul("abc".getBytes()));
        assertEquals(1, ValueEncoder.nul(new byte[] {'a', 0, 'b'}));
    }
}
