/* storage.c: which disk holds the target's root filesystem, and its swap (libblkid) */
#include "config.h"

#include <blkid.h>
#include <ctype.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "model/inventory.h"
#include "root/rootfs.h"
#include "pipeline/storage.h"
#include "pipeline/udev-dl.h"
#include "root/target.h"

/* fstab's escapes, as libmount's unmangle(): a backslash and three octal
 * digits (\040 a space, \011 a tab, \134 a backslash), in place */
static void fstab_unescape(char *s)
{
        char *out = s;

        for (; *s; s++)
                if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' && s[3] >= '0' &&
                    s[3] <= '7') {
                        *out++ = (char) (((s[1] - '0') << 6) | ((s[2] - '0') << 3) | (s[3] - '0'));
                        s += 3;
                } else
                        *out++ = *s;
        *out = '\0';
}

static bool is_number(const char *s)
{
        return *s && strspn(s, "0123456789") == strlen(s);
}

/* One fstab line, fields split in place (blanks: spaces and tabs) and
 * unescaped: 1 for an entry, 0 for a comment or a blank line, -1 for a line
 * libmount cannot parse (*RET_WHY says what is wrong); mount skips it with a
 * warning, and so does idlecfg. */
static int fstab_split(char *line, char **spec, char **file, char **type, const char **ret_why)
{
        char *save = NULL, *freq, *passno;

        *spec = strtok_r(line, " \t\n", &save);
        if (!*spec || **spec == '#')
                return 0;
        *file = strtok_r(NULL, " \t\n", &save);
        *type = *file ? strtok_r(NULL, " \t\n", &save) : NULL;
        if (!*file || !*type) {
                *ret_why = !*file ? _("a device without a mount point") : _("no filesystem type");
                return -1;
        }
        (void) strtok_r(NULL, " \t\n", &save);     /* the options */
        freq = strtok_r(NULL, " \t\n", &save);
        passno = freq ? strtok_r(NULL, " \t\n", &save) : NULL;
        if ((freq && !is_number(freq)) || (passno && !is_number(passno))) {
                *ret_why = _("the dump or pass field is not a number");
                return -1;
        }
        fstab_unescape(*spec);
        fstab_unescape(*file);
        return 1;
}

static void add_swap(struct storage *s, const char *spec, const char *device, const char *uuid,
                     const char *source)
{
        for (size_t i = 0; i < s->n_swaps; i++)
                if (device && streq_ptr(s->swaps[i].device, device))
                        return;
        s->swaps = xrealloc(s->swaps, (s->n_swaps + 1) * sizeof(*s->swaps));
        s->swaps[s->n_swaps++] = (struct swap_entry) {
                .spec = xstrdup(spec),
                .device = device ? xstrdup(device) : NULL,
                .uuid = uuid ? xstrdup(uuid) : NULL,
                .source = xstrdup(source),
        };
}

/* libblkid is opened at run time, at the first probe, as libkmod is
 * (modules.c): most runs probe nothing (udev's database knows the
 * filesystems; under umockdev nothing is a block device), and loading it costs
 * every run that does not. The headers give the prototypes. */
static void *libblkid_dl;
static char *libblkid_error;            /* why it could not be opened, once */
static typeof(blkid_new_probe_from_filename) *sym_blkid_new_probe_from_filename;
static typeof(blkid_probe_enable_superblocks) *sym_blkid_probe_enable_superblocks;
static typeof(blkid_probe_set_superblocks_flags) *sym_blkid_probe_set_superblocks_flags;
static typeof(blkid_do_safeprobe) *sym_blkid_do_safeprobe;
static typeof(blkid_probe_lookup_value) *sym_blkid_probe_lookup_value;
static typeof(blkid_free_probe) *sym_blkid_free_probe;

static int dlopen_libblkid(void)
{
        static const struct dlsym_arg syms[] = {
                DLSYM_ARG(blkid_new_probe_from_filename), DLSYM_ARG(blkid_probe_enable_superblocks),
                DLSYM_ARG(blkid_probe_set_superblocks_flags), DLSYM_ARG(blkid_do_safeprobe),
                DLSYM_ARG(blkid_probe_lookup_value), DLSYM_ARG(blkid_free_probe),
        };

        if (libblkid_dl)
                return 0;
        if (libblkid_error)
                return -ELIBACC;        /* tried once: the note says why */
        return dlopen_syms("libblkid.so.1", syms, ELEMENTSOF(syms), &libblkid_dl, &libblkid_error);
}

