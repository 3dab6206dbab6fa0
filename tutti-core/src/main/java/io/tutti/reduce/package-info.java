/**
 * Reduction arithmetic: the element-wise kernels every reduction step runs on the host
 * ({@link io.tutti.reduce.Reduction}) and the offload ALU of the software NIC and the switches
 * ({@link io.tutti.reduce.OffloadAlu}).
 *
 * <p>May import: {@code io.tutti}, {@code io.tutti.os}.
 */
package io.tutti.reduce;
