package io.tutti.systest;

import java.util.LinkedHashMap;
import java.util.Map;

/** Reads the Prometheus text exposition into series (name with its labels, as written) and values. */
final class Prometheus {
    private Prometheus() {
    }

    static Map<String, Double> parse(String text) {
        Map<String, Double> series = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            if (!line.startsWith("#") && !line.isBlank()) {
                int space = line.lastIndexOf(' ');
                series.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
            }
        }
        return series;
    }
}