/* Low-level probe of a real block device node: no blkid cache file (it would be
 * read from and written to the running system), and nothing that is not a
 * block device is opened (under umockdev, /dev holds emulated character nodes). */
static int probe_block(const char *devnode, char **ret_type, char **ret_uuid, char **ret_label)
{
        blkid_probe pr;
        const char *v;
        struct stat st;
        int r = -ENODATA;

        if (stat(devnode, &st) < 0)
                return -errno;
        if (!S_ISBLK(st.st_mode))
                return -ENOTBLK;
        r = dlopen_libblkid();
        if (r < 0)
                return r;
        r = -ENODATA;
        pr = sym_blkid_new_probe_from_filename(devnode);
        if (!pr)
                return errno > 0 ? -errno : -EIO;
        sym_blkid_probe_enable_superblocks(pr, 1);
        sym_blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_UUID | BLKID_SUBLKS_TYPE | BLKID_SUBLKS_LABEL);
        if (sym_blkid_do_safeprobe(pr) == 0) {
                r = 0;
                if (ret_type)
                        *ret_type = sym_blkid_probe_lookup_value(pr, "TYPE", &v, NULL) == 0 ? xstrdup(v) : NULL;
                if (ret_uuid)
                        *ret_uuid = sym_blkid_probe_lookup_value(pr, "UUID", &v, NULL) == 0 ? xstrdup(v) : NULL;
                if (ret_label)
                        *ret_label = sym_blkid_probe_lookup_value(pr, "LABEL", &v, NULL) == 0 ? xstrdup(v) : NULL;
        }
        sym_blkid_free_probe(pr);
        return r;
}

/* An fstab spec to its udev device: the udev database first (it knows the
 * recorded machine and the installer's disks), libblkid's tag search second. */
static struct udev_device *resolve_spec(struct udev *udev, const char *spec)
{
        static const struct { const char *prefix, *prop; } tags[] = {
                { "UUID=", "ID_FS_UUID" }, { "PARTUUID=", "ID_PART_ENTRY_UUID" },
                { "LABEL=", "ID_FS_LABEL" }, { "PARTLABEL=", "ID_PART_ENTRY_NAME" },
        };
        struct udev_device *u = NULL;
        struct udev_enumerate *all;
        struct udev_list_entry *item;

        for (size_t i = 0; i < ELEMENTSOF(tags); i++) {
                struct udev_enumerate *e;
                struct udev_list_entry *le;

                if (!startswith(spec, tags[i].prefix))
                        continue;
                e = sym_udev_enumerate_new(udev);
                if (!e)
                        return NULL;
                sym_udev_enumerate_add_match_subsystem(e, "block");
                sym_udev_enumerate_add_match_property(e, tags[i].prop, spec + strlen(tags[i].prefix));
                if (sym_udev_enumerate_scan_devices(e) >= 0 && (le = sym_udev_enumerate_get_list_entry(e)))
                        u = sym_udev_device_new_from_syspath(udev, sym_udev_list_entry_get_name(le));
                sym_udev_enumerate_unref(e);
                if (u)
                        return u;
        }
        if (startswith(spec, "/dev/") && !strchr(spec + 5, '/'))
                u = sym_udev_device_new_from_subsystem_sysname(udev, "block", spec + 5);
        if (u || (!startswith(spec, "UUID=") && !startswith(spec, "LABEL=")))
                return u;
        /* the udev database does not know it (a chroot, no udevd): probe */
        all = sym_udev_enumerate_new(udev);
        if (!all)
                return NULL;
        sym_udev_enumerate_add_match_subsystem(all, "block");
        if (sym_udev_enumerate_scan_devices(all) >= 0)
                sym_udev_list_entry_foreach(item, sym_udev_enumerate_get_list_entry(all)) {
                        struct udev_device *d =
                                sym_udev_device_new_from_syspath(udev, sym_udev_list_entry_get_name(item));
                        _cleanup_free_ char *uuid = NULL, *label = NULL;
                        const char *node = d ? sym_udev_device_get_devnode(d) : NULL;

                        if (node && probe_block(node, NULL, &uuid, &label) == 0 &&
                            (startswith(spec, "UUID=") ? streq_ptr(uuid, spec + 5) : streq_ptr(label, spec + 6))) {
                                u = d;
                                break;
                        }
                        sym_udev_device_unref(d);
                }
        sym_udev_enumerate_unref(all);
        return u;
}

