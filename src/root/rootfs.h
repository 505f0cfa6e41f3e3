/* rootfs.h: a target root: its paths resolved inside it, the one reader of its
 * files, their atomic writes and removal, the lock of one idlecfg instance */
#pragma once

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "base/util.h"

struct rootfs_warnings {
        char **v;
        size_t n;
};

/* A directory that every path is resolved in, as if it were "/": symbolic
 * links, absolute or with "..", resolve inside it (openat2 RESOLVE_IN_ROOT
 * | RESOLVE_NO_MAGICLINKS; where openat2 is missing, a walk a component at a
 * time that expands each link against the root the same way). */
struct rootfs {
        int fd;
        char *path;             /* as given, for messages ("/" for the host) */
        bool host;              /* the root is this machine's "/" (root_is_host()): asked once,
                                 * by rootfs_open(), and carried here for every layer */
        /* what the readers of optional files (fstab, GRUB, the kernel command
         * line) could not use and assumed instead; the verb layer prints them */
        struct rootfs_warnings *warnings;
};

int rootfs_open(const char *root, struct rootfs *ret);
void rootfs_close(struct rootfs *r);

/* "DIR/etc/x" for messages: the root's path joined with PATH */
char *rootfs_display(const struct rootfs *r, const char *path);

/* Open PATH (absolute, inside the root). FLAGS as for openat(); O_CREAT is
 * refused (-EINVAL): files are created by rootfs_write_atomic(), directories
 * by rootfs_mkdir_p(), the lock file by rootfs_lock(). */
int rootfs_openat(const struct rootfs *r, const char *path, int flags);

/* The one reader of files in a root: every file idlecfg reads from a root,
 * whole, is read here or through rootfs_open_file(). PATH is resolved in the root (links
 * followed inside it; with ROOTFS_NOFOLLOW the last component must not be a
 * link: -ELOOP), opened O_NONBLOCK so that a FIFO cannot block, and must be a
 * regular file (-EISDIR, -EBADFD for a FIFO, socket or device node) of at most
 * MAX bytes, checked by fstat() before anything is read (-EFBIG). Missing
 * because a symbolic link on the way is dangling: -ENOLINK when the link
 * names a file of the root that is not there (Debian's /etc/sysctl.d/
 * 99-sysctl.conf -> ../sysctl.conf without procps: the owning tools skip
 * such a file in a .d directory quietly), -EXDEV when it leads out of a
 * root other than "/" (its ".." climbs above it, or an absolute target names
 * the root's own directory or a file this machine has where the root has
 * none), never -ENOENT. The limits per kind of file are in
 * idlecfg(8), FILES. */
enum {
        ROOTFS_NOFOLLOW = 1 << 0,
};
int rootfs_read_file(const struct rootfs *r, const char *path, unsigned flags, size_t max, char **ret,
                     size_t *ret_len, struct stat *ret_st);
/* The same checks, and the file left to the caller to read (read_fd_full(),
 * util.h, reads the rest): the fd, or -errno as above. R NULL: PATH is a path
 * of this machine outside any root (--profiles-dir with --root, the tests'
 * files), opened as it is, with the same checks. */
int rootfs_open_file(const struct rootfs *r, const char *path, unsigned flags, size_t max, struct stat *ret_st);
/* The same checks, nothing read: for files another library opens itself (libkmod) */
int rootfs_check_file(const struct rootfs *r, const char *path, unsigned flags, size_t max, struct stat *ret_st);
/* The target of the symbolic link PATH (its directory resolved in the root) */
int rootfs_readlink(const struct rootfs *r, const char *path, char **ret);
/* Words for what rootfs_read_file() returned, without the file at hand:
 * "not a regular file (a FIFO, socket or device node)" (writers, that say
 * what they found themselves) */
const char *rootfs_strerror(int e);
/* The same, allocated, naming the limit MAX for -EFBIG: "larger than 1 MiB, ..." */
char *rootfs_read_strerror(int e, size_t max);
/* The words for the reader's or the writer's answer E about PATH (R NULL: a
 * path of this machine), allocated, naming what is there, one wording per
 * kind: "is a directory, not a file", "not a regular file (a FIFO)" (a
 * socket, a character or block device node; -EBADFD, -EISDIR, and -EINVAL of
 * rootfs_read()), for a link where none is followed (-ELOOP) "a symbolic link
 * to T" (inside the root), "a symbolic link to T, which does not exist", "a
 * symbolic link leading out of the root (to T)" or "a symbolic link loop (to
 * T)"; the same for a link on the way (-ENOLINK, -EXDEV: "on its way, X is
 * ..."), "on its way, X is a regular file, not a directory" (-ENOTDIR), the
 * limit MAX for -EFBIG. Every message about a file the reader or the writer
 * refused uses these, followed by what idlecfg assumes or does instead. */
char *rootfs_why(const struct rootfs *r, const char *path, int e, size_t max);
/* Record a warning about a file of the root (duplicates are dropped) */
void rootfs_warn(const struct rootfs *r, const char *fmt, ...) _printf_(2, 3);

