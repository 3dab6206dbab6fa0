package io.tutti.systest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * The monitor's page in a real browser (headless Chromium through Selenium) while a 4-rank job of
 * {@link Steady} runs over a lossy rail: the heat map, the rail and collective charts show live
 * non-zero values, and a rank killed with SIGKILL shows as failed, in red. Screenshots of both go to
 * {@code target/} (the docs show copies). Skipped where Chromium or its driver is missing, except under
 * CI ({@code CI=true}), which installs them.
 */
@Timeout(150)
class MonitorPageIT {
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path DRIVER = Path.of("/usr/bin/chromedriver");
    private static final int RANKS = 4;
    /** What the page shows, read in the browser in one go. */
    private static final String READ_PAGE = """
            const cells = [...document.querySelectorAll('#heatmap rect.cell')];
            const num = s => Number(document.querySelector(s)?.getAttribute('data-last') || 0);
            return {
              cells: cells.length,
              nonZeroCells: cells.filter(c => c.getAttribute('data-from') !== c.getAttribute('data-to')
                  && Number(c.getAttribute('data-value')) > 0).length,
              railBytesPerSecond: num('#rail-throughput'),
              collectivesPerSecond: num('#collective-rate'),
              retransmitSeries: document.querySelectorAll('#rail-retransmits path.series').length,
              latencyRows: document.querySelectorAll('#latency tbody tr[data-operation]').length,
              live: document.getElementById('live').textContent,
              states: [...document.querySelectorAll('#ranks tbody tr')].map(r => r.getAttribute('data-state')),
              alerts: document.getElementById('alerts').textContent,
              alertsShown: !document.getElementById('alerts').classList.contains('hidden'),
              failedLines: document.querySelectorAll('#heatmap .failed-line').length,
              failedCard: document.getElementById('card-ranks').parentElement.classList.contains('bad')
            };""";

    @TempDir
    Path work;

    @Test
    void thePageShowsLiveTrafficAndAKilledRankInRed() throws Exception {
        if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(DRIVER)) {
            String why = "Chromium and its driver are needed to test the monitor's page (apt-get install chromium"
                    + " chromium-driver)";
            if ("true".equals(System.getenv("CI"))) {
                fail(why + "; under CI they are installed by .ci/run");
            }
            Assumptions.abort(why);
        }
        Launch.Running job = Launch.start(work, Map.of("TUTTI_TRANSPORT", "net", "TUTTI_NET_DROP", "0.02"), "run",
                "--verbose", "-n", Integer.toString(RANKS), "--timeout", "130s", "--cp", Launch.testClasses(),
                "io.tutti.systest.Steady", work.toString(), "120");
        Launch.Running monitor = null;
        ChromeDriverService service = null;
        ChromeDriver browser = null;
        try {
            for (int r = 0; r < RANKS; r++) {
                Launch.awaitFile(job, work.resolve("rank-" + r + ".ready"), Duration.ofSeconds(60));
            }
            String id = new Launch.Result(0, "", Files.readString(job.stderr()), Duration.ZERO).jobId();
            monitor = Launch.start(work, "monitor", id, "--port", "0");
            String url = awaitUrl(monitor);

            service = new ChromeDriverService.Builder().usingDriverExecutable(DRIVER.toFile()).usingAnyFreePort()
                    .withLogFile(work.resolve("chromedriver.log").toFile()).build();
            ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM.toFile());
            options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1500,1250",
                    "--user-data-dir=" + work.resolve("chromium"));
            browser = new ChromeDriver(service, options);
            browser.get(url + "#job=" + id);

            Map<String, Object> live = awaitPage(browser, p -> num(p, "cells") == RANKS * RANKS
                    && num(p, "nonZeroCells") == RANKS * (RANKS - 1) && num(p, "railBytesPerSecond") > 0
                    && num(p, "collectivesPerSecond") > 0 && num(p, "retransmitSeries") == 1
                    && num(p, "latencyRows") >= 1 && "live".equals(p.get("live"))
                    && List.of("running", "running", "running", "running").equals(p.get("states")));
            assertEquals(Boolean.FALSE, live.get("alertsShown"), live::toString);
            screenshot(browser, "monitor-page.png");

            long victim = Long.parseLong(Files.readString(work.resolve("rank-2.ready")).strip());
            ProcessHandle.of(victim).ifPresent(ProcessHandle::destroyForcibly);
            Map<String, Object> failed = awaitPage(browser, p -> p.get("states") instanceof List<?> s && s.size() == RANKS
                    && "failed".equals(s.get(2)) && Boolean.TRUE.equals(p.get("alertsShown"))
                    && String.valueOf(p.get("alerts")).contains("rank 2 (pid " + victim + ")")
                    && num(p, "failedLines") == 2 && Boolean.TRUE.equals(p.get("failedCard")));
            assertTrue(((List<?>) failed.get("states")).stream().filter("failed"::equals).count() == 1, failed::toString);
            screenshot(browser, "monitor-page-failed.png");
        } finally {
            Files.writeString(work.resolve("stop"), "");
            if (browser != null) {
                browser.quit();
            }
            if (service != null) {
                service.stop();
            }
            if (monitor != null) {
                monitor.process().destroy();
                if (!monitor.process().waitFor(20, TimeUnit.SECONDS)) {
                    monitor.process().destroyForcibly();
                }
            }
            // the launcher ends once it has stopped the killed rank's peers; a test failed earlier stops the job
            if (!job.process().waitFor(60, TimeUnit.SECONDS)) {
                job.process().descendants().forEach(ProcessHandle::destroyForcibly);
                job.process().destroyForcibly();
            }
        }
    }

    private static double num(Map<String, Object> page, String key) {
        return page.get(key) instanceof Number n ? n.doubleValue() : -1;
    }

    /** The page as read in the browser, once {@code done} holds; fails with the last reading after 60 s. */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> awaitPage(ChromeDriver browser, Predicate<Map<String, Object>> done)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        Map<String, Object> page = Map.of();
        while (System.nanoTime() < deadline) {
            page = (Map<String, Object>) ((JavascriptExecutor) browser).executeScript(READ_PAGE);
            if (done.test(page)) {
                return page;
            }
            Thread.sleep(250);
        }
        return fail("the page did not show what was expected within 60 s; it showed " + page);
    }

    /** Where {@code tutti monitor} says it serves, once it has said so. */
    private static String awaitUrl(Launch.Running monitor) throws Exception {
        Pattern serving = Pattern.compile("serving .* at (http://127\\.0\\.0\\.1:\\d+/)");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            Matcher m = serving.matcher(Files.readString(monitor.stdout()));
            if (m.find()) {
                return m.group(1);
            }
            if (!monitor.process().isAlive()) {
                break;
            }
            Thread.sleep(100);
        }
        return fail("tutti monitor did not start serving:\n" + Files.readString(monitor.stdout())
                + Files.readString(monitor.stderr()));
    }

    private static void screenshot(ChromeDriver browser, String name) throws Exception {
        Path target = Path.of(System.getProperty("basedir", "."), "target");
        Files.createDirectories(target);
        Files.write(target.resolve(name), browser.getScreenshotAs(OutputType.BYTES));
    }
}
