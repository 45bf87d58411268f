package io.sluice.app.report;

import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import org.xml.sax.SAXException;

import javax.xml.XMLConstants;
import javax.xml.transform.stream.StreamSource;
import javax.xml.validation.SchemaFactory;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The published summary schema and the JUnit XSD, applied to what a real run wrote. */
public final class Validators {
    /** specs/ from the module's folder, where Surefire runs. */
    public static final Path SUMMARY_SCHEMA = Path.of("../../specs/sluice-summary-v1.schema.json");

    private Validators() {
    }

    /** The schema validator's messages for this summary; empty when it is valid. */
    public static List<String> summaryErrors(String summaryJson) throws IOException {
        Schema schema = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12)
                .getSchema(Files.readString(SUMMARY_SCHEMA), InputFormat.JSON);
        return schema.validate(summaryJson, InputFormat.JSON).stream()
                .map(e -> e.getInstanceLocation() + " [" + e.getKeyword() + "] " + e.getMessage())
                .toList();
    }

    /** Throws with the parser's line and message when the report does not match the Jenkins/Surefire XSD. */
    public static void validateJunit(String xml) throws IOException, SAXException {
        SchemaFactory factory = SchemaFactory.newInstance(XMLConstants.W3C_XML_SCHEMA_NS_URI);
        javax.xml.validation.Schema schema = factory.newSchema(Validators.class.getResource("jenkins-junit.xsd"));
        schema.newValidator().validate(new StreamSource(new StringReader(xml)));
    }
}