/* idlecfg's own files (state, targets): rootfs_read_file() with ROOTFS_NOFOLLOW,
 * and a FIFO, socket or device node -EINVAL (a directory stays -EISDIR). */
int rootfs_read(const struct rootfs *r, const char *path, size_t max, char **ret, size_t *ret_len,
                struct stat *ret_st);

/* lstat() of PATH: its directory resolved in the root, the last component not followed */
int rootfs_lstat(const struct rootfs *r, const char *path, struct stat *ret);

/* The directories a pass of many rootfs_lstat()s opens, each once (refresh's
 * look at the files of a root, where most paths share a few directories,
 * missing ones too). For a pass that writes nothing: a directory replaced
 * during it is not seen. Zero-initialised; rootfs_dirs_done() closes them. */
struct rootfs_dirs {
        size_t n;
        struct {
                char *dir;
                int fd;         /* or -errno: the directory is not there */
        } v[32];
};
int rootfs_lstat_in(const struct rootfs *r, struct rootfs_dirs *dirs, const char *path, struct stat *ret);
void rootfs_dirs_done(struct rootfs_dirs *dirs);

/* Create the directories of DIRPATH that are missing, mode 0755 whatever the
 * umask, each followed by an fsync of its parent (a failure is returned); a
 * link on the way that leads to nothing: -EXDEV or -ENOLINK, as for the reader. Before each
 * one is made, CREATED (if not NULL) is called with its path: a nonzero return
 * stops without making it (the manifest records a directory before it exists). */
int rootfs_mkdir_p(const struct rootfs *r, const char *dirpath,
                   int (*created)(const char *path, void *userdata), void *userdata);

/* Replace PATH with DATA: a temporary file in the same directory, write, fchmod,
 * fchown (uid/gid -1: leave), fsync, renameat over PATH, fsync of the directory.
 * A symbolic link or anything but a regular file at PATH is refused (-ELOOP,
 * -EISDIR, -EBADFD: a FIFO, socket or device node); a link on the way that
 * leads to nothing: -EXDEV or -ENOLINK, as for the reader. On a failure before the rename
 * PATH is untouched and the temporary file removed; a failure of the last
 * fsync of the directory is returned with the new file already in place. */
int rootfs_write_atomic(const struct rootfs *r, const char *path, const void *data, size_t len, mode_t mode,
                        uid_t uid, gid_t gid);
/* the same without the fsyncs, for state that lives in /run (tmpfs): whole or
 * absent, never part of it, and lost at a reboot anyway */
int rootfs_write_volatile(const struct rootfs *r, const char *path, const void *data, size_t len, mode_t mode);

/* unlink PATH (a regular file; else -ELOOP for a link, -EISDIR, -EBADFD), fsync its directory; 0 if it did not exist */
int rootfs_unlink(const struct rootfs *r, const char *path);
/* a symbolic link PATH -> TARGET where nothing is (-EEXIST otherwise; made
 * whole or not at all), then the fsync of its directory (install: the link
 * that enables a unit, as systemctl enable makes it) */
int rootfs_symlink(const struct rootfs *r, const char *path, const char *target);
/* unlink PATH (a symbolic link; else -EISDIR, -EBADFD), fsync its directory; 0 if it did not exist */
int rootfs_unlink_symlink(const struct rootfs *r, const char *path);
/* rmdir PATH if it is an empty directory: 0 removed or absent, -ENOTEMPTY, -ENOTDIR */
int rootfs_rmdir(const struct rootfs *r, const char *path);

/* Take the lock of one idlecfg instance: /run/idlecfg.lock, or DIR/run/idlecfg.lock
 * for a target root. Waits up to TIMEOUT_MS, then -EBUSY. Returns the fd to keep. */
int rootfs_lock(const struct rootfs *r, unsigned timeout_ms, struct xerror *ret_error);
/* Remove the lock file (and /run, if rootfs_lock() had to make it), still
 * holding the lock, then close FD: the lock never outlives the run. An
 * instance that waited on the removed file sees it is gone once it gets the
 * lock, and locks a new one (rootfs_lock() compares the inodes). */
void rootfs_unlock(const struct rootfs *r, int fd);

/* Remove the temporary files a killed rootfs_write_atomic() of PATH left
 * (".#NAME.*" beside it); the number removed or -errno. */
int rootfs_remove_temps(const struct rootfs *r, const char *path);
/* Remove every regular file directly in DIRPATH (a link there is not followed:
 * -ELOOP), then the directory if it is empty (idlecfg's own state directories only). */
int rootfs_remove_dir_files(const struct rootfs *r, const char *dirpath);

/* The names in directory PATH of the root that end in SUFFIX (NULL: any),
 * without the hidden ones, sorted as strcmp() does: 0 with *RET (free with
 * rootfs_list_free()) and *RET_N, or -errno when the directory cannot be
 * opened (-ENOENT: there is none). */
int rootfs_list_dir(const struct rootfs *r, const char *path, const char *suffix, char ***ret, size_t *ret_n);
void rootfs_list_free(char **v, size_t n);
