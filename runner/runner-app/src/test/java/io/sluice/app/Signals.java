package io.sluice.app;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;

/**
 * Signals to a child process ({@code STOP}, {@code CONT}), sent by the {@code kill} of one shell the test JVM keeps
 * open: a {@code kill} process started for each stop and each resume took longer than a polled run was let go between
 * two looks, and reaching a moment took seconds. The shell ends with the JVM (its input closes).
 */
public final class Signals {
    private static Process shell;
    private static Writer commands;
    private static BufferedReader answers;

    private Signals() {
    }

    /** Sends {@code signal} to {@code process} if it still runs. */
    public static synchronized void send(Process process, String signal) throws IOException {
        if (!process.isAlive()) {
            return;
        }
        if (shell == null || !shell.isAlive()) {
            shell = new ProcessBuilder("bash").redirectErrorStream(true).start();
            commands = new OutputStreamWriter(shell.getOutputStream(), StandardCharsets.UTF_8);
            answers = new BufferedReader(new InputStreamReader(shell.getInputStream(), StandardCharsets.UTF_8));
        }
        commands.write("kill -" + signal + " " + process.pid() + " 2>/dev/null; echo sent\n");
        commands.flush();
        String answer = answers.readLine();
        if (!"sent".equals(answer)) {
            throw new IOException("the signalling shell answered " + answer);
        }
    }
}
