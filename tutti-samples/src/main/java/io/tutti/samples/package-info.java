/**
 * Small complete programs users copy from, written against the API ({@code io.tutti}) only: the
 * heat-diffusion demo that {@code tutti demo} runs.
 *
 * <p>May import: {@code io.tutti}.
 */
package io.tutti.samples;
