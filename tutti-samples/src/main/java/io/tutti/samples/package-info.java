/**
 * Small complete programs users copy from, written against the API ({@code io.tutti}) only: the
 * heat-diffusion demo that {@code tutti demo} runs, and the one-sided ones: a distributed counter
 * ({@code fetchAndOp}) and a halo exchange ({@code put} between fences).
 *
 * <p>May import: {@code io.tutti}.
 */
package io.tutti.samples;
