package io.sluice.app.report;

import io.sluice.core.run.report.StreamReport;

import javax.xml.stream.XMLOutputFactory;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamWriter;
import java.io.StringWriter;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.Optional;
import java.util.function.UnaryOperator;

import static java.util.Objects.requireNonNull;

/**
 * {@code --junit-xml}: the run as a JUnit report in the form Jenkins' JUnit plugin (and Surefire) write: one
 * {@code testsuite} per run, one {@code testcase} per stream. A failed stream is a {@code failure} whose type is the
 * error code and whose text is the message and the fix; an interrupted stream is an {@code error}; a stream that
 * never ran is {@code skipped}. A run that failed before its streams (invalid spec, preflight) is one failed case.
 */
public final class JunitXml {
    // Jenkins' schema wants a timestamp without a zone; it is UTC.
    private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss")
            .withZone(ZoneOffset.UTC);

    private final UnaryOperator<String> redact;
    private final Optional<String> htmlReport;

    public JunitXml(UnaryOperator<String> redact) {
        this(redact, Optional.empty());
    }

    /** With {@code htmlReport}, the run's HTML report written beside it, named in the suite's properties. */
    public JunitXml(UnaryOperator<String> redact, Optional<String> htmlReport) {
        this.redact = requireNonNull(redact, "redact is null");
        this.htmlReport = requireNonNull(htmlReport, "htmlReport is null");
    }

    public String render(RunOutcome outcome) {
        requireNonNull(outcome, "outcome is null");
        String suite = "sluice." + outcome.spec().name().orElse(fileName(outcome.spec().file()));
        boolean streamFailed = outcome.streams().stream().anyMatch(s -> s.state() == StreamReport.State.FAILED
                || s.state() == StreamReport.State.INTERRUPTED);
        // A run-level error no stream carries (e.g. before the first stream) gets a case of its own.
        Optional<RunError> runError = streamFailed ? Optional.empty() : outcome.error();
        long failures = outcome.streams().stream().filter(s -> s.state() == StreamReport.State.FAILED).count()
                + (runError.isPresent() ? 1 : 0);
        long errors = outcome.streams().stream().filter(s -> s.state() == StreamReport.State.INTERRUPTED).count();
        long skipped = outcome.streams().stream().filter(s -> s.state() == StreamReport.State.SKIPPED).count();
        StringWriter buffer = new StringWriter();
        try {
            XMLStreamWriter xml = XMLOutputFactory.newFactory().createXMLStreamWriter(buffer);
            xml.writeStartDocument("UTF-8", "1.0");
            xml.writeCharacters("\n");
            xml.writeStartElement("testsuite");
            attribute(xml, "name", suite);
            xml.writeAttribute("tests", Long.toString(outcome.streams().size() + (runError.isPresent() ? 1 : 0)));
            xml.writeAttribute("failures", Long.toString(failures));
            xml.writeAttribute("errors", Long.toString(errors));
            xml.writeAttribute("skipped", Long.toString(skipped));
            xml.writeAttribute("time", seconds(outcome.seconds()));
            xml.writeAttribute("timestamp", TIMESTAMP.format(outcome.started().truncatedTo(ChronoUnit.SECONDS)));
            xml.writeCharacters("\n  ");
            xml.writeStartElement("properties");
            property(xml, "run-id", outcome.runId().orElse(""));
            property(xml, "spec-file", outcome.spec().file());
            property(xml, "spec-checksum", outcome.spec().checksum().orElse(""));
            property(xml, "exit-code", Integer.toString(outcome.exitCode()));
            if (htmlReport.isPresent()) {
                property(xml, "report", htmlReport.get());
            }
            xml.writeCharacters("\n  ");
            xml.writeEndElement();
            for (StreamReport stream : outcome.streams()) {
                testcase(xml, suite, stream);
            }
            if (runError.isPresent()) {
                String name = switch (outcome.exitCode()) {
                    case 3 -> "spec";
                    case 4 -> "preflight";
                    default -> "run";
                };
                xml.writeCharacters("\n  ");
                xml.writeStartElement("testcase");
                attribute(xml, "name", name);
                attribute(xml, "classname", suite);
                xml.writeAttribute("time", seconds(outcome.seconds()));
                problem(xml, "failure", runError.get());
                xml.writeCharacters("\n  ");
                xml.writeEndElement();
            }
            xml.writeCharacters("\n");
            xml.writeEndElement();
            xml.writeCharacters("\n");
            xml.writeEndDocument();
            xml.close();
        } catch (XMLStreamException e) {
            throw new IllegalStateException("writing XML to memory cannot fail", e);
        }
        return buffer.toString();
    }