static char *uuid_of(struct udev_device *u, const char *spec)
{
        const char *v;
        char *uuid = NULL;

        if (startswith(spec, "UUID="))
                return xstrdup(spec + 5);
        if (!u)
                return NULL;
        if ((v = sym_udev_device_get_property_value(u, "ID_FS_UUID")))
                return xstrdup(v);
        if (sym_udev_device_get_devnode(u) && probe_block(sym_udev_device_get_devnode(u), NULL, &uuid, NULL) == 0)
                return uuid;
        return NULL;
}

/* the whole disk below a partition; other block devices stand for themselves */
static struct udev_device *whole_disk(struct udev_device *u)
{
        struct udev_device *p;

        if (streq_ptr(sym_udev_device_get_devtype(u), "partition")) {
                p = sym_udev_device_get_parent_with_subsystem_devtype(u, "block", "disk");
                return p ? sym_udev_device_ref(p) : NULL;
        }
        return sym_udev_device_ref(u);
}

/* remember the whole disk below U as used by WHAT (once per disk) */
static void add_used_disk(struct storage *s, struct udev_device *u, const char *what)
{
        struct udev_device *disk = u ? whole_disk(u) : NULL;
        const char *name = disk ? sym_udev_device_get_sysname(disk) : NULL;

        if (name && !kv_find(&s->used_disks, name))
                kv_add(&s->used_disks, name, what);
        sym_udev_device_unref(disk);
}

/* fill the root fields from the block device u */
static void describe_root(struct storage *s, struct udev *udev, struct udev_device *u)
{
        struct udev_device *disk;
        const char *v;

        v = sym_udev_device_get_devnode(u);
        s->root_device = xstrdup(v ? v : sym_udev_device_get_sysname(u));
        if ((v = sym_udev_device_get_property_value(u, "ID_FS_TYPE")))
                s->root_fstype = xstrdup(v);
        if ((v = sym_udev_device_get_property_value(u, "ID_FS_UUID")))
                s->root_uuid = xstrdup(v);
        if ((!s->root_fstype || !s->root_uuid) && sym_udev_device_get_devnode(u)) {
                _cleanup_free_ char *type = NULL, *uuid = NULL;
                if (probe_block(sym_udev_device_get_devnode(u), &type, &uuid, NULL) == 0) {
                        if (!s->root_fstype)
                                s->root_fstype = TAKE_PTR(type);
                        if (!s->root_uuid)
                                s->root_uuid = TAKE_PTR(uuid);
                }
        }
        disk = whole_disk(u);
        if (disk) {
                s->root_disk = xstrdup(sym_udev_device_get_sysname(disk));
                s->root_disk_devpath = xstrdup(sym_udev_device_get_devpath(disk));
                sym_udev_device_unref(disk);
        }
}

#define FSTAB_MAX (1024u * 1024u)

static void read_fstab(struct inventory *inv, struct udev *udev)
{
        _cleanup_free_ char *path = rootfs_display(inv->rfs, "/etc/fstab"), *text = NULL;
        _cleanup_fclose_ FILE *f = NULL;
        char line[4096];
        unsigned lineno = 0;
        size_t len = 0;
        int r;

        r = rootfs_read_file(inv->rfs, "/etc/fstab", 0, FSTAB_MAX, &text, &len, NULL);
        if (r == -ENOENT || r == -ENOTDIR)
                return;
        if (r < 0) {
                /* the root filesystem is then the one the root directory is on */
                _cleanup_free_ char *why = rootfs_why(inv->rfs, "/etc/fstab", r, FSTAB_MAX);
                rootfs_warn(inv->rfs, _("%s: %s; idlecfg assumes no fstab: the root filesystem is the one "
                                        "%s is on, and no swap from it"), path, why, inv->rfs->path);
                return;
        }
        if (len == 0)
                return;
        f = fmemopen(text, len, "r");
        if (!f)
                return;
        while (fgets(line, sizeof(line), f)) {
                char *spec, *file, *type;
                const char *bad = NULL;
                int k;

                lineno++;
                if (!strchr(line, '\n') && !feof(f)) {
                        int c;
                        inventory_add_note(inv, _("%s:%u: line too long, ignored"), path, lineno);
                        while ((c = fgetc(f)) != EOF && c != '\n')
                                ;
                        continue;
                }
                k = fstab_split(line, &spec, &file, &type, &bad);
                if (k < 0)
                        rootfs_warn(inv->rfs, _("%s:%u: not an fstab entry (%s); skipped, as mount skips it"), path,
                                    lineno, bad);
                if (k <= 0)
                        continue;
                if (streq(file, "/") && !inv->storage.root_spec)
                        inv->storage.root_spec = xstrdup(spec);
                if (streq(type, "swap")) {
                        struct udev_device *u = resolve_spec(udev, spec);
                        const char *dev = u ? sym_udev_device_get_devnode(u) : NULL;
                        _cleanup_free_ char *uuid = uuid_of(u, spec);
                        add_swap(&inv->storage, spec, dev, uuid, "fstab");
                        add_used_disk(&inv->storage, u, "swap (fstab)");
                        sym_udev_device_unref(u);
                } else if (file[0] == '/' && !streq(type, "nfs") && !streq(type, "nfs4") && !streq(type, "cifs")) {
                        struct udev_device *u = resolve_spec(udev, spec);
                        _cleanup_free_ char *what = xasprintf("%s (fstab)", file);
                        add_used_disk(&inv->storage, u, what);
                        sym_udev_device_unref(u);
                }
        }
}

