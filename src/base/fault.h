/* fault.h: fault injection for the tests, and SIGTERM and SIGINT that wait for a commit */
#pragma once

/* ---- SIGTERM and SIGINT ----
 * signals_setup(): both end the process at once, by that signal, after the
 * temporary file of an atomic write in progress is removed. Between
 * signals_defer() and signals_undefer() (nested) they wait: the commit of a
 * write (rename, journal line + sysfs write) is never cut in half. */
void signals_setup(void);
void signals_defer(void);
void signals_undefer(void);
/* the temporary file of the atomic write in progress (rootfs_write_atomic(),
 * rootfs.h): the handler removes it before the process ends */
void signals_temp_register(int dirfd, const char *name);
void signals_temp_forget(void);
/* remove that file now (async-signal-safe: another handler that ends the
 * process, verify --nagios's timeout) */
void signals_temp_remove(void);

/* ---- fault injection for the tests ----
 * IDLECFG_FAULT="kill:N" kills the process with SIGKILL at the N-th fault point,
 * "term:N" sends it SIGTERM there (deferred inside a commit, see above),
 * "fail:N" or "fail:N:ERRNO" (EIO, ENOSPC, EINVAL, EOPNOTSUPP, EBUSY, EROFS) makes the
 * N-th fault point fail with that error (default EIO); "fail:N:ERRNO:NAME" counts
 * only the fault points whose name starts with NAME ("sysfs write"). Every step that changes
 * a file or an attribute is a fault point. IDLECFG_FAULT_COUNT=FILE appends the
 * number of fault points passed at exit (to find how many a run has). */
int fault_point(const char *what);
