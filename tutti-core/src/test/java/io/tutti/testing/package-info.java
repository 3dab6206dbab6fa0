/** What the core's tests share: running a job of ranks as threads. */
package io.tutti.testing;
