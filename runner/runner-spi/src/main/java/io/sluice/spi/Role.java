package io.sluice.spi;

public enum Role {
    SOURCE,
    TARGET
}
