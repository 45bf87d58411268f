package io.sluice.bench;

import javax.imageio.ImageIO;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.Stroke;
import java.awt.geom.AffineTransform;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

import static java.util.Objects.requireNonNull;

/**
 * The PNG chart: one panel per section, Sluice's throughput (MB/s) by degree as lines, the ingest limit and the
 * baseline tools as horizontal reference lines. Java2D only, headless.
 */
public final class ThroughputChart {
    private static final int PANEL_WIDTH = 720;
    private static final int PANEL_HEIGHT = 600;
    private static final int HEADER = 50;
    private static final Color[] SERIES = {new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c),
            new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2)};
    private static final Color[] REFERENCES = {new Color(0xff7f0e), new Color(0x17becf), new Color(0x7f7f7f),
            new Color(0xbcbd22), new Color(0x8c6d31)};

    private final ResultComparison comparison;
    private final String title;

    public ThroughputChart(List<ScenarioResult> results, String title) {
        this.comparison = new ResultComparison(requireNonNull(results, "results is null"));
        this.title = requireNonNull(title, "title is null");
    }

    public void write(Path png) throws IOException {
        requireNonNull(png, "png is null");
        List<Section> sections = List.of(Section.values()).stream()
                .filter(s -> comparison.results().stream().anyMatch(r -> r.info().section() == s)).toList();
        int columns = sections.size() > 1 ? 2 : 1;
        int rows = Math.max(1, (sections.size() + 1) / 2);
        BufferedImage image = new BufferedImage(columns * PANEL_WIDTH, HEADER + rows * PANEL_HEIGHT,
                BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, image.getWidth(), image.getHeight());
            g.setColor(Color.BLACK);
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 18));
            g.drawString(title, 20, 32);
            for (int i = 0; i < sections.size(); i++) {
                Graphics2D panel = (Graphics2D) g.create((i % columns) * PANEL_WIDTH,
                        HEADER + (i / columns) * PANEL_HEIGHT, PANEL_WIDTH, PANEL_HEIGHT);
                try {
                    drawPanel(panel, sections.get(i));
                } finally {
                    panel.dispose();
                }
            }
        } finally {
            g.dispose();
        }
        ImageIO.write(image, "png", png.toFile());
    }

    private record Reference(String label, double megabytesPerSecond, Color color, boolean limit) {
        Reference {
            requireNonNull(label, "label is null");
            requireNonNull(color, "color is null");
        }
    }

    private void drawPanel(Graphics2D g, Section section) {
        List<ScenarioResult> inSection = comparison.results().stream()
                .filter(r -> r.info().section() == section && r.ok()).toList();
        Map<String, List<ScenarioResult>> series = new LinkedHashMap<>();
        TreeSet<Integer> degrees = new TreeSet<>();
        for (ScenarioResult r : inSection) {
            if (r.info().role() == ScenarioRole.SLUICE) {
                series.computeIfAbsent(r.info().tool(), k -> new ArrayList<>()).add(r);
                degrees.add(r.info().degree());
            }
        }
        List<Reference> references = new ArrayList<>();
        comparison.results().stream().filter(r -> r.info().section() == section).findFirst()
                .flatMap(r -> comparison.ingestLimit(r.info()))
                .ifPresent(l -> references.add(new Reference("target's ingest limit (server-side COPY FROM file)",
                        l.megabytesPerSecond(), Color.BLACK, true)));
        int colour = 0;
        for (ScenarioResult r : inSection) {
            if (r.info().role() == ScenarioRole.BASELINE) {
                String label = r.info().tool() + (r.info().degree() > 0 ? " (" + r.info().degree() + ")" : "");
                references.add(new Reference(label, r.megabytesPerSecond(),
                        REFERENCES[colour++ % REFERENCES.length], false));
            }
        }
        if (degrees.isEmpty()) {
            degrees.addAll(List.of(1, 2, 4));
        }

        int left = 80;
        int right = PANEL_WIDTH - 30;
        int top = 40;
        int bottom = PANEL_HEIGHT - 210;
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
        g.drawString(section.title(), left, 24);

        double max = 0;
        for (ScenarioResult r : inSection) {
            max = Math.max(max, r.megabytesPerSecond());
        }
        for (Reference ref : references) {
            max = Math.max(max, ref.megabytesPerSecond());
        }
        double step = niceStep(max <= 0 ? 1 : max * 1.1 / 5);
        double yMax = Math.max(step, Math.ceil(max * 1.1 / step) * step);

        // grid and axes
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        FontMetrics fm = g.getFontMetrics();
        for (double v = 0; v <= yMax + step / 2; v += step) {
            int y = y(v, yMax, top, bottom);
            g.setColor(new Color(0xe6e6e6));
            g.drawLine(left, y, right, y);
            g.setColor(Color.DARK_GRAY);
            String label = String.format(Locale.ROOT, step < 1 ? "%.1f" : "%.0f", v);
            g.drawString(label, left - 8 - fm.stringWidth(label), y + fm.getAscent() / 2 - 1);
        }
        List<Integer> xs = new ArrayList<>(degrees);
        for (int d : xs) {
            int x = x(xs.indexOf(d), xs.size(), left, right);
            g.setColor(Color.DARK_GRAY);
            g.drawLine(x, bottom, x, bottom + 5);
            String label = String.valueOf(d);
            g.drawString(label, x - fm.stringWidth(label) / 2, bottom + 20);
        }
        g.setColor(Color.BLACK);
        g.drawLine(left, top, left, bottom);
        g.drawLine(left, bottom, right, bottom);
        String xLabel = "degree (parallel streams)";
        g.drawString(xLabel, (left + right - fm.stringWidth(xLabel)) / 2, bottom + 40);
        String yLabel = "throughput, MB/s of binary COPY stream";
        AffineTransform saved = g.getTransform();
        g.rotate(-Math.PI / 2);
        g.drawString(yLabel, -(top + bottom + fm.stringWidth(yLabel)) / 2, 22);
        g.setTransform(saved);

        // references
        Stroke dashed = new BasicStroke(2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {8f, 6f}, 0f);
        Stroke limitStroke = new BasicStroke(2.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f,
                new float[] {14f, 5f}, 0f);
        for (Reference ref : references) {
            g.setColor(ref.color());
            g.setStroke(ref.limit() ? limitStroke : dashed);
            int y = y(ref.megabytesPerSecond(), yMax, top, bottom);
            g.drawLine(left, y, right, y);
        }

        // Sluice series
        g.setStroke(new BasicStroke(2.5f));
        int s = 0;
        for (Map.Entry<String, List<ScenarioResult>> e : series.entrySet()) {
            g.setColor(SERIES[s++ % SERIES.length]);
            int px = -1;
            int py = -1;
            for (ScenarioResult r : e.getValue().stream()
                    .sorted((a, b) -> Integer.compare(a.info().degree(), b.info().degree())).toList()) {
                int x = x(xs.indexOf(r.info().degree()), xs.size(), left, right);
                int y = y(r.megabytesPerSecond(), yMax, top, bottom);
                g.fillOval(x - 5, y - 5, 10, 10);
                if (px >= 0) {
                    g.drawLine(px, py, x, y);
                }
                px = x;
                py = y;
            }
        }

        // legend below the plot, two columns
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        int legendTop = bottom + 58;
        int entry = 0;
        s = 0;
        for (String name : series.keySet()) {
            legendLine(g, entry++, legendTop, left, SERIES[s++ % SERIES.length], new BasicStroke(2.5f), true,
                    "Sluice " + name.replaceFirst("^Sluice ", ""));
        }
        for (Reference ref : references) {
            legendLine(g, entry++, legendTop, left, ref.color(), ref.limit() ? limitStroke : dashed, false,
                    String.format(Locale.ROOT, "%s: %.0f MB/s", ref.label(), ref.megabytesPerSecond()));
        }
        if (series.isEmpty()) {
            g.setColor(Color.GRAY);
            g.drawString("no Sluice figures: its scenarios were skipped or failed (see results.md)", left + 20,
                    (top + bottom) / 2);
        }
    }

    private static void legendLine(Graphics2D g, int entry, int legendTop, int left, Color color, Stroke stroke,
                                   boolean marker, String text) {
        int x = left;
        int y = legendTop + entry * 18;
        g.setColor(color);
        g.setStroke(stroke);
        g.drawLine(x, y - 4, x + 28, y - 4);
        if (marker) {
            g.fillOval(x + 10, y - 8, 8, 8);
        }
        g.setColor(Color.BLACK);
        g.setStroke(new BasicStroke(1f));
        String shown = text.length() > 80 ? text.substring(0, 79) + "…" : text;
        g.drawString(shown, x + 34, y);
    }

    private static int x(int index, int count, int left, int right) {
        int inset = 40;
        return count == 1 ? (left + right) / 2 : left + inset + index * (right - left - 2 * inset) / (count - 1);
    }

    private static int y(double value, double yMax, int top, int bottom) {
        return bottom - (int) Math.round(value / yMax * (bottom - top));
    }

    /** 1, 2 or 5 times a power of ten, at least {@code raw}. */
    static double niceStep(double raw) {
        double power = Math.pow(10, Math.floor(Math.log10(raw)));
        for (double m : new double[] {1, 2, 5, 10}) {
            if (m * power >= raw) {
                return m * power;
            }
        }
        return 10 * power;
    }
}
