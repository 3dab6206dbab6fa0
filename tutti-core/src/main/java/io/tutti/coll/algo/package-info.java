/**
 * The collective algorithms, one file each: pure builders that turn a call into a rank's
 * schedule, with their cost and tags stated in the class comment.
 *
 * <p>May import: {@code io.tutti}, {@code io.tutti.coll.schedule}.
 */
package io.tutti.coll.algo;
