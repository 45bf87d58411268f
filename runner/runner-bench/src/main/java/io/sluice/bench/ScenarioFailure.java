package io.sluice.bench;

/** A tool failed (non-zero exit, SQL error): the scenario is reported as failed with this message. */
public final class ScenarioFailure extends Exception {
    public ScenarioFailure(String message) {
        super(message);
    }

    public ScenarioFailure(String message, Throwable cause) {
        super(message, cause);
    }
}
