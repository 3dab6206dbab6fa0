package io.tutti.report;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.Locale;

/**
 * One JSON object on one line, the {@code --json} rows of {@code tutti bench} and {@code tutti sim}: written by jackson-core's
 * streaming generator, so that every string is escaped, with decimals printed to a fixed number of
 * places as the tables print them (and {@code null} where a figure is not a finite number).
 */
public final class JsonLine {
    private static final JsonFactory FACTORY = new JsonFactory();

    private final StringWriter text = new StringWriter(256);
    private final JsonGenerator g;

    private JsonLine() {
        try {
            g = FACTORY.createGenerator(text);
            g.writeStartObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A new object; add its fields in order, then {@link #end()}. */
    public static JsonLine object() {
        return new JsonLine();
    }

    public JsonLine text(String name, String value) {
        try {
            g.writeStringField(name, value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    public JsonLine integer(String name, long value) {
        try {
            g.writeNumberField(name, value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    public JsonLine bool(String name, boolean value) {
        try {
            g.writeBooleanField(name, value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /** {@code value} with {@code places} decimals ({@code %.Nf}), or {@code null} when it is NaN or infinite. */
    public JsonLine fixed(String name, double value, int places) {
        try {
            g.writeFieldName(name);
            if (Double.isFinite(value)) {
                g.writeNumber(String.format(Locale.ROOT, "%." + places + "f", value));
            } else {
                g.writeNull();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /** The object's text, without a line end. */
    public String end() {
        try {
            g.writeEndObject();
            g.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return text.toString();
    }
}
