/* knobs/pci.c: PCI runtime PM (power/control) with a denylist by driver and class */
#include "config.h"

#include "knobs/knob.h"
#include "root/virt.h"

/* drivers whose runtime PM is known to break something (TLP's
 * denylist; https://github.com/linrunner/TLP/issues/587 for xHCI) */
static const struct { const char *driver, *why; } deny_drivers[] = {
        { "mei_me", "Intel ME interface: runtime suspend breaks the ME link (TLP denylist)" },
        { "pcieport", "PCIe port: the kernel manages the runtime PM of ports itself" },
        { "nouveau", "GPU: the driver's runpm manages it; set only with a hwdb allow entry" },
        { "amdgpu", "GPU: the driver's runpm manages it; set only with a hwdb allow entry" },
        { "radeon", "GPU: the driver's runpm manages it; set only with a hwdb allow entry" },
        { "nvidia", "GPU: its runtime D3 is [gpu] runtime_pm's, on notebooks with an IDLECFG_NVIDIA_RTD3 hwdb entry "
                    "(the driver's option and a rule at its bind)" },
        { "i915", "GPU: the driver manages its runtime PM" },
        { "xe", "GPU: the driver manages its runtime PM" },
};

/* Another power tool may have set power/control; then its value says nothing
 * about what the kernel chose. */
static bool other_tool(struct planctx *c)
{
        for (size_t i = 0; i < c->inv->n_tools; i++)
                if (c->inv->tools[i].conflicts)
                        return true;
        return false;
}

/* xHCI without an hwdb entry: true when planned or skipped here. The kernel
 * allows runtime PM itself on the hosts it knows good (XHCI_DEFAULT_PM_RUNTIME_ALLOW
 * in drivers/usb/host/xhci-pci.c: its Intel/AMD list, and every xHCI 1.2 or later
 * host since Linux 5.19, commit a611bf473d1f). HCIVERSION has no sysfs attribute,
 * so that decision shows only as power/control = auto at boot. xHCI 1.1 hosts
 * are the known bad: USB devices unseen after runtime suspend (TLP #587 #436),
 * and the kernel's own try to allow AMD xHC 1.1 was reverted (bce4c45bd1ae). */
static bool xhci(struct planctx *c, const struct device *d, const char *want)
{
        const char *cur = kv_get(&d->knobs, "power/control");

        if (!streq_ptr(d->driver, "xhci_hcd"))
                return false;
        if (streq(want, "auto") && streq_ptr(cur, "auto") && !other_tool(c)) {
                _cleanup_free_ char *why = profile_reason(c, "pci", "runtime_pm");
                plan_device(c, d, "pci.runtime_pm", "power/control", want,
                            xasprintf("%s; xHCI the kernel itself allows runtime PM on (power/control is auto with no "
                                      "other power tool installed: XHCI_DEFAULT_PM_RUNTIME_ALLOW, its list or an xHCI "
                                      "1.2+ host); planned so that it stays so", why));
                return true;
        }
        if (streq(want, "on"))
                return false;
        plan_skip(c, d, "pci.runtime_pm",
                  xstrdup("skipped: driver xhci_hcd: not on the kernel's or the hwdb's runtime PM allowlist; xHCI "
                            "1.1 hosts lose USB devices plugged in while suspended (TLP #587, #436; kernel revert "
                            "bce4c45bd1ae), and HCIVERSION, which tells 1.2 hosts apart, is not in sysfs"));
        return true;
}

/* AHCI controllers: runtime PM stopped USB working on some Lenovo and ASUS
 * laptops (TLP #829, #436, #805); the hwdb names those platforms */
static bool ahci_platform_denied(struct planctx *c, const struct device *d)
{
        struct hwdb_fact f;

        if (!streq_ptr(d->driver, "ahci") ||
            !hwdb_fact(c, kv_get(&c->inv->platform, "modalias"), "IDLECFG_AHCI_RUNTIME_PM", &f) ||
            !streq(f.value, "deny"))
                return false;
        {
                _cleanup_free_ char *why = fact_reason(&f);
                plan_skip(c, d, "pci.runtime_pm", xasprintf("skipped: AHCI controller: %s", why));
        }
        return true;
}

