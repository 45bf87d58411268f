package io.sluice.app.report;

import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import java.util.function.UnaryOperator;

import static java.util.Objects.requireNonNull;

/**
 * {@code --report FILE.html}: one self-contained HTML page per run. The page's template, Apache ECharts (from its
 * WebJar on the classpath) and the run's data ({@link TimelineChartData}, every string redacted) are inlined, and a
 * Content-Security-Policy forbids fetching anything, so the file opens offline and reveals nothing to a network.
 */
public final class HtmlRunReport {
    private static final JsonMapper MAPPER = JsonMapper.builder().build();
    private static final String TEMPLATE = "/io/sluice/app/report/run-report.html";
    private static final String ECHARTS_POM = "/META-INF/maven/org.webjars.npm/echarts/pom.properties";

    private final UnaryOperator<String> redact;

    public HtmlRunReport(UnaryOperator<String> redact) {
        this.redact = requireNonNull(redact, "redact is null");
    }

    /** The report as a file: it fetches nothing. */
    public String render(RunTimeline run) {
        return page(run, "", "");
    }

    /**
     * The same page served by {@code sluice serve}: while the run runs it polls {@code liveUrl} (same origin, the
     * only place its Content-Security-Policy lets it connect to) for {@link TimelineChartData} and redraws.
     */
    public String renderLive(RunTimeline run, String liveUrl) {
        requireNonNull(liveUrl, "liveUrl is null");
        if (!liveUrl.startsWith("/")) {
            throw new IllegalArgumentException("liveUrl must be a path on this server: " + liveUrl);
        }
        return page(run, "; connect-src 'self'", attribute(liveUrl));
    }

    private String page(RunTimeline run, String connect, String live) {
        requireNonNull(run, "run is null");
        // Inside <script>: "<" escaped, so no value (a predicate, an error message) can close the element.
        String data = MAPPER.writeValueAsString(new TimelineChartData(redact).tree(run)).replace("<", "\\u003c");
        return Assets.TEMPLATE.replace("/*CONNECT*/", connect).replace("/*LIVE*/", live)
                .replace("/*ECHARTS*/", Assets.ECHARTS).replace("/*DATA*/", data);
    }

    private static String attribute(String text) {
        return text.replace("&", "&amp;").replace("\"", "&quot;").replace("<", "&lt;").replace(">", "&gt;");
    }

    /** Read once: the template and the charting library (about 1 MB). */
    private static final class Assets {
        static final String TEMPLATE = ClasspathText.read(HtmlRunReport.TEMPLATE);
        static final String ECHARTS = ClasspathText.read("/META-INF/resources/webjars/echarts/" + echartsVersion()
                + "/dist/echarts.min.js");

        private static String echartsVersion() {
            Properties pom = new Properties();
            try (InputStream in = HtmlRunReport.class.getResourceAsStream(ECHARTS_POM)) {
                if (in == null) {
                    throw new IllegalStateException("the ECharts WebJar is not on the classpath (" + ECHARTS_POM
                            + ")");
                }
                pom.load(in);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return requireNonNull(pom.getProperty("version"), "no version in " + ECHARTS_POM);
        }
    }
}
