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
              algorithmRows: document.querySelectorAll('#latency tbody tr[data-algorithm]').length,
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
        assumeBrowser();
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

            service = driverService();
            browser = browser(service);
            browser.get(url + "#job=" + id);

            Map<String, Object> live = awaitPage(browser, p -> num(p, "cells") == RANKS * RANKS
                    && num(p, "nonZeroCells") == RANKS * (RANKS - 1) && num(p, "railBytesPerSecond") > 0
                    && num(p, "collectivesPerSecond") > 0 && num(p, "retransmitSeries") == 1
                    && num(p, "latencyRows") >= 1 && num(p, "algorithmRows") >= 1 && "live".equals(p.get("live"))
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
            stop(browser, service, monitor);
            // the launcher ends once it has stopped the killed rank's peers; a test failed earlier stops the job
            if (!job.process().waitFor(60, TimeUnit.SECONDS)) {
                job.process().descendants().forEach(ProcessHandle::destroyForcibly);
                job.process().destroyForcibly();
            }
        }
    }

    /** Ends the job's rounds (its stop file), then the browser, its driver and the monitor, each if started. */
    private void stop(ChromeDriver browser, ChromeDriverService service, Launch.Running monitor) throws Exception {
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
    }

    private static void assumeBrowser() {
        if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(DRIVER)) {
            String why = "Chromium and its driver are needed to test the monitor's page (apt-get install chromium"
                    + " chromium-driver)";
            if ("true".equals(System.getenv("CI"))) {
                fail(why + "; under CI they are installed by .ci/run");
            }
            Assumptions.abort(why);
        }
    }

    private ChromeDriverService driverService() {
        return new ChromeDriverService.Builder().usingDriverExecutable(DRIVER.toFile()).usingAnyFreePort()
                .withLogFile(work.resolve("chromedriver.log").toFile()).build();
    }

    private ChromeDriver browser(ChromeDriverService service) {
        ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1500,1250",
                "--user-data-dir=" + work.resolve("chromium"));
        return new ChromeDriver(service, options);
    }

    /** What the rail panel shows: each rail's state and the result line of the last action. */
    private static final String READ_RAILS = """
            return {
              states: [...document.querySelectorAll('#rail-states .chip')].map(c => c.getAttribute('data-state')),
              buttons: [...document.querySelectorAll('#rail-states button.rail-action')]
                  .map(b => b.getAttribute('data-rail') + ' ' + b.getAttribute('data-action')),
              controlShown: !document.getElementById('rail-control').classList.contains('hidden'),
              result: document.getElementById('rail-action-result').textContent,
              status: document.getElementById('rail-action-result').getAttribute('data-status') || ''
            };""";

    /**
     * A monitor started with a token shows a button per rail: with the token typed in, "take down"
     * takes rail 1 out of service at every rank, the page shows it down (admin) with each rank's
     * answer, and "bring up" brings it back; a wrong token is refused on the page. The job, two ranks
     * on two loopback rails, goes on and ends well (nothing lost).
     */
    @Test
    void theRailButtonsTakeARailDownAndBringItBackWithTheToken() throws Exception {
        assumeBrowser();
        Path tokenFile = work.resolve("token");
        Files.writeString(tokenFile, "t0ken-" + System.nanoTime() + "\n");
        Files.setPosixFilePermissions(tokenFile, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        String token = Files.readString(tokenFile).strip();
        Launch.Running job = Launch.start(work, Map.of("TUTTI_TRANSPORT", "net", "TUTTI_RAILS", "lo,lo"), "run",
                "--verbose", "-n", "2", "--timeout", "130s", "--cp", Launch.testClasses(),
                "io.tutti.systest.Steady", work.toString(), "120");
        Launch.Running monitor = null;
        ChromeDriverService service = null;
        ChromeDriver browser = null;
        try {
            for (int r = 0; r < 2; r++) {
                Launch.awaitFile(job, work.resolve("rank-" + r + ".ready"), Duration.ofSeconds(60));
            }
            String id = new Launch.Result(0, "", Files.readString(job.stderr()), Duration.ZERO).jobId();
            monitor = Launch.start(work, "monitor", id, "--port", "0", "--token-file", tokenFile.toString());
            String url = awaitUrl(monitor);
            service = driverService();
            browser = browser(service);
            browser.get(url + "#job=" + id);
            ChromeDriver b = browser;
            awaitRails(b, p -> Boolean.TRUE.equals(p.get("controlShown"))
                    && List.of("0 down", "1 down").equals(p.get("buttons")));

            org.openqa.selenium.WebElement field = browser.findElement(org.openqa.selenium.By.id("token"));
            field.sendKeys("wrong");
            click(browser, "1", "down");
            awaitRails(b, p -> "403".equals(p.get("status")) && String.valueOf(p.get("result"))
                    .contains("needs the monitor's token"));

            field.clear();
            field.sendKeys(token);
            click(browser, "1", "down");
            Map<String, Object> down = awaitRails(b, p -> "200".equals(p.get("status"))
                    && p.get("states") instanceof List<?> st && st.size() == 2 && "down (admin)".equals(st.get(1))
                    && List.of("0 down", "1 up").equals(p.get("buttons")));
            assertTrue(String.valueOf(down.get("result")).contains("rank 0: rail 1 (lo) out of service")
                    && String.valueOf(down.get("result")).contains("rank 1: rail 1 (lo) out of service"), down::toString);
            screenshot(browser, "monitor-rail-down.png");

            click(browser, "1", "up");
            awaitRails(b, p -> "200".equals(p.get("status")) && p.get("states") instanceof List<?> st && st.size() == 2
                    && !String.valueOf(st.get(1)).startsWith("down") && List.of("0 down", "1 down").equals(p.get("buttons")));
        } finally {
            stop(browser, service, monitor);
        }
        Launch.Result r = job.await(Duration.ofSeconds(90));
        assertEquals(0, r.exitCode(), r::toString);
    }

    /**
     * Clicks rail {@code rail}'s button, which must offer {@code action}: in the page's own thread, as
     * the panel is redrawn every second and a found element could be gone by the time of a click.
     */
    private static void click(ChromeDriver browser, String rail, String action) {
        Object clicked = ((JavascriptExecutor) browser).executeScript("""
                const b = document.querySelector("#rail-states button.rail-action[data-rail='" + arguments[0]
                    + "'][data-action='" + arguments[1] + "']");
                if (b) b.click();
                return !!b;""", rail, action);
        assertEquals(Boolean.TRUE, clicked, "no button to " + action + " rail " + rail);
    }

    /** The rail panel as read in the browser, once {@code done} holds; fails with the last reading after 60 s. */
    private static Map<String, Object> awaitRails(ChromeDriver browser, Predicate<Map<String, Object>> done)
            throws InterruptedException {
        return await(browser, READ_RAILS, "the rail panel", done);
    }

    private static double num(Map<String, Object> page, String key) {
        return page.get(key) instanceof Number n ? n.doubleValue() : -1;
    }

    /** The page as read in the browser, once {@code done} holds; fails with the last reading after 60 s. */
    private static Map<String, Object> awaitPage(ChromeDriver browser, Predicate<Map<String, Object>> done)
            throws InterruptedException {
        return await(browser, READ_PAGE, "the page", done);
    }

    /** What {@code script} reads in the browser, once {@code done} holds; fails naming {@code what} after 60 s. */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> await(ChromeDriver browser, String script, String what,
                                             Predicate<Map<String, Object>> done) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        Map<String, Object> page = Map.of();
        while (System.nanoTime() < deadline) {
            page = (Map<String, Object>) ((JavascriptExecutor) browser).executeScript(script);
            if (done.test(page)) {
                return page;
            }
            Thread.sleep(250);
        }
        return fail(what + " did not show what was expected within 60 s; it showed " + page);
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
