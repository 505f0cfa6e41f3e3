/* storage.c: which disk holds the target's root filesystem, and its swap (libblkid) */
#include "config.h"

#include <blkid.h>
#include <ctype.h>
#include <libudev.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "inventory.h"

int detect_storage(struct inventory *inv, struct udev *udev);

/* one fstab line, fields split in place; false for comments and blank lines */
static bool fstab_split(char *line, char **spec, char **file, char **type)
{
        char *save = NULL;

        *spec = strtok_r(line, " \t\n", &save);
        if (!*spec || **spec == '#')
                return false;
        *file = strtok_r(NULL, " \t\n", &save);
        *type = strtok_r(NULL, " \t\n", &save);
        return *file && *type;
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

static char *uuid_of(blkid_cache *cache, const char *spec, const char *device)
{
        if (startswith(spec, "UUID="))
                return xstrdup(spec + 5);
        if (device && *cache) {
                char *u = blkid_get_tag_value(*cache, "UUID", device);
                if (u) {
                        char *r = xstrdup(u);
                        free(u);
                        return r;
                }
        }
        return NULL;
}

static void read_fstab(struct inventory *inv, blkid_cache *cache)
{
        _cleanup_free_ char *path = root_path(inv->root, "/etc/fstab");
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        char line[4096];
        unsigned lineno = 0;

        if (!f) {
                if (errno != ENOENT)
                        inventory_add_note(inv, "%s: %s", path, strerror(errno));
                return;
        }
        while (fgets(line, sizeof(line), f)) {
                char *spec, *file, *type;

                lineno++;
                if (!strchr(line, '\n') && !feof(f)) {
                        inventory_add_note(inv, _("%s:%u: line too long, ignored"), path, lineno);
                        int c;
                        while ((c = fgetc(f)) != EOF && c != '\n')
                                ;
                        continue;
                }
                if (!fstab_split(line, &spec, &file, &type))
                        continue;
                if (streq(file, "/") && !inv->storage.root_spec)
                        inv->storage.root_spec = xstrdup(spec);
                if (streq(type, "swap")) {
                        _cleanup_free_ char *dev = blkid_evaluate_tag(spec, NULL, cache);
                        _cleanup_free_ char *uuid = uuid_of(cache, spec, dev);
                        add_swap(&inv->storage, spec, dev, uuid, "fstab");
                }
        }
}

static void read_proc_swaps(struct inventory *inv, blkid_cache *cache)
{
        _cleanup_fclose_ FILE *f = fopen("/proc/swaps", "re");
        char line[4096];

        if (!f)
                return;
        if (!fgets(line, sizeof(line), f))     /* header */
                return;
        while (fgets(line, sizeof(line), f)) {
                char *save = NULL, *name = strtok_r(line, " \t\n", &save);
                _cleanup_free_ char *uuid = NULL;

                if (!name)
                        continue;
                uuid = uuid_of(cache, name, name);
                add_swap(&inv->storage, name, name, uuid, "proc");
        }
}

/* the whole disk below a partition or a device-mapper/md device */
static struct udev_device *whole_disk(struct udev *udev, struct udev_device *u)
{
        const char *devtype = udev_device_get_devtype(u);
        struct udev_device *p;

        if (streq_ptr(devtype, "partition")) {
                p = udev_device_get_parent_with_subsystem_devtype(u, "block", "disk");
                return p ? udev_device_ref(p) : NULL;
        }
        return udev_device_ref(u);
}

static void find_root_device(struct inventory *inv, struct udev *udev)
{
        struct storage *s = &inv->storage;
        struct udev_device *u, *disk;
        struct stat st;
        const char *v;

        if (stat(inv->root, &st) < 0) {
                s->root_note = xasprintf("%s: %s", inv->root, strerror(errno));
                return;
        }
        if (major(st.st_dev) == 0) {
                s->root_note = xasprintf(_("the filesystem of %s is not on a block device (device %u:%u)"),
                                         inv->root, major(st.st_dev), minor(st.st_dev));
                return;
        }
        u = udev_device_new_from_devnum(udev, 'b', st.st_dev);
        if (!u) {
                s->root_note = xasprintf(_("block device %u:%u of %s is not in sysfs"),
                                         major(st.st_dev), minor(st.st_dev), inv->root);
                return;
        }
        v = udev_device_get_devnode(u);
        s->root_device = xstrdup(v ? v : udev_device_get_sysname(u));
        if ((v = udev_device_get_property_value(u, "ID_FS_TYPE")))
                s->root_fstype = xstrdup(v);
        if ((v = udev_device_get_property_value(u, "ID_FS_UUID")))
                s->root_uuid = xstrdup(v);
        if ((!s->root_fstype || !s->root_uuid) && udev_device_get_devnode(u)) {
                blkid_probe pr = blkid_new_probe_from_filename(udev_device_get_devnode(u));
                const char *val;
                if (pr) {
                        blkid_probe_enable_superblocks(pr, 1);
                        blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_UUID | BLKID_SUBLKS_TYPE);
                        if (blkid_do_safeprobe(pr) == 0) {
                                if (!s->root_fstype && blkid_probe_lookup_value(pr, "TYPE", &val, NULL) == 0)
                                        s->root_fstype = xstrdup(val);
                                if (!s->root_uuid && blkid_probe_lookup_value(pr, "UUID", &val, NULL) == 0)
                                        s->root_uuid = xstrdup(val);
                        }
                        blkid_free_probe(pr);
                }
        }
        disk = whole_disk(udev, u);
        if (disk) {
                s->root_disk = xstrdup(udev_device_get_sysname(disk));
                s->root_disk_devpath = xstrdup(udev_device_get_devpath(disk));
                udev_device_unref(disk);
        }
        udev_device_unref(u);
}

int detect_storage(struct inventory *inv, struct udev *udev)
{
        blkid_cache cache = NULL;

        if (blkid_get_cache(&cache, "/dev/null") < 0)
                cache = NULL;
        find_root_device(inv, udev);
        read_fstab(inv, &cache);
        if (root_is_host(inv->root))
                read_proc_swaps(inv, &cache);
        if (cache)
                blkid_put_cache(cache);
        return 0;
}
