package io.sluice.app;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class SocketPollersTest {
    @Test
    void platformPollerThreadsUnlessTheUserChoseAMode() {
        String before = System.getProperty(SocketPollers.PROPERTY);
        try {
            System.clearProperty(SocketPollers.PROPERTY);
            SocketPollers.preferPlatformThreads();
            assertEquals("1", System.getProperty(SocketPollers.PROPERTY));

            System.setProperty(SocketPollers.PROPERTY, "2");
            SocketPollers.preferPlatformThreads();
            assertEquals("2", System.getProperty(SocketPollers.PROPERTY));
        } finally {
            if (before == null) {
                System.clearProperty(SocketPollers.PROPERTY);
            } else {
                System.setProperty(SocketPollers.PROPERTY, before);
            }
        }
    }
}
