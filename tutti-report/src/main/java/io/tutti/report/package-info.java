/**
 * The output formats that {@code tutti bench} and {@code tutti sim} share: the plots
 * ({@link io.tutti.report.Charts}: binary size axes, plain numbers, PNG or SVG by the file's extension)
 * and the {@code --json} rows ({@link io.tutti.report.JsonLine}). It imports XChart and jackson-core and
 * nothing of Tutti.
 */
package io.tutti.report;