/* Ethernet controllers (class 0200). powertop and TLP write power/control =
 * auto on every PCI function; a NIC then suspends only if its driver's
 * runtime idle callback schedules a suspend when the link goes down. These
 * drivers do (the kernel facts, checked in the 6.x sources named); on any
 * other driver the write is hollow and is skipped. While runtime-suspended,
 * each of them arms only the wake on a link change, not the Wake-on-LAN
 * options (.wake_kept false): the PCI core may keep a runtime-suspended
 * function suspended through system sleep (pci_pm_prepare(), the
 * direct-complete path, drivers/pci/pci-driver.c), magic packet unarmed.
 * The peers' NIC breakages (issue 47): TLP #605 (an r8169 whose Wake-on-LAN
 * turns itself off after a while), #636 (eth0 down after a boot on battery),
 * #684.
 *
 * All of it needs a function that can signal PME: the wake on link change
 * is a PME. pci_pm_init() (drivers/pci/pci.c) takes pdev->pme_support from
 * the PM capability's PMC, which detect reads from config space
 * (root/sysfs.c pci_config_pme(); QEMU's e1000e and igb list none, PMC
 * 0x0022). power/wakeup is no proof of PME: pci_pm_init() makes a function
 * with PME wakeup-capable, but so do a PCIe root port's PME service for
 * every function below it (pcie_pme_can_wakeup(), drivers/pci/pcie/pme.c)
 * and ACPI _PRW; so only where config space cannot be read (a user gets 64
 * bytes) does a function without power/wakeup count as having none. What
 * the driver then does (.no_pme), in 6.1, 6.12 and 7.3: r8169 and e1000e
 * keep the function active, igb and igc let it suspend with no way back
 * when the cable returns. */
static const struct nic_driver {
        const char *driver;
        const char *idle;       /* what its runtime idle does, and where */
        const char *wake;       /* what its runtime suspend arms for wake-up, and where */
        bool wake_kept;         /* does the Wake-on-LAN path survive its runtime suspend? */
        const char *no_pme;     /* what happens to a function that cannot signal PME, and where */
} nic_drivers[] = {
        { "r8169",
          "rtl8169_runtime_idle() (drivers/net/ethernet/realtek/r8169_main.c) schedules runtime suspend 10 s after "
          "the carrier goes down, and refuses it while DASH is enabled (tp->dash_enabled)",
          "rtl8169_runtime_suspend() arms wake on link change only (__rtl8169_set_wol(tp, WAKE_PHY)); the "
          "Wake-on-LAN options come back at runtime resume", false,
          "rtl_init_one() (drivers/net/ethernet/realtek/r8169_main.c) drops its runtime PM hold only where "
          "pci_dev_run_wake() finds PME, so the NIC stays active and power/control = auto would do nothing" },
        { "e1000e",
          "e1000e_pm_runtime_idle() (drivers/net/ethernet/intel/e1000e/netdev.c) schedules runtime suspend 5 s "
          "after e1000e_has_link() finds no link",
          "e1000e_pm_runtime_suspend() calls __e1000_shutdown(pdev, true), which arms only the link-change wake "
          "(E1000_WUFC_LNKC), and e1000e_pm_prepare() lets a runtime-suspended NIC stay so through suspend to RAM",
          false,
          "e1000_probe() (drivers/net/ethernet/intel/e1000e/netdev.c) drops its runtime PM hold only where "
          "pci_dev_run_wake() finds PME, so the NIC stays active and power/control = auto would do nothing" },
        { "igb",
          "igb_runtime_idle() (drivers/net/ethernet/intel/igb/igb_main.c) schedules runtime suspend 5 s after "
          "igb_has_link() finds no link",
          "igb_runtime_suspend() calls __igb_shutdown(pdev, NULL, 1), which arms only the link-change wake "
          "(E1000_WUFC_LNKC)", false,
          "igb_probe() (drivers/net/ethernet/intel/igb/igb_main.c) lets it runtime-suspend all the same, and "
          "without PME nothing wakes it when the cable comes back: the link would stay down" },
        { "igc",
          "igc_runtime_idle() (drivers/net/ethernet/intel/igc/igc_main.c) schedules runtime suspend 5 s after "
          "igc_has_link() finds no link",
          "igc_runtime_suspend() calls __igc_shutdown(pdev, NULL, 1), which arms only the link-change wake "
          "(IGC_WUFC_LNKC)", false,
          "igc_probe() (drivers/net/ethernet/intel/igc/igc_main.c) lets it runtime-suspend all the same, and "
          "without PME nothing wakes it when the cable comes back: the link would stay down" },
};

