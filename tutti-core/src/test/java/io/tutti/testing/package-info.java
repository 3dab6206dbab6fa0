/** What the core's tests share: running a job of ranks as threads, and what a loop allocates. */
package io.tutti.testing;
