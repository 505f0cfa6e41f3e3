/* firstboot.c: the stamp of idlecfg-firstboot.service (firstboot.h) */
#include "config.h"

#include <sys/stat.h>

#include "state/firstboot.h"
#include "base/i18n.h"
#include "state/manifest.h"

#define MACHINE_ID_PATH "/etc/machine-id"
#define STAMP_MAX 4096u
#define MACHINE_ID_MAX 4096u

/* the ID of /etc/machine-id (32 lowercase hex digits) into ID, false if none
 * (missing, empty, "uninitialized": a first boot that has not made it yet) */
static bool machine_id(const struct rootfs *rfs, char id[static 33])
{
        _cleanup_free_ char *text = NULL;
        size_t len = 0;

        if (rootfs_read_file(rfs, MACHINE_ID_PATH, 0, MACHINE_ID_MAX, &text, &len, NULL) < 0)
                return false;
        if (len < 32 || strspn(text, "0123456789abcdef") != 32 || (len > 32 && (text[32] != '\n' || len != 33)))
                return false;
        memcpy(id, text, 32);
        id[32] = 0;
        return true;
}

/* /usr's mtime in ns, as systemd-update-done records it (TIMESTAMP_NSEC) */
static bool usr_mtime(const struct rootfs *rfs, unsigned long long *ret)
{
        struct stat st;

        if (rootfs_lstat(rfs, "/usr", &st) < 0 || st.st_mtim.tv_sec < 0)
                return false;
        *ret = (unsigned long long) st.st_mtim.tv_sec * 1000000000ull + (unsigned long long) st.st_mtim.tv_nsec;
        return true;
}

static char *stamp_text(unsigned long long usr, const char *id)
{
        return xasprintf("# idlecfg refresh --image (idlecfg-firstboot.service) configured this machine for\n"
                         "# this /usr and machine-id; the unit skips itself while both are the same.\n"
                         "# See IMAGES in idlecfg(8).\n"
                         "USR_TIMESTAMP_NSEC=%llu\nMACHINE_ID=%s\n", usr, id);
}

/* the stamp's two values into *RET_USR and ID; false, with the number of the
 * first line that is not one of them in *RET_LINE (the line after the last
 * when one is missing), when it is not a stamp */
static bool stamp_parse(const char *text, size_t len, unsigned long long *ret_usr, char id[static 33],
                        unsigned *ret_line)
{
        bool have_usr = false, have_id = false;
        unsigned n = 0;
        const char *p = text, *end = text + len;

        while (p < end) {
                const char *nl = memchr(p, '\n', (size_t) (end - p));
                size_t l = nl ? (size_t) (nl - p) : (size_t) (end - p);
                _cleanup_free_ char *line = NULL;

                n++;
                *ret_line = n;
                if (!nl || memchr(p, 0, l))
                        return false;   /* cut short, or not text */
                line = xstrndup(p, l);
                p = nl + 1;
                if (line[0] == '#')
                        continue;
                if (startswith(line, "USR_TIMESTAMP_NSEC=") && !have_usr) {
                        const char *v = line + strlen("USR_TIMESTAMP_NSEC=");
                        char *e;
                        if (!*v || !strchr("0123456789", *v))
                                return false;
                        errno = 0;
                        *ret_usr = strtoull(v, &e, 10);
                        if (errno || *e)
                                return false;
                        have_usr = true;
                } else if (startswith(line, "MACHINE_ID=") && !have_id) {
                        const char *v = line + strlen("MACHINE_ID=");
                        if (strlen(v) != 32 || strspn(v, "0123456789abcdef") != 32)
                                return false;
                        memcpy(id, v, 33);
                        have_id = true;
                } else
                        return false;
        }
        *ret_line = n + 1;
        return have_usr && have_id;
}

bool firstboot_needed(const struct rootfs *rfs, bool verbose, FILE *out, FILE *warn)
{
        _cleanup_free_ char *text = NULL, *shown = rootfs_display(rfs, FIRSTBOOT_STAMP_PATH);
        unsigned long long usr = 0, was_usr = 0;
        char id[33], was_id[33];
        unsigned line = 0;
        size_t len = 0;
        int r;

        r = rootfs_read(rfs, FIRSTBOOT_STAMP_PATH, STAMP_MAX, &text, &len, NULL);
        if (r == -ENOENT) {
                if (verbose)
                        fprintf(out, _("%s: none: the first boot of this machine, or idlecfg-firstboot.service "
                                       "has not finished yet: it runs\n"), shown);
                return true;
        }
        if (r < 0) {
                _cleanup_free_ char *why = rootfs_why(rfs, FIRSTBOOT_STAMP_PATH, r, STAMP_MAX);
                fprintf(warn, _("idlecfg: warning: cannot read %s: %s; idlecfg-firstboot.service runs\n"), shown,
                        why);
                return true;
        }
        if (!stamp_parse(text, len, &was_usr, was_id, &line)) {
                fprintf(warn, _("idlecfg: warning: %s:%u: not a stamp of idlecfg-firstboot.service; it runs (and "
                                "writes the stamp again)\n"), shown, line);
                return true;
        }
        if (!machine_id(rfs, id)) {
                if (verbose)
                        fprintf(out, _("%s holds no machine ID (a first boot): idlecfg-firstboot.service runs\n"),
                                MACHINE_ID_PATH);
                return true;
        }
        if (!streq(id, was_id)) {
                if (verbose)
                        fprintf(out, _("%s: the stamp is of another machine ID (%s, now %s): "
                                       "idlecfg-firstboot.service runs\n"), shown, was_id, id);
                return true;
        }
        if (!usr_mtime(rfs, &usr) || usr != was_usr) {
                if (verbose)
                        fprintf(out, _("%s: /usr changed since the stamp (its mtime): idlecfg-firstboot.service "
                                       "runs\n"), shown);
                return true;
        }
        if (verbose)
                fprintf(out, _("%s: this /usr and machine ID were configured: idlecfg-firstboot.service has "
                               "nothing to do\n"), shown);
        return false;
}

int firstboot_stamp_write(const struct rootfs *rfs)
{
        _cleanup_free_ char *text = NULL;
        unsigned long long usr;
        char id[33];
        struct stat st;
        int r;

        /* the state directory is install's: never made for the stamp alone */
        r = rootfs_lstat(rfs, STATE_DIR, &st);
        if (r < 0)
                return r;
        if (!S_ISDIR(st.st_mode))
                return -ENOTDIR;
        if (!machine_id(rfs, id) || !usr_mtime(rfs, &usr))
                return firstboot_stamp_remove(rfs);
        text = stamp_text(usr, id);
        /* lost in a crash, the unit runs once more: no fsync needed, yet a
         * stamp is written once a boot at most */
        return rootfs_write_atomic(rfs, FIRSTBOOT_STAMP_PATH, text, strlen(text), 0644, (uid_t) -1, (gid_t) -1);
}

int firstboot_stamp_remove(const struct rootfs *rfs)
{
        int r = rootfs_unlink(rfs, FIRSTBOOT_STAMP_PATH);

        if (r < 0)
                return r;
        r = rootfs_remove_temps(rfs, FIRSTBOOT_STAMP_PATH);
        return r < 0 ? r : 0;
}
