package io.tutti.report;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.XYChart;

/**
 * What makes the plots of {@code tutti bench} and {@code tutti sim} readable: a size axis labelled
 * in binary units (8 B, 1 KiB, 64 KiB, 1 MiB) and plain numbers on logarithmic axes (10,000 rather
 * than 1E4), written as PNG or SVG by the file's extension. XChart's log axes ignore a label
 * function, so sizes are plotted as log2(size) on a linear axis whose ticks are labelled 2^x.
 */
public final class Charts {
    private static final String[] UNITS = {"B", "KiB", "MiB", "GiB", "TiB"};

    private Charts() {
    }

    /** The x value of {@code bytes} on a size axis ({@link #sizeAxis}). */
    public static double sizeX(double bytes) {
        return Math.log(bytes) / Math.log(2);
    }

    /** Labels the x axis of {@code chart}, whose values are {@link #sizeX}, as sizes; log y axis in plain numbers. */
    public static void sizeAxis(XYChart chart) {
        chart.getStyler().setxAxisTickLabelsFormattingFunction(x -> {
            double e = Math.abs(x - Math.rint(x)) < 1e-6 ? Math.rint(x) : x;
            return size(Math.pow(2, e));
        });
        plainNumbers(chart);
    }

    /** Plain numbers on the logarithmic axes of {@code chart} (10,000 and 0.5, not 1E4 and 5E-1). */
    public static void plainNumbers(XYChart chart) {
        chart.getStyler().setLocale(Locale.ROOT);
        chart.getStyler().setXAxisDecimalPattern("#,##0.###");
        chart.getStyler().setYAxisDecimalPattern("#,##0.###");
    }

    /** {@code bytes} in the largest binary unit it fills, with at most two decimals: 8 B, 1.5 KiB, 64 KiB. */
    public static String size(double bytes) {
        int unit = 0;
        double v = bytes;
        while (v >= 1024 && unit < UNITS.length - 1) {
            v /= 1024;
            unit++;
        }
        String digits = v >= 100 ? String.format(Locale.ROOT, "%.0f", v)
                : String.format(Locale.ROOT, v >= 10 ? "%.1f" : "%.2f", v).replaceAll("\\.?0+$", "");
        return digits + " " + UNITS[unit];
    }

    /** The format a plot file asks for by its extension; anything but .png or .svg is a mistake. */
    public static String format(String file) {
        String name = file.toLowerCase(Locale.ROOT);
        if (name.endsWith(".png") || name.endsWith(".svg")) {
            return name.substring(name.length() - 3);
        }
        throw new IllegalArgumentException("--plot writes PNG or SVG: name the file x.png or x.svg, not '" + file
                + "'");
    }

    /** Writes {@code chart} to {@code file} as PNG or SVG ({@link #format}), creating its directory. */
    public static void save(XYChart chart, Path file) {
        String format = format(file.getFileName().toString());
        try {
            Path dir = file.toAbsolutePath().getParent();
            if (dir != null) {
                Files.createDirectories(dir);
            }
            if (format.equals("svg")) {
                try (OutputStream out = Files.newOutputStream(file)) {
                    VectorGraphicsEncoder.saveVectorGraphic(chart, out, VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
                }
            } else {
                try (OutputStream out = Files.newOutputStream(file)) {
                    BitmapEncoder.saveBitmap(chart, out, BitmapEncoder.BitmapFormat.PNG);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the plot " + file + ": " + e.getMessage(), e);
        }
    }
}
