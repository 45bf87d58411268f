package io.sluice.app.serve;

import static java.util.Objects.requireNonNull;

/** A request the API refuses, with the HTTP status to answer and a message safe to show the caller. */
final class ApiException extends RuntimeException {
    private final int status;

    ApiException(int status, String message) {
        super(requireNonNull(message, "message is null"));
        this.status = status;
    }

    int status() {
        return status;
    }

    static ApiException badRequest(String message) {
        return new ApiException(400, message);
    }

    static ApiException notFound(String message) {
        return new ApiException(404, message);
    }
}
