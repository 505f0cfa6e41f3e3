/* firstboot.c: the stamp of idlecfg-firstboot.service (firstboot.h) */
#include "config.h"

#include <sys/stat.h>

#include "state/firstboot.h"
#include "base/i18n.h"
#include "state/manifest.h"

#define MACHINE_ID_PATH "/etc/machine-id"
#define STAMP_MAX 4096u
#define MACHINE_ID_MAX 4096u

bool firstboot_machine_id(const struct rootfs *rfs, char id[static 33])
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

static char *stamp_text(unsigned long long usr, const char *id, const char *hardware)
{
        return xasprintf("# idlecfg refresh --image (idlecfg-firstboot.service) configured this machine for\n"
                         "# this /usr, machine-id and hardware; the unit skips itself while all are the same.\n"
                         "# See IMAGES in idlecfg(8).\n"
                         "USR_TIMESTAMP_NSEC=%llu\nMACHINE_ID=%s\n%s%s%s", usr, id, hardware ? "HARDWARE=" : "",
                         strempty(hardware), hardware ? "\n" : "");
}

/* a key of the hardware as the stamp holds it: "uuid:" or "dmi-pci:" and hex digits and dashes */
static bool hardware_valid(const char *v)
{
        const char *h = startswith(v, "uuid:") ? v + 5 : startswith(v, "dmi-pci:") ? v + 8 : NULL;

        return h && *h && strlen(v) < sizeof(((struct firstboot_check *) NULL)->was) &&
               strspn(h, "0123456789abcdef-") == strlen(h);
}

/* the stamp's values into *RET_USR, ID and HARDWARE ("" when the stamp of
 * an earlier idlecfg has none); false, with the number of the first line
 * that is not one of them in *RET_LINE (the line after the last when one is
 * missing), when it is not a stamp */
static bool stamp_parse(const char *text, size_t len, unsigned long long *ret_usr, char id[static 33],
                        char hardware[static 80], unsigned *ret_line)
{
        bool have_usr = false, have_id = false, have_hw = false;
        unsigned n = 0;
        const char *p = text, *end = text + len;

        hardware[0] = 0;
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
                } else if (startswith(line, "HARDWARE=") && !have_hw) {
                        const char *v = line + strlen("HARDWARE=");
                        if (!hardware_valid(v))
                                return false;
                        snprintf(hardware, 80, "%s", v);
                        have_hw = true;
                } else
                        return false;
        }
        *ret_line = n + 1;
        return have_usr && have_id;
}

bool firstboot_needed(const struct rootfs *rfs, const char *hardware, struct firstboot_check *ret)
{
        _cleanup_free_ char *text = NULL;
        unsigned long long usr = 0, was_usr = 0;
        char id[33], was_id[33], was_hw[80];
        size_t len = 0;
        int r;

        *ret = (struct firstboot_check) {};
        r = rootfs_read(rfs, FIRSTBOOT_STAMP_PATH, STAMP_MAX, &text, &len, NULL);
        if (r == -ENOENT)
                ret->verdict = FB_NO_STAMP;
        else if (r < 0) {
                ret->verdict = FB_UNREADABLE;
                ret->error = r;
        } else if (!stamp_parse(text, len, &was_usr, was_id, was_hw, &ret->line))
                ret->verdict = FB_DAMAGED;
        else if (!firstboot_machine_id(rfs, id))
                ret->verdict = FB_NO_MACHINE_ID;
        else if (!streq(id, was_id)) {
                ret->verdict = FB_OTHER_MACHINE_ID;
                memcpy(ret->was, was_id, 33);
                memcpy(ret->now, id, 33);
        } else if (hardware && !streq(hardware, was_hw)) {
                ret->verdict = FB_OTHER_HARDWARE;
                snprintf(ret->was, sizeof(ret->was), "%s", was_hw);
                snprintf(ret->now, sizeof(ret->now), "%s", hardware);
        } else if (!usr_mtime(rfs, &usr) || usr != was_usr)
                ret->verdict = FB_USR_CHANGED;
        else
                ret->verdict = FB_CONFIGURED;
        return ret->verdict != FB_CONFIGURED;
}

int firstboot_stamp_write(const struct rootfs *rfs, const char *hardware)
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
        if (!firstboot_machine_id(rfs, id) || !usr_mtime(rfs, &usr))
                return firstboot_stamp_remove(rfs);
        if (hardware && !hardware_valid(hardware))
                return -EINVAL;
        text = stamp_text(usr, id, hardware);
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
