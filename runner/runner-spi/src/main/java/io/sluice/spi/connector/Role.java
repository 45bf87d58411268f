package io.sluice.spi.connector;

public enum Role {
    SOURCE,
    TARGET
}
