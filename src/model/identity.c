/* identity.c: a device's identity, the line the fingerprint hashes for it
 * (detect and refresh's cheap look both spell it here) */
#include "config.h"

#include <ctype.h>

#include "model/identity.h"
#include "base/util.h"

const struct identity_attrs identity_attrs[_ID_MAX] = {
        [ID_PCI] = { { "vendor", "device", "subsystem_vendor", "subsystem_device", "class" }, true },
        [ID_USB] = { { "idVendor", "idProduct", "bcdDevice" }, true },
        [ID_DISK] = { { "vendor", "model", "rev" }, false },
        [ID_NVME] = { { "model", "firmware_rev" }, false },
        [ID_HDAUDIO] = { { "vendor_id", "subsystem_id", "revision_id" }, true },
        [ID_I2C] = { { "modalias" }, false },
};

const char *const identity_platform_keys[] = {
        "sys_vendor", "product_name", "product_version", "board_vendor", "board_name", "chassis_type",
        "cpu_arch", "cpu_vendor", "cpu_family", "cpu_model", NULL
};

char *identity_value(char *v, bool hex)
{
        if (!v)
                return NULL;
        if (hex) {
                /* "0x8086" -> "8086"; other text is kept as it is */
                if (v[0] == '0' && (v[1] == 'x' || v[1] == 'X'))
                        memmove(v, v + 2, strlen(v + 2) + 1);
                for (char *p = v; *p; p++)
                        *p = (char) tolower((unsigned char) *p);
        } else {
                char *s = strstrip(v);
                memmove(v, s, strlen(s) + 1);
        }
        return v;
}

char *device_identity(enum identity_kind kind, const char *const *v)
{
        switch (kind) {
        case ID_PCI:
                return xasprintf("pci %s:%s %s:%s %s", strempty(v[0]), strempty(v[1]), strempty(v[2]),
                                 strempty(v[3]), strempty(v[4]));
        case ID_USB:
                return xasprintf("usb %s:%s %s", strempty(v[0]), strempty(v[1]), strempty(v[2]));
        case ID_DISK:
                return xasprintf("disk %s %s %s", strempty(v[0]), strempty(v[1]), strempty(v[2]));
        case ID_NVME:
                return xasprintf("nvme %s %s", strempty(v[0]), strempty(v[1]));
        case ID_HDAUDIO:
                return xasprintf("hdaudio %s %s %s", strempty(v[0]), strempty(v[1]), strempty(v[2]));
        case ID_I2C:
                return xasprintf("i2c %s", strempty(v[0]));
        case _ID_MAX:
                break;
        }
        abort();
}

/* x86: "cpu:type:x86,ven0000fam0006mod008C:feature:..." (vendor numbers as in the kernel) */
void platform_add_cpu(struct kvlist *platform, const char *m)
{
        static const char *const x86_vendors[] = {
                "Intel", "Cyrix", "AMD", "UMC", "Centaur", "Transmeta", "NSC", "Vortex", "Hygon", "Zhaoxin",
        };
        unsigned ven, fam, mod;

        if (sscanf(m, "cpu:type:x86,ven%4xfam%4xmod%4x", &ven, &fam, &mod) == 3) {
                kv_add(platform, "cpu_arch", "x86");
                /* kernel numbering: 0 Intel, 1 Cyrix, 2 AMD, ... 9 Hygon, 10 Zhaoxin */
                kv_add_take(platform, "cpu_vendor",
                            ven == 9 ? xstrdup("Hygon") : ven == 10 ? xstrdup("Zhaoxin") :
                            ven < 8 ? xstrdup(x86_vendors[ven]) : xasprintf("%u", ven));
                kv_add_take(platform, "cpu_family", xasprintf("%u", fam));
                kv_add_take(platform, "cpu_model", xasprintf("%u", mod));
                /* X86_FEATURE_HYPERVISOR (word 4, bit 31): CPUID says a hypervisor runs it */
                {
                        const char *feat = strstr(m, ":feature:");
                        const char *h = feat ? strstr(feat, ",009F") : NULL;
                        if (h && (h[5] == ',' || h[5] == '\0'))
                                kv_add(platform, "cpu_hypervisor", "yes");
                }
        } else if (startswith(m, "cpu:type:")) {
                const char *a = m + strlen("cpu:type:");
                kv_add_take(platform, "cpu_arch", xstrndup(a, strcspn(a, ":,")));
        }
}