#define PROC_SWAPS_MAX (1024u * 1024u)

/* The swap the running system uses now: /proc/swaps (the tests' /proc:
 * IDLECFG_TEST_PROC), only where the target is the running system. */
static void read_proc_swaps(struct inventory *inv, struct udev *udev)
{
        const char *proc = secure_getenv("IDLECFG_TEST_PROC");
        _cleanup_free_ char *path = xasprintf("%s/swaps", proc && *proc ? proc : "/proc"), *text = NULL;
        _cleanup_fclose_ FILE *f = NULL;
        char line[4096];
        size_t len = 0;

        /* a file of this machine, not of the target's files (the reader with
         * no root): procfs, a regular file of size 0, read to its end */
        if (rootfs_read_file(NULL, path, 0, PROC_SWAPS_MAX, &text, &len, NULL) < 0 || len == 0)
                return;
        f = fmemopen(text, len, "r");
        if (!f)
                return;
        if (!fgets(line, sizeof(line), f))     /* header */
                return;
        while (fgets(line, sizeof(line), f)) {
                char *save = NULL, *name = strtok_r(line, " \t\n", &save);
                _cleanup_free_ char *uuid = NULL;

                if (!name)
                        continue;
                {
                        struct udev_device *u = !startswith(name, "/dev/") ? NULL :
                                sym_udev_device_new_from_subsystem_sysname(udev, "block", strrchr(name, '/') + 1);
                        uuid = uuid_of(u, name);
                        add_used_disk(&inv->storage, u, "swap (/proc/swaps)");
                        sym_udev_device_unref(u);
                }
                add_swap(&inv->storage, name, name, uuid, "proc");
        }
}

/* The root filesystem: the fstab's "/" entry where it resolves (what the target
 * boots), else the block device the root directory is mounted from. */
static void find_root(struct inventory *inv, struct udev *udev)
{
        struct storage *s = &inv->storage;
        struct udev_device *u = NULL;
        struct stat st;

        if (s->root_spec) {
                u = resolve_spec(udev, s->root_spec);
                if (u) {
                        s->root_source = xstrdup("fstab");
                        describe_root(s, udev, u);
                        sym_udev_device_unref(u);
                        return;
                }
        }
        if (fstat(inv->rfs->fd, &st) < 0) {
                s->root_note = xasprintf("%s: %s", inv->rfs->path, strerror(errno));
                return;
        }
        if (major(st.st_dev) == 0) {
                s->root_note = xasprintf(_("the filesystem of %s is not on a block device"), inv->rfs->path);
                return;
        }
        u = sym_udev_device_new_from_devnum(udev, 'b', st.st_dev);
        if (!u) {
                s->root_note = xasprintf(_("the block device of %s is not in sysfs"), inv->rfs->path);
                return;
        }
        s->root_source = xstrdup("mount");
        describe_root(s, udev, u);
        sym_udev_device_unref(u);
}

int detect_storage(struct inventory *inv, struct udev *udev)
{
        read_fstab(inv, udev);
        find_root(inv, udev);
        /* /proc/swaps is the running system's: in a chroot (an installer's
         * in-target, an image build) the installer's or the build host's swap,
         * not the target's; the target's own is its fstab */
        if (target_is_running_system(inv->rfs))
                read_proc_swaps(inv, udev);
        else if (inv->rfs->host)
                inventory_add_note(inv, _("/proc/swaps not read: in a chroot it lists the installer's or the "
                                          "build host's swap; the target's swap is the one its /etc/fstab names"));
        if (libblkid_error)
                inventory_add_note(inv, _("libblkid.so.1 cannot be opened (%s): filesystems that the udev "
                                          "database does not describe were not probed"), libblkid_error);
        return 0;
}
