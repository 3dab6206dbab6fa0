package io.tutti.jcstress;

import java.util.ArrayList;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;
import org.openjdk.jcstress.JCStress;
import org.openjdk.jcstress.Options;
import org.openjdk.jcstress.infra.Status;
import org.openjdk.jcstress.infra.collectors.DiskReadCollector;
import org.openjdk.jcstress.infra.collectors.InProcessCollector;
import org.openjdk.jcstress.infra.collectors.TestResult;
import org.openjdk.jcstress.infra.grading.ReportUtils;

/**
 * Runs the jcstress tests of this module, with jcstress's own options, and exits 1 unless every
 * selected test ran and every run passed. jcstress 0.16 fails (an AssertionError out of its main)
 * on a FORBIDDEN or unknown outcome and on a test that erred or timed out, but exits 0 when a test
 * did not run at all: more actors than CPUs ("no scheduling is possible"), an API this JVM lacks,
 * or no test matching. So this reads jcstress's result file back, grades every run with
 * {@link ReportUtils#statusToPassed} (the verdict its reports print), checks that each selected
 * test has samples, and prints the samples of each outcome.
 */
public final class RunAll {
    private RunAll() {
    }

    public static void main(String[] args) throws Exception {
        Options options = new Options(args);
        if (!options.parse()) {
            System.exit(2);
        }
        JCStress jcstress = new JCStress(options);
        SortedSet<String> selected = jcstress.getTests();
        if (selected.isEmpty()) {
            System.out.println("jcstress: no test matches \"" + options.getTestFilter() + "\" (the list is"
                    + " META-INF/TestList in target/classes, written by jcstress's annotation processor)");
            System.exit(1);
        }
        try {
            jcstress.run();
        } catch (AssertionError e) {
            // its verdict on the failed runs, printed in its report above; they are graded again below
        }

        InProcessCollector collector = new InProcessCollector();
        DiskReadCollector reader = new DiskReadCollector(options.getResultFile(), collector);
        reader.dump();
        reader.close();

        SortedSet<String> sampled = new TreeSet<>();
        SortedSet<String> failed = new TreeSet<>();
        List<String> failures = new ArrayList<>();
        for (TestResult r : collector.getTestResults()) {
            if (r.getTotalCount() > 0) {
                sampled.add(r.getName());
            }
            if (!ReportUtils.statusToPassed(r)) {
                failed.add(r.getName());
                StringBuilder b = new StringBuilder(ReportUtils.statusToLabel(r) + ": " + r.getName() + " "
                        + r.getConfig().jvmArgs);
                List<String> why = r.status() == Status.NORMAL ? r.grading().failureMessages : r.getMessages();
                why.stream().limit(5).forEach(m -> b.append(System.lineSeparator()).append("      ").append(m));
                failures.add(b.toString());
            }
        }
        for (String test : selected) {
            if (!sampled.contains(test)) {
                failed.add(test);
                failures.add("NOT RUN: " + test + " has no sample (more actors than CPUs? see the scheduling"
                        + " classes above)");
            }
        }

        System.out.println();
        System.out.println("jcstress: samples of each outcome, over all runs of a test");
        for (TestResult r : ReportUtils.mergedByName(collector.getTestResults())) {
            StringBuilder b = new StringBuilder();
            for (String outcome : new TreeSet<>(r.getStateKeys())) {
                b.append(b.isEmpty() ? "" : "; ").append('[').append(outcome).append("] ").append(r.getCount(outcome));
            }
            System.out.printf("  %-8s %-42s %s%n", ReportUtils.statusToLabel(r), r.getName(), b);
        }
        if (!failures.isEmpty()) {
            System.out.println();
            System.out.println("jcstress: failures (the reports are in " + options.getResultDest() + "):");
            failures.forEach(f -> System.out.println("  " + f));
        }
        System.out.println();
        System.out.println("jcstress: " + (selected.size() - failed.size()) + " passed, " + failed.size() + " failed");
        System.exit(failed.isEmpty() ? 0 : 1);
    }
}
