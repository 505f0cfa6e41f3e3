/* tests/sysfs-list.c: sysfs_list() against libudev's enumeration of the same
 * subsystems (test driver, run under umockdev by tests/sysfs-list.sh).
 * Usage: sysfs-list [SUBSYSTEM...] (default: the ones detect lists).
 * Prints the devices libudev enumerates, in its order, then "--", then the
 * paths sysfs_list() gives that are devices (libudev can create them), in
 * its order: the two halves are the same when detect sees what
 * libudev's enumeration would have shown it. */
#include "config.h"

#include <libudev.h>

#include "pipeline/detect.h"
#include "model/inventory.h"
#include "root/sysfs.h"

int main(int argc, char **argv)
{
        struct udev *udev = udev_new();
        struct udev_enumerate *e;
        struct udev_list_entry *le;
        const char *const *sub;
        char **paths;
        size_t n_sub, n;

        if (!udev)
                return 1;
        if (argc > 1) {
                sub = (const char *const *) argv + 1;
                n_sub = (size_t) argc - 1;
        } else
                sub = detect_subsystems(&n_sub);

        e = udev_enumerate_new(udev);
        for (size_t i = 0; i < n_sub; i++)
                udev_enumerate_add_match_subsystem(e, sub[i]);
        if (udev_enumerate_scan_devices(e) < 0)
                return 1;
        udev_list_entry_foreach(le, udev_enumerate_get_list_entry(e))
                printf("%s\n", udev_list_entry_get_name(le));
        udev_enumerate_unref(e);

        printf("--\n");
        if (sysfs_list(sub, n_sub, NULL, &paths, &n) < 0)
                return 1;
        for (size_t i = 0; i < n; i++) {
                struct udev_device *u = udev_device_new_from_syspath(udev, paths[i]);

                if (u) {
                        printf("%s\n", udev_device_get_syspath(u));
                        udev_device_unref(u);
                }
        }
        sysfs_list_free(paths, n);
        udev_unref(udev);
        return 0;
}
