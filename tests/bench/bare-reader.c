/* tests/bench/bare-reader.c: the floor idlecfg is measured against. A plain
 * libudev program that enumerates the subsystems detect enumerates and reads
 * the attributes detect reads (the same lists as src/pipeline/detect.c), and nothing
 * else: no inventory, no module lookups, no hwdb, no output but a count.
 * Usage: bare-reader (prints "DEVICES ATTRIBUTES BYTES") */
#include <dirent.h>
#include <fcntl.h>
#include <libudev.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static unsigned long n_attrs, n_bytes;

static void read_at(int dfd, const char *attr)
{
        char buf[4096];
        int fd = openat(dfd, attr, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        ssize_t n;

        if (fd < 0)
                return;
        n = read(fd, buf, sizeof(buf));
        if (n > 0) {
                n_attrs++;
                n_bytes += (unsigned long) n;
        }
        close(fd);
}

static void read_list(int dfd, const char *const *attrs)
{
        for (; *attrs; attrs++)
                read_at(dfd, *attrs);
}

/* detect.c's identity and knob attributes, per kind of device */
static const char *const pci[] = {
        "vendor", "device", "subsystem_vendor", "subsystem_device", "class", "revision",
        "power/control", "power/runtime_status", "power/autosuspend_delay_ms", "power/wakeup",
        "d3cold_allowed", "link/clkpm", "link/l0s_aspm", "link/l1_aspm", "link/l1_1_aspm", "link/l1_2_aspm",
        "link/l1_1_pcipm", "link/l1_2_pcipm", NULL
};
static const char *const usb[] = {
        "idVendor", "idProduct", "bcdDevice", "bDeviceClass", "manufacturer", "product", "speed", "removable",
        "power/control", "power/autosuspend_delay_ms", "power/persist", "power/wakeup", "power/runtime_status",
        "power/level", "power/autosuspend", "power/usb2_hardware_lpm", "power/usb3_hardware_lpm_u1",
        "power/usb3_hardware_lpm_u2", NULL
};
static const char *const usb_if[] = {
        "bInterfaceNumber", "bInterfaceClass", "bInterfaceSubClass", "bInterfaceProtocol", NULL
};
static const char *const scsi_host[] = {
        "proc_name", "link_power_management_policy", "link_power_management_supported", NULL
};
static const char *const scsi_dev[] = {
        "vendor", "model", "rev", "type", "power/control", "power/autosuspend_delay_ms", "power/runtime_status",
        NULL
};
static const char *const nvme[] = {
        "model", "firmware_rev", "transport", "power/pm_qos_latency_tolerance_us", "power/control",
        "power/runtime_status", NULL
};
static const char *const sound[] = { "id", "number", NULL };
static const char *const hda[] = {
        "vendor_id", "subsystem_id", "revision_id", "vendor_name", "chip_name", "power/control",
        "power/runtime_status", NULL
};
static const char *const drm[] = {
        "power/rc6_enable", "power/rc6_residency_ms", "power/rc6p_residency_ms", "power/rc6pp_residency_ms",
        "power/media_rc6_residency_ms", "gt/gt0/rc6_enable", "gt/gt0/rc6_residency_ms",
        "device/power_dpm_state", "device/power_dpm_force_performance_level",
        "status", "enabled", "amdgpu/panel_power_savings", NULL
};
static const char *const i2c[] = {
        "name", "device/power/control", "device/power/runtime_status", "power/control", "power/runtime_status",
        "power/wakeup", NULL
};

static const struct {
        const char *subsystem, *devtype;
        const char *const *attrs;
        const char *parent;     /* the ancestor detect looks up, if any */
} kinds[] = {
        { "pci", NULL, pci, NULL },
        { "usb", "usb_device", usb, NULL },
        { "usb", "usb_interface", usb_if, NULL },
        { "scsi_host", NULL, scsi_host, "pci" },
        { "scsi", "scsi_device", scsi_dev, NULL },
        { "nvme", NULL, nvme, "pci" },
        { "sound", NULL, sound, "pci" },
        { "hdaudio", NULL, hda, NULL },
        { "drm", NULL, drm, "pci" },
        { "i2c", NULL, i2c, NULL },
};

int main(void)
{
        static const char *const dmi[] = {
                "sys_vendor", "product_name", "product_version", "product_family", "product_sku",
                "board_vendor", "board_name", "board_version", "bios_vendor", "bios_version",
                "bios_date", "chassis_vendor", "chassis_type", "modalias", NULL
        };
        struct udev *udev = udev_new();
        struct udev_enumerate *e;
        struct udev_list_entry *le;
        struct udev_device *cpu;
        unsigned long n_dev = 0;
        int dfd;

        if (!udev)
                return 1;
        dfd = open("/sys/class/dmi/id", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0) {
                read_list(dfd, dmi);
                close(dfd);
        }
        cpu = udev_device_new_from_subsystem_sysname(udev, "cpu", "cpu0");
        if (cpu && udev_device_get_property_value(cpu, "MODALIAS"))
                n_attrs++;
        udev_device_unref(cpu);

        e = udev_enumerate_new(udev);
        for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
                udev_enumerate_add_match_subsystem(e, kinds[i].subsystem);
        if (udev_enumerate_scan_devices(e) < 0)
                return 1;
        udev_list_entry_foreach(le, udev_enumerate_get_list_entry(e)) {
                struct udev_device *u = udev_device_new_from_syspath(udev, udev_list_entry_get_name(le));
                const char *sub, *type;

                if (!u)
                        continue;
                sub = udev_device_get_subsystem(u);
                type = udev_device_get_devtype(u);
                for (size_t i = 0; sub && i < sizeof(kinds) / sizeof(kinds[0]); i++) {
                        if (strcmp(kinds[i].subsystem, sub) != 0 ||
                            (kinds[i].devtype && (!type || strcmp(kinds[i].devtype, type) != 0)))
                                continue;
                        (void) udev_device_get_sysname(u);
                        (void) udev_device_get_devpath(u);
                        (void) udev_device_get_driver(u);
                        (void) udev_device_get_property_value(u, "MODALIAS");
                        if (kinds[i].parent)
                                (void) udev_device_get_parent_with_subsystem_devtype(u, kinds[i].parent, NULL);
                        dfd = open(udev_device_get_syspath(u), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                        if (dfd >= 0) {
                                read_list(dfd, kinds[i].attrs);
                                close(dfd);
                        }
                        n_dev++;
                        break;
                }
                udev_device_unref(u);
        }
        udev_enumerate_unref(e);
        udev_unref(udev);
        printf("%lu %lu %lu\n", n_dev, n_attrs, n_bytes);
        return 0;
}
