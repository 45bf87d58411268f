package io.sluice.bench.jmh;

import io.sluice.core.connector.ConnectorRegistry;
import io.sluice.core.lint.LintFormat;
import io.sluice.core.lint.Linter;
import io.sluice.core.spec.Environment;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code sluice lint examples/} once the JVM is up: {@code cold} is the first lint in a fresh JVM (class loading
 * included: what a pull-request check pays), {@code warm} the steady state. Run from the repository root:
 * {@code bash runner/runner-bench/bench.sh --jmh Lint}.
 */
@State(Scope.Benchmark)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class LintBenchmark {
    private static final Path EXAMPLES = Path.of(System.getProperty("sluice.examples", "examples"));

    @Benchmark
    @BenchmarkMode(Mode.SingleShotTime)
    @Fork(5)
    @Warmup(iterations = 0)
    @Measurement(iterations = 1)
    public String cold() {
        return lint();
    }

    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @Fork(1)
    @Warmup(iterations = 3, time = 2)
    @Measurement(iterations = 5, time = 2)
    public String warm() {
        return lint();
    }

    private static String lint() {
        return LintFormat.TEXT.render(new Linter(ConnectorRegistry.fromClassPath(), Environment.system())
                .lint(List.of(EXAMPLES)));
    }
}
