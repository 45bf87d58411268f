package io.sluice.app;

public final class SluiceMain {
    public static void main(String[] args) {
    }
}