    private void testcase(XMLStreamWriter xml, String suite, StreamReport stream) throws XMLStreamException {
        xml.writeCharacters("\n  ");
        xml.writeStartElement("testcase");
        attribute(xml, "name", stream.name());
        attribute(xml, "classname", suite);
        xml.writeAttribute("time", seconds(stream.duration().toNanos() / 1e9));
        switch (stream.state()) {
            case DONE -> {
                xml.writeCharacters("\n    ");
                xml.writeStartElement("system-out");
                xml.writeCharacters(clean(redact.apply(String.format(Locale.ROOT,
                        "%d rows, %d bytes, %d rows deleted, %d/%d partitions, %.1f rows/s, %.3f MB/s, "
                                + "rows read = rows written: %s",
                        stream.rows(), stream.bytes(), stream.deletedRows(), stream.partitionsDone(), stream.partitionsPlanned(),
                        stream.rowsPerSecond(), stream.megabytesPerSecond(), stream.rowCountsMatch())
                        + (stream.rowsRejected() > 0 ? ", " + stream.rowsRejected() + " rows set aside (first: "
                        + String.join("; ", stream.rejectReasons()) + ")" : ""))));
                xml.writeEndElement();
            }
            case FAILED -> problem(xml, "failure", stream.error().map(RunError::of).orElse(
                    new RunError("FAILED", "failed", "stream '" + stream.name() + "' failed", Optional.empty())));
            case INTERRUPTED -> problem(xml, "error", new RunError("INTERRUPTED", "interrupted",
                    "interrupted; in-flight partitions were rolled back", Optional.empty()));
            case SKIPPED -> {
                xml.writeCharacters("\n    ");
                xml.writeEmptyElement("skipped");
                xml.writeAttribute("message", "not run: an earlier stream failed or the run was interrupted");
            }
        }
        xml.writeCharacters("\n  ");
        xml.writeEndElement();
    }

    private void problem(XMLStreamWriter xml, String element, RunError error) throws XMLStreamException {
        xml.writeCharacters("\n    ");
        xml.writeStartElement(element);
        attribute(xml, "message", "error[" + error.code() + "] " + error.message());
        attribute(xml, "type", error.code());
        xml.writeCharacters(clean(redact.apply("error[" + error.code() + "] (" + error.kind() + ") " + error.message()
                + error.fix().map(f -> "\nfix: " + f).orElse(""))));
        xml.writeEndElement();
    }

    private void property(XMLStreamWriter xml, String name, String value) throws XMLStreamException {
        xml.writeCharacters("\n    ");
        xml.writeEmptyElement("property");
        xml.writeAttribute("name", name);
        attribute(xml, "value", value);
    }

    private void attribute(XMLStreamWriter xml, String name, String value) throws XMLStreamException {
        xml.writeAttribute(name, clean(redact.apply(value)));
    }

    /** XML 1.0 cannot carry most control characters, not even escaped; a message with one would break the file. */
    private static String clean(String text) {
        StringBuilder out = new StringBuilder(text.length());
        text.codePoints().forEach(c -> out.appendCodePoint(c < 0x20 && c != '\t' && c != '\n' && c != '\r'
                || c == 0xFFFE || c == 0xFFFF ? '?' : c));
        return out.toString();
    }

    private static String seconds(double seconds) {
        return String.format(Locale.ROOT, "%.3f", seconds);
    }

    private static String fileName(String file) {
        int slash = Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\'));
        return file.substring(slash + 1);
    }
}
