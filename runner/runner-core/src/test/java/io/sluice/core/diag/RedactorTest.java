package io.sluice.core.diag;

import io.sluice.toolkit.Redactor;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class RedactorTest {
    @Test
    void masksKnownSecretsLongestFirst() {
        Redactor redactor = new Redactor(List.of("hunter2", "hunter2-extended", "ab"));
        assertEquals("login *** then *** failed, ab stays",
                redactor.redact("login hunter2-extended then hunter2 failed, ab stays"));
    }

    @Test
    void aShortSecretIsMaskedAsAWordNotInsideOthers() {
        Redactor redactor = new Redactor(List.of("long", "a-very-long-key-1234"));
        assertEquals("mask-key must be longer than 16 characters; got ***, key ***",
                redactor.redact("mask-key must be longer than 16 characters; got long, key a-very-long-key-1234"));
        assertEquals("url=x:***@db and 'x***y' is ***", new Redactor(List.of("pw1", "a-very-long-key-1234"))
                .redact("url=x:pw1@db and 'xa-very-long-key-1234y' is pw1"), "a long secret anywhere");
    }

    @Test
    void masksEveryFormASecretTakesInSqlAndJson() {
        Redactor redactor = new Redactor(List.of("it's \"a\" s3cret\\x"));
        assertEquals("WHERE k = '***' AND j = \"***\"", redactor.redact("WHERE k = 'it''s \"a\" s3cret\\x' AND j = "
                + "\"it's \\\"a\\\" s3cret\\\\x\""));
    }

    @Test
    void masksPasswordsInsideUrls() {
        Redactor redactor = Redactor.none();
        assertEquals("jdbc:postgresql://db/x?user=u&password=***&ssl=true",
                redactor.redact("jdbc:postgresql://db/x?user=u&password=pw1&ssl=true"));
        assertEquals("postgresql://alice:***@db:5432/x", redactor.redact("postgresql://alice:pw1@db:5432/x"));
    }
}
