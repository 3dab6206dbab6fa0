/**
 * The plot conventions that {@code tutti bench} and {@code tutti sim} share ({@link io.tutti.plot.Charts}):
 * binary size axes, plain numbers, PNG or SVG by the file's extension. It imports XChart and nothing of
 * Tutti.
 */
package io.tutti.plot;