static const struct nic_driver *nic_driver(const char *driver)
{
        for (size_t k = 0; driver && k < ELEMENTSOF(nic_drivers); k++)
                if (streq(driver, nic_drivers[k].driver))
                        return &nic_drivers[k];
        return NULL;
}

/* r8169 in DASH mode: DASH (Realtek's remote management) shares the port and
 * is not in sysfs, so the hwdb names the machines whose NIC runs it */
static bool nic_dash(struct planctx *c, const struct device *d, char **ret_why)
{
        _cleanup_free_ char *mkey = machine_key(c, d->modalias);
        struct hwdb_fact f;

        if (!hwdb_fact(c, mkey, "IDLECFG_NIC_DASH", &f) && !hwdb_fact(c, d->modalias, "IDLECFG_NIC_DASH", &f))
                return false;
        if (!streq(f.value, "enabled"))
                return false;
        *ret_why = fact_reason(&f);
        return true;
}

/* An Ethernet controller: true when planned or skipped here (auto only: on
 * keeps a NIC awake, which none of this is about). */
static bool nic(struct planctx *c, const struct device *d, const char *want)
{
        const char *cls = kv_get(&d->ids, "class");
        const struct nic_driver *n;
        _cleanup_free_ char *dash = NULL, *why = NULL;
        bool armed;

        if (!cls || !startswith(cls, "0200") || streq(want, "on"))
                return false;
        n = nic_driver(d->driver);
        if (!n) {
                plan_skip(c, d, "pci.runtime_pm",
                          xasprintf("skipped: Ethernet controller, driver %s: not one whose runtime idle suspends the "
                                    "NIC when the link goes down (r8169, e1000e, igb, igc), so power/control = auto "
                                    "would do nothing", d->driver ? d->driver : "none"));
                return true;
        }
        if (streq(n->driver, "r8169") && nic_dash(c, d, &dash)) {
                plan_skip(c, d, "pci.runtime_pm",
                          xasprintf("skipped: r8169 in DASH mode (%s): remote management needs the port up; %s",
                                    dash, n->idle));
                return true;
        }
        if (d->pme_known ? !d->pme_support : !kv_find(&d->knobs, "power/wakeup")) {
                plan_skip(c, d, "pci.runtime_pm",
                          xasprintf("skipped: Ethernet controller (%s) that cannot signal PME (%s), so no wake on "
                                    "link change: %s", n->driver,
                                    d->pme_known ? "its PM capability lists none" : "no power/wakeup: its PM capability "
                                                                                    "lists none",
                                    n->no_pme));
                return true;
        }
        armed = streq_ptr(kv_get(&d->knobs, "power/wakeup"), "enabled");
        if (armed && !n->wake_kept && !streq_ptr(profile_value(c, "network", "wake_on_lan"), "off")) {
                plan_skip(c, d, "pci.runtime_pm",
                          xasprintf("skipped: Ethernet controller (%s) with Wake-on-LAN armed (power/wakeup = "
                                    "enabled) and kept by the profile: %s", n->driver, n->wake));
                return true;
        }
        why = profile_reason(c, "pci", "runtime_pm");
        plan_device(c, d, "pci.runtime_pm", "power/control", want,
                    xasprintf("%s; Ethernet controller: %s%s", why, n->idle,
                              !armed ? "" : n->wake_kept ? "; Wake-on-LAN, armed, survives its runtime suspend"
                                                         : "; Wake-on-LAN, armed now, is turned off by [network] "
                                                           "wake_on_lan = off"));
        return true;
}

