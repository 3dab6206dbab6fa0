/**
 * Reduction arithmetic: the element-wise kernels every reduction step runs on the host
 * ({@link io.tutti.reduce.Reduction}, which checks a call and dispatches it to the kernels of its type
 * family or to the direct path for short vectors) and the offload ALU of the software NIC and the
 * switches ({@link io.tutti.reduce.OffloadAlu}, [NIC-reduce] §3.1).
 *
 * <p>May import: {@code io.tutti}, {@code io.tutti.os}.
 */
package io.tutti.reduce;
