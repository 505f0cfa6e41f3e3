/* grubenv.h: the kernel command line of GRUB's normal boot entries, read from
 * /etc/default/grub and /etc/default/grub.d/NAME.cfg as grub-mkconfig sources
 * them, without running them */
#pragma once

#include "root/rootfs.h"

/* The shell variables of the files parsed so far, and what could not be read */
struct grubenv {
        struct grubvar {
                char *name, *value;
                char *readonly;         /* "FILE:LINE" of its readonly, NULL: none */
                /* what its value could not expand ("FILE:LINE: ..."): said only
                 * when it reaches GRUB_CMDLINE_LINUX(_DEFAULT) */
                char **unexpanded;
                size_t n_unexpanded;
        } *vars;
        size_t n_vars;
        char **warnings;        /* "FILE:LINE: ...; idlecfg assumes ..." */
        size_t n_warnings;
        bool exited;            /* an "exit" ran: grub-mkconfig stops there, the files after it are not read */
};

/* Parse TEXT (the file NAME, for messages) as grub-mkconfig's /bin/sh would
 * source it, for the subset of the shell these files use: assignments in
 * order (the last one wins), several on a line, `export` and `unset`; single
 * and double quotes, backslashes, comments (also after a command), backslash
 * continuation lines, `$VAR` and `${VAR}` from earlier assignments. Anything
 * else (commands, `$(...)`, `${VAR:-x}`, redirections) is not run: a
 * warning names FILE:LINE, and idlecfg assumes it changes no variable (an
 * expansion in an assignment: that it expands to nothing, said only when
 * the value reaches GRUB_CMDLINE_LINUX or GRUB_CMDLINE_LINUX_DEFAULT, as
 * Debian's GRUB_DISTRIBUTOR=`lsb_release ...` never does); the
 * condition of `if`, `while`, `for`, `case` is not run either (a warning),
 * and the assignments inside are read as if each one ran. As the shell
 * does: a `{ ...; }` group runs what it holds; a function's body
 * (`f() { ... }`) and a here-document's lines are not commands; `return` at
 * the top level ends the file, `exit` every file (grub-mkconfig exits: a
 * warning); an assignment to a variable made readonly is a warning (the
 * shell stops with an error there) and keeps the value. */
void grubenv_parse(struct grubenv *env, const char *name, const char *text);
/* The value of NAME: "" when never assigned */
const char *grubenv_get(const struct grubenv *env, const char *name);
/* The arguments grub-mkconfig's 10_linux gives the normal entries:
 * "$GRUB_CMDLINE_LINUX $GRUB_CMDLINE_LINUX_DEFAULT" up to its first newline
 * (10_linux writes the rest on a grub.cfg line of its own: a warning when
 * assigned), blanks collapsed to one space; NULL if there are none */
char *grubenv_cmdline(const struct grubenv *env);
void grubenv_done(struct grubenv *env);

/* /etc/default/grub, then /etc/default/grub.d/NAME.cfg in the order of their
 * names, of root RFS, without idlecfg's own snippet (GRUB_SNIPPET_PATH with
 * the header install writes: its words are idlecfg's, not the
 * administrator's); NULL if none sets a parameter. A file that cannot be
 * read or parsed is a warning of RFS (rootfs_warn()). */
char *grub_boot_cmdline(const struct rootfs *rfs);
/* "FILE:LINE" of a readonly of GRUB_CMDLINE_LINUX_DEFAULT in the files
 * grub-mkconfig sources before GRUB_SNIPPET_PATH (where assigning it stops
 * grub-mkconfig with "is read only"), NULL: none */
char *grub_cmdline_readonly_before_snippet(const struct rootfs *rfs);
/* The grub.d file after idlecfg's snippet (GRUB_SNIPPET_PATH) that assigns
 * GRUB_CMDLINE_LINUX(_DEFAULT) without idlecfg's words, as grub-mkconfig
 * sources them in order: its path (a warning of RFS names it), or NULL
 * when the words reach the kernel command line (or there is no snippet) */
char *grub_snippet_dropped_by(const struct rootfs *rfs);
/* The variables of those files, in ENV (grubenv_done() it); the warnings go to RFS */
void grub_boot_env(const struct rootfs *rfs, struct grubenv *env);
