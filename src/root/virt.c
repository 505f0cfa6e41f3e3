/* virt.c: is the target machine a virtual one? (DMI strings, the CPUID hypervisor bit) */
#include "config.h"

#include "base/util.h"
#include "root/virt.h"

/* systemd's src/basic/virt.c dmi_vendor_table: a prefix of one of the DMI
 * fields below names the hypervisor */
static const struct { const char *prefix, *name; } dmi_vendors[] = {
        { "KVM", "kvm" },           { "OpenStack", "kvm" },      { "KubeVirt", "kvm" },
        { "Amazon EC2", "amazon" }, { "QEMU", "qemu" },          { "VMware", "vmware" },
        { "VMW", "vmware" },        { "innotek GmbH", "oracle" }, { "VirtualBox", "oracle" },
        { "Oracle Corporation", "oracle" }, { "Xen", "xen" },    { "Bochs", "bochs" },
        { "Parallels", "parallels" }, { "BHYVE", "bhyve" },      { "Hyper-V", "microsoft" },
        { "Apple Virtualization", "apple" }, { "Google Compute Engine", "google" },
};

void platform_add_virt(struct kvlist *platform)
{
        static const char *const fields[] = { "product_name", "sys_vendor", "board_vendor", "bios_vendor",
                                              "product_version" };
        const char *product = kv_get(platform, "product_name");

        for (size_t i = 0; i < ELEMENTSOF(fields); i++) {
                const char *v = kv_get(platform, fields[i]);
                if (!v)
                        continue;
                for (size_t k = 0; k < ELEMENTSOF(dmi_vendors); k++) {
                        if (!startswith(v, dmi_vendors[k].prefix))
                                continue;
                        /* EC2's bare-metal instances carry the same vendor */
                        if (streq(dmi_vendors[k].name, "amazon") && product && endswith_str(product, ".metal"))
                                continue;
                        kv_add(platform, "virtualization", dmi_vendors[k].name);
                        kv_add_take(platform, "virtualization_source", xasprintf("DMI %s \"%s\"", fields[i], v));
                        return;
                }
        }
        /* Hyper-V: Microsoft's vendor string is also its laptops' */
        if (streq_ptr(kv_get(platform, "sys_vendor"), "Microsoft Corporation") && streq_ptr(product, "Virtual Machine")) {
                kv_add(platform, "virtualization", "microsoft");
                kv_add(platform, "virtualization_source", "DMI sys_vendor \"Microsoft Corporation\", product_name "
                                                          "\"Virtual Machine\"");
                return;
        }
        if (streq_ptr(kv_get(platform, "cpu_hypervisor"), "yes")) {
                kv_add(platform, "virtualization", "vm");
                kv_add(platform, "virtualization_source", "CPUID hypervisor flag");
        }
}

bool platform_is_vm(const struct kvlist *platform)
{
        return kv_get(platform, "virtualization") != NULL;
}

bool virt_pci_saves_nothing(const char *vendor, const char *class)
{
        return streq_ptr(vendor, "1af4") || (class && startswith(class, "0600"));
}