void knob_pci_runtime_pm(struct planctx *c)
{
        const struct device_list *l = &c->inv->classes[CL_PCI];
        const char *want = profile_value(c, "pci", "runtime_pm");

        if (!want) {
                if (l->n)
                        plan_skip_keep(c, "pci.runtime_pm", "pci", "runtime_pm");
                return;
        }
        for (size_t i = 0; i < l->n; i++) {
                const struct device *d = &l->v[i];
                const char *cls = kv_get(&d->ids, "class");
                struct hwdb_fact f;
                bool denied = false;

                _cleanup_free_ char *mkey = machine_key(c, d->modalias);
                _cleanup_free_ char *undecided = NULL;

                if (!kv_find(&d->knobs, "power/control"))
                        continue;       /* no runtime PM file on this kernel */
                if (platform_is_vm(&c->inv->platform) && virt_pci_saves_nothing(kv_get(&d->ids, "vendor"), cls)) {
                        plan_skip(c, d, "pci.runtime_pm",
                                  xasprintf("skipped: virtual machine (%s): %s draws no power of its own, runtime PM "
                                            "saves nothing", kv_get(&c->inv->platform, "virtualization_source"),
                                            streq_ptr(kv_get(&d->ids, "vendor"), "1af4") ? "a virtio function"
                                                                                         : "the hypervisor's host bridge"));
                        continue;
                }
                /* this function on this machine (bridge_d3_blacklist), then the function */
                /* an entry whose kernel range cannot be decided stops the search:
                 * a less specific one must not stand in for it */
                if (hwdb_fact_undecided(c, mkey, "IDLECFG_PCI_RUNTIME_PM", &f, &undecided) ||
                    (!undecided && hwdb_fact_undecided(c, d->modalias, "IDLECFG_PCI_RUNTIME_PM", &f, &undecided))) {
                        _cleanup_free_ char *why = fact_reason(&f);
                        if (streq(f.value, "deny")) {
                                plan_skip(c, d, "pci.runtime_pm", xasprintf("skipped: %s", why));
                                continue;
                        }
                        if (streq(f.value, "allow")) {
                                plan_device(c, d, "pci.runtime_pm", "power/control", want, TAKE_PTR(why));
                                continue;
                        }
                }
                if (undecided) {
                        plan_skip(c, d, "pci.runtime_pm", xasprintf("skipped: %s: the kernel default stays", undecided));
                        continue;
                }
                if (xhci(c, d, want) || (!streq(want, "on") && ahci_platform_denied(c, d)))
                        continue;
                for (size_t k = 0; k < ELEMENTSOF(deny_drivers) && !denied; k++)
                        if (streq_ptr(d->driver, deny_drivers[k].driver)) {
                                plan_skip(c, d, "pci.runtime_pm",
                                          xasprintf("skipped: driver %s: %s", d->driver, (deny_drivers[k].why)));
                                denied = true;
                        }
                if (denied || nic(c, d, want))
                        continue;
                if (cls && startswith(cls, "03")) {
                        plan_skip(c, d, "pci.runtime_pm",
                                  xstrdup("skipped: display controller without a driver known to handle runtime PM"));
                        continue;
                }
                if (cls && startswith(cls, "0604")) {
                        plan_skip(c, d, "pci.runtime_pm", xstrdup("skipped: PCI bridge: the kernel manages the runtime PM of ports"));
                        continue;
                }
                plan_device(c, d, "pci.runtime_pm", "power/control", want, profile_reason(c, "pci", "runtime_pm"));
        }
}

static const char *const ch_runtime_pm[] = { "auto", "on", "keep", NULL };

static const struct profile_key keys[] = {
        KEY_CHOICE_SOURCE("runtime_pm", ch_runtime_pm),
};

static const struct knob_rule rules[] = {
        RULE_WORDS("pci.runtime_pm", "auto|on", "power/control", NULL),
};

static const struct knob_property properties[] = {
        PROP_WORDS("IDLECFG_PCI_RUNTIME_PM", "deny|allow", "runtime PM of this PCI function: never, or known to work"),
        PROP_WORDS("IDLECFG_NIC_DASH", "enabled",
                   "this r8169 NIC runs DASH remote management (not visible in sysfs): no runtime PM for it"),
};

static const struct knob_attr attrs[] = {
        { "pci", "power/control" }, { "pci", "power/runtime_status" }, { "pci", "power/autosuspend_delay_ms" },
        { "pci", "power/wakeup" }, { "pci", "d3cold_allowed" },
};

static const struct knob_runtime_pm runtime_pm[] = {
        { "pci", "pci.runtime_pm" },
};

/* an NVMe controller's power/control is its PCI function's */
static const struct knob_runtime_pm runtime_pm_through[] = {
        { "nvme", "pci.runtime_pm" },
};

const struct knob_family knob_family_pci = {
        .name = "pci",
        .section = "pci",
        KNOB_LIST(keys, keys),
        KNOB_LIST(rules, rules),
        KNOB_LIST(properties, properties),
        KNOB_LIST(attrs, attrs),
        KNOB_LIST(runtime_pm, runtime_pm),
        KNOB_LIST(runtime_pm_through, runtime_pm_through),
        .plan = knob_pci_runtime_pm,
};
